// send_job (seed contract §2.3, wire reference §2.2 and §6): names resolved to ids, parameters built, the body
// converted, and `POST /api/v2/jobs`.
import { RunyardValueError } from '../errors.js';
import { convertNextflowToJson, type ArrayFileSeparator } from '../jobs/job-body.js';
import type { JobConfig } from '../jobs/job-config-parser.js';
import { EXECUTION_PLATFORMS, WORKFLOW_TYPES, type ExecutionPlatform, type WorkflowType } from '../jobs/job-types.js';
import { resolveNextflowVersion } from '../jobs/nextflow-version.js';
import { parametersFilePayload } from '../jobs/parameters-file.js';
import { arrayFileColumnParameter, buildTextParameter, defaultPrefix, type JobParameter } from '../jobs/parameters.js';
import { getProjectIdFromName } from '../projects.js';
import type { ApiTransport } from '../api-transport.js';
import { getUserInfo } from '../users.js';
import { detectWorkflow, fetchWorkflowId, isModule as isModuleWorkflow } from '../workflows.js';
import type { ArrayFileColumn } from './array-file.js';
import { FileExplorerInputs } from './file-explorer-inputs.js';
import { fixPayloadBooleans } from './payload-booleans.js';
import { fetchJobQueueId } from './queues.js';
import { requireWorkspace, type WarningSink } from './types.js';

/** The inputs of `send_job` (seed contract §2.3); defaults are the contract's. */
export interface SendJobOptions {
  workspaceId: string;
  projectName: string;
  workflowName: string;
  /** The workflow's main file (required to tell apart wdl workflows with several). */
  mainfile?: string;
  importsfile?: string;
  /** Default `github`. */
  repositoryPlatform?: string;
  /** The most recently imported of duplicated workflows. */
  last?: boolean;
  /**
   * `nextflow`, `wdl` or `docker`. When not given it is detected from the workflow (two workflow searches);
   * bash jobs pass `docker` and skip that.
   */
  workflowType?: WorkflowType;
  /** Whether the workflow is a platform module; detected (two searches) when not given, false for docker. */
  isModule?: boolean;
  /** Path of a job-config file (seed contract §2.8); its pairs come first. */
  jobConfig?: string;
  /** `name=value` strings (`-p`); a name already in the job-config file replaces that entry. */
  parameters?: string[];
  /** Ready-made API parameters, appended unchanged. */
  exampleParameters?: Array<Record<string, unknown>>;
  /** An `s3://` or `az://` JSON/YAML file of workflow parameters. */
  paramsFile?: string;
  gitCommit?: string;
  gitTag?: string;
  gitBranch?: string;
  /** Default `new_job`. */
  jobName?: string;
  resumable?: boolean;
  /** Default true. */
  saveLogs?: boolean;
  /** Default: true on aws, false on azure and hpc; for bash jobs true only with a job queue. */
  batch?: boolean;
  /** The label of the queue to use; the default queue when no queue has it (with a warning). */
  jobQueue?: string;
  /** A queue id to use as is (no queue lookup). */
  jobQueueId?: string;
  nextflowProfile?: string;
  /** A version, or `latest`; default per platform (see resolveNextflowVersion). */
  nextflowVersion?: string;
  instanceType?: string;
  instanceDisk?: number;
  /** Default `aws`. */
  executionPlatform?: ExecutionPlatform;
  hpcId?: string;
  cromwellId?: string;
  azureWorkerInstanceType?: string;
  azureWorkerInstanceDisk?: number;
  azureWorkerInstanceSpot?: boolean;
  /** Dollars, default 30; -1 means no limit. */
  costLimit?: number;
  useMountpoints?: boolean;
  accelerateSavingResults?: boolean;
  /** Private docker images: the user must have linked a docker registry account. */
  dockerLogin?: boolean;
  /** Bash jobs: the command (with customScriptFileId: the script's file name). */
  command?: string;
  /** Bash jobs: the File Explorer id of a script file the command names (`--custom-script-path`). */
  customScriptFileId?: string;
  /** Bash array jobs: the array file (its File Explorer id, see retrieveArrayFileColumns) and its separator. */
  arrayFile?: { fileId: string; separator: ArrayFileSeparator };
  /** Bash array jobs: `name=column` strings (`-a`), each taking its value from that column of the array file's rows. */
  arrayParameters?: string[];
  /** Bash array jobs: the array file's header (retrieveArrayFileColumns), which gives each column's index (0 when absent). */
  arrayFileHeader?: ArrayFileColumn[];
  /** Bash jobs, default 1. */
  cpus?: number;
  /** Bash jobs, GB, default 4. */
  memory?: number;
  /** Receives the notes of the job-config parser, the version resolution and the queue choice. */
  onWarning?: WarningSink;
}

/** Reads a job-config file (a path on the caller's machine) for a workflow type: node's RunyardClient has one. */
export type JobConfigReader = (path: string, workflowType: WorkflowType) => Promise<JobConfig>;

/** Job-config pairs first, then `-p`; a `-p` of a name already given replaces that entry in place. */
async function buildParameters(
  o: SendJobOptions,
  workflowType: WorkflowType,
  warn: WarningSink,
  explorer: FileExplorerInputs,
  readJobConfig: JobConfigReader | undefined,
): Promise<JobParameter[]> {
  const out: JobParameter[] = [];
  if (o.jobConfig && readJobConfig) {
    const config = await readJobConfig(o.jobConfig, workflowType);
    config.warnings.forEach(warn);
    for (const { name, value } of config.params) out.push(buildTextParameter(defaultPrefix(workflowType), name, value));
  }
  for (const text of o.parameters ?? []) {
    const p = await explorer.parameter(text, workflowType);
    const at = out.findIndex((q) => q.name === p.name);
    if (at >= 0) out[at] = p;
    else out.push(p);
  }
  const header = (o.arrayFileHeader ?? []).map((c) => c.name);
  for (const text of o.arrayParameters ?? []) out.push(arrayFileColumnParameter(text, header).parameter);
  return out;
}

function checkChoices(o: SendJobOptions): void {
  if (!o.projectName) throw new RunyardValueError('send_job needs a project name.');
  if (!o.workflowName) throw new RunyardValueError('send_job needs a workflow name.');
  if (o.workflowType && !WORKFLOW_TYPES.includes(o.workflowType)) {
    throw new RunyardValueError(`Unknown workflow type '${o.workflowType}'; use one of ${WORKFLOW_TYPES.join(', ')}.`);
  }
  if (o.executionPlatform && !EXECUTION_PLATFORMS.includes(o.executionPlatform)) {
    throw new RunyardValueError(`Unknown execution platform '${o.executionPlatform}'; use one of ${EXECUTION_PLATFORMS.join(', ')}.`);
  }
  if ([o.gitCommit, o.gitTag, o.gitBranch].filter(Boolean).length > 1) {
    throw new RunyardValueError('Please, specify none or only one of --git-tag, --git-branch or --git-commit options.');
  }
}

/**
 * send_job: resolves the workflow type and module flag (unless given), the project, the workflow and the
 * job queue, builds the parameters (job-config file, then `-p`), resolves the Nextflow version, converts it
 * all with convertNextflowToJson and posts it. Returns the new job's id.
 */
export async function sendJob(t: ApiTransport, o: SendJobOptions, readJobConfig?: JobConfigReader): Promise<string> {
  const ws = o.workspaceId;
  requireWorkspace(ws);
  checkChoices(o);
  if (o.jobConfig && !readJobConfig)
    throw new RunyardValueError('A job-config file can only be read by the node client; give the parameters instead.');
  const warn: WarningSink = o.onWarning ?? (() => {});
  const platform: ExecutionPlatform = o.executionPlatform ?? 'aws';
  const last = o.last ?? false;

  const detected = o.workflowType ?? (await detectWorkflow(t, o.workflowName, ws, last));
  if (!WORKFLOW_TYPES.includes(detected as WorkflowType))
    throw new RunyardValueError(`Workflow '${o.workflowName}' has the unknown type '${detected}'.`);
  const workflowType = detected as WorkflowType;
  const isDocker = workflowType === 'docker';
  // A WDL workflow runs its main file recorded at import; mainfile, when given, picks among workflows of one name.
  const isModule = isDocker ? false : (o.isModule ?? (await isModuleWorkflow(t, o.workflowName, ws, last)));

  const projectId = (await getProjectIdFromName(t, ws, o.projectName))._id;
  const workflowId = await fetchWorkflowId(t, {
    workspaceId: ws,
    name: o.workflowName,
    mainfile: o.mainfile,
    importsfile: o.importsfile,
    repositoryPlatform: o.repositoryPlatform ?? 'github',
    last,
  });

  // Bash jobs use a queue only when one is asked for; modules never choose theirs.
  const batch = o.batch ?? (isDocker ? Boolean(o.jobQueue || o.jobQueueId) : platform === 'aws');
  let jobQueueId: string | null = o.jobQueueId ?? null;
  if (isModule && (o.jobQueue || o.jobQueueId)) {
    warn(`'${o.workflowName}' is a platform module, which runs on its own queue; the job queue you gave is ignored.`);
    jobQueueId = null;
  } else if (!jobQueueId && batch && platform === 'aws' && (!isDocker || o.jobQueue)) {
    jobQueueId = await fetchJobQueueId(t, ws, {
      workflowType: isDocker ? 'nextflow' : workflowType,
      batch,
      jobQueue: o.jobQueue,
      onWarning: warn,
    });
  }

  let dockerLogin = o.dockerLogin ?? false;
  if (dockerLogin && isModule) {
    warn('Private docker repositories are not used by platform modules; dockerLogin is ignored.');
    dockerLogin = false;
  } else if (dockerLogin) {
    const me = await getUserInfo(t);
    if (!me.dockerRegistriesCredentials?.length) {
      throw new RunyardValueError('dockerLogin needs a docker registry account linked to your user, and none is linked.');
    }
  }

  const explorer = new FileExplorerInputs(t, ws, o.projectName);
  const parameters = await buildParameters(o, workflowType, warn, explorer, readJobConfig);
  const parametersFile = o.paramsFile ? await parametersFilePayload(o.paramsFile, (path) => explorer.fileId(path)) : null;

  let nextflowVersion: string | null = null;
  if (!isDocker) {
    const resolved = resolveNextflowVersion({ requested: o.nextflowVersion, platform, isModule, workflowName: o.workflowName });
    resolved.warnings.forEach(warn);
    nextflowVersion = resolved.version;
  }

  const body = convertNextflowToJson({
    projectId,
    workflowId,
    workflowType,
    isModule,
    parameters,
    exampleParameters: o.exampleParameters,
    parametersFile,
    gitCommit: o.gitCommit,
    gitTag: o.gitTag,
    gitBranch: o.gitBranch,
    jobName: o.jobName,
    resumable: o.resumable,
    saveLogs: o.saveLogs,
    batch,
    jobQueueId,
    nextflowProfile: o.nextflowProfile,
    nextflowVersion,
    instanceType: o.instanceType,
    instanceDisk: o.instanceDisk,
    executionPlatform: platform,
    hpcId: o.hpcId,
    cromwellId: o.cromwellId,
    azureWorkerInstanceType: o.azureWorkerInstanceType,
    azureWorkerInstanceDisk: o.azureWorkerInstanceDisk,
    azureWorkerInstanceSpot: o.azureWorkerInstanceSpot,
    costLimit: o.costLimit,
    useMountpoints: o.useMountpoints,
    accelerateSavingResults: o.accelerateSavingResults,
    dockerLogin,
    command: o.command,
    customScriptFileId: o.customScriptFileId,
    arrayFile: o.arrayFile,
    cpus: o.cpus,
    memory: o.memory,
  });
  const reply = await t.request<{ jobId: string }>('POST', '/api/v2/jobs', { query: { teamId: ws }, body: fixPayloadBooleans(body) });
  return reply.jobId;
}
