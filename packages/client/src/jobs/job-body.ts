// The body of `POST /api/v2/jobs`, built as `convert_nextflow_to_json` builds it (wire reference §2.2).
// Ids are resolved and parameters built before this step; here only the rules of the body apply.
import { RunyardValueError } from '../errors.js';
import type { ExecutionPlatform, WorkflowType } from './job-types.js';
import { defaultNextflowVersion } from './nextflow-version.js';
import type { ParametersFilePayload } from './parameters-file.js';
import type { JobParameter } from './parameters.js';

/** The inputs of `send_job` (seed contract §2.3) once names are resolved to ids; defaults are `send_job`'s. */
export interface JobBodyInput {
  projectId: string;
  workflowId: string;
  /** Default `nextflow`. */
  workflowType?: WorkflowType;
  /** A platform module: no job queue, and no azure worker options. */
  isModule?: boolean;
  /** Built from the job-config file, `-p` and `-a`, in that order. */
  parameters?: JobParameter[];
  /** Ready-made API parameters, appended unchanged. */
  exampleParameters?: Array<Record<string, unknown>>;
  parametersFile?: ParametersFilePayload | null;
  gitCommit?: string | null;
  gitTag?: string | null;
  gitBranch?: string | null;
  /** Default `new_job`. */
  jobName?: string;
  /** Default false; always true for wdl and false for docker. */
  resumable?: boolean;
  /** Default true; always false on hpc. */
  saveLogs?: boolean;
  /** Default: true on aws, false on azure and hpc; for docker jobs true only with a job queue. */
  batch?: boolean;
  jobQueueId?: string | null;
  /** Comma-separated profile names. */
  nextflowProfile?: string | null;
  /** Default: the platform's (see nextflow-version.ts). Not sent for docker jobs. */
  nextflowVersion?: string | null;
  /** Default: c5.xlarge on aws, Standard_D4as_v4 on azure, null on hpc. */
  instanceType?: string | null;
  /** GB, default 500. */
  instanceDisk?: number;
  /** Default `aws`. */
  executionPlatform?: ExecutionPlatform;
  hpcId?: string | null;
  cromwellId?: string | null;
  /** Default Standard_D4as_v4. */
  azureWorkerInstanceType?: string;
  /** GB, default 100. */
  azureWorkerInstanceDisk?: number;
  azureWorkerInstanceSpot?: boolean;
  /** Default 30.0; -1 means no limit. */
  costLimit?: number;
  /** Object-storage mountpoints (`usesFusionFileSystem`), aws only. */
  useMountpoints?: boolean;
  accelerateSavingResults?: boolean;
  /** Private docker images; sent with a job queue. */
  dockerLogin?: boolean;
  /** Docker jobs: the command text, or the name of the custom script file. */
  command?: string | null;
  /** Docker jobs: File Explorer id of the custom script run as the command. */
  customScriptFileId?: string | null;
  /** Docker array jobs: the array file and its separator. */
  arrayFile?: { fileId: string; separator: ArrayFileSeparator } | null;
  /** Docker jobs, default 1. */
  cpus?: number;
  /** Docker jobs, GB, default 4. */
  memory?: number;
}

/** How the columns of an array file are separated, as the API names them. */
export type ArrayFileSeparator = ',' | ';' | ' ' | 'tab' | '|';
export const ARRAY_FILE_SEPARATORS: readonly ArrayFileSeparator[] = [',', ';', ' ', 'tab', '|'];

export const DEFAULT_INSTANCE_TYPE: Readonly<Record<ExecutionPlatform, string | null>> = {
  aws: 'c5.xlarge',
  azure: 'Standard_D4as_v4',
  hpc: null,
};

function given(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value !== '';
}

function checkPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RunyardValueError(`${name} must be a positive integer, not ${value}.`);
}

/** `revision` from exactly one of commit, tag and branch; none gives no revision. */
function revisionOf(input: JobBodyInput): Record<string, unknown> | undefined {
  const { gitCommit, gitTag, gitBranch } = input;
  const chosen = [given(gitTag) && 'tag', given(gitCommit) && 'commit', given(gitBranch) && 'branch'].filter(Boolean);
  if (chosen.length > 1)
    throw new RunyardValueError('Please, specify none or only one of --git-tag, --git-branch or --git-commit options.');
  if (!chosen.length) return undefined;
  return {
    revisionType: chosen[0],
    tag: given(gitTag) ? gitTag : null,
    commit: given(gitCommit) ? gitCommit : null,
    branch: given(gitBranch) ? gitBranch : null,
  };
}

/** The command keys of a docker job: `command`, and `customScriptFile` and `arrayFile` when given. */
function commandOf(input: JobBodyInput, parameters: unknown[]): Record<string, unknown> {
  const { command, customScriptFileId, arrayFile } = input;
  if (!given(command)) throw new RunyardValueError('A bash job needs a command (or the name of its custom script).');
  const out: Record<string, unknown> = { command };
  if (given(customScriptFileId)) out.customScriptFile = { dataItem: { kind: 'File', item: customScriptFileId } };
  if (arrayFile) {
    if (!ARRAY_FILE_SEPARATORS.includes(arrayFile.separator)) {
      throw new RunyardValueError(
        `Unknown array-file separator '${arrayFile.separator}'; use one of ${ARRAY_FILE_SEPARATORS.map((s) => `'${s}'`).join(', ')}.`,
      );
    }
    if (!parameters.some((p) => (p as { parameterKind?: unknown }).parameterKind === 'arrayFileColumn')) {
      throw new RunyardValueError('At least one array file column must be added to the parameters');
    }
    out.arrayFile = { dataItem: { kind: 'File', item: arrayFile.fileId }, separator: arrayFile.separator };
  }
  return out;
}

/** Builds the request body of `POST /api/v2/jobs` with the exact keys of the wire reference §2.2. */
export function convertNextflowToJson(input: JobBodyInput): Record<string, unknown> {
  const workflowType = input.workflowType ?? 'nextflow';
  const platform = input.executionPlatform ?? 'aws';
  const isModule = input.isModule ?? false;
  const isDocker = workflowType === 'docker';
  if (!input.projectId) throw new RunyardValueError('A job needs a project id.');
  if (!input.workflowId) throw new RunyardValueError('A job needs a workflow id.');
  if (workflowType === 'wdl' && platform === 'hpc') throw new RunyardValueError('WDL workflows cannot run on the hpc execution platform.');

  const parameters: unknown[] = [...(input.parameters ?? []), ...(input.exampleParameters ?? [])];
  if (workflowType === 'wdl' && !parameters.length) {
    throw new RunyardValueError('No --job-config or --parameter were provided. At least one of these are required for WDL workflows.');
  }
  const instanceDisk = input.instanceDisk ?? 500;
  checkPositiveInteger('instance_disk', instanceDisk);
  const costLimit = input.costLimit ?? 30.0;
  if (!Number.isFinite(costLimit)) throw new RunyardValueError(`cost_limit must be a number, not ${costLimit}.`);
  const instanceType = given(input.instanceType) ? input.instanceType : DEFAULT_INSTANCE_TYPE[platform];
  // Platform modules use their own queues; hpc has no batch settings at all.
  const jobQueueId = given(input.jobQueueId) && !isModule && platform !== 'hpc' ? input.jobQueueId : undefined;
  const batch = input.batch ?? (isDocker ? jobQueueId !== undefined : platform === 'aws');
  const revision = revisionOf(input);
  const command = isDocker ? commandOf(input, parameters) : undefined;

  const body: Record<string, unknown> = {
    parameters,
    project: input.projectId,
    workflow: input.workflowId,
    name: input.jobName ?? 'new_job',
  };
  if (!isDocker) body.nextflowVersion = given(input.nextflowVersion) ? input.nextflowVersion : defaultNextflowVersion(platform, isModule);
  body.resumable = workflowType === 'wdl' ? true : isDocker ? false : (input.resumable ?? false);
  body.usesFusionFileSystem = platform === 'aws' ? (input.useMountpoints ?? false) : false;
  body.accelerateSavingResults = input.accelerateSavingResults ?? false;
  body.saveProcessLogs = platform === 'hpc' ? false : (input.saveLogs ?? true);
  body.executionPlatform = platform;
  body.hpc = given(input.hpcId) ? input.hpcId : null;
  body.storageSizeInGb = instanceDisk;
  body.execution = { computeCostLimit: costLimit, optim: 'test' };
  body.instanceType = instanceType;
  if (platform !== 'hpc') {
    body.masterInstance = { requestedInstance: { type: instanceType } };
    body.batch =
      jobQueueId === undefined ? { enabled: batch } : { dockerLogin: input.dockerLogin ?? false, enabled: batch, jobQueue: jobQueueId };
  }
  if (platform === 'azure' && !isModule) {
    body.azureBatch = {
      vmType: input.azureWorkerInstanceType ?? 'Standard_D4as_v4',
      spot: input.azureWorkerInstanceSpot ?? false,
      diskSizeInGb: input.azureWorkerInstanceDisk ?? 100,
    };
  }
  if (command) {
    Object.assign(body, command);
    const cpus = input.cpus ?? 1;
    const memory = input.memory ?? 4;
    checkPositiveInteger('cpus', cpus);
    checkPositiveInteger('memory', memory);
    body.resourceRequirements = { cpu: cpus, ram: memory };
  }
  if (workflowType === 'wdl') body.cromwellCloudResources = input.cromwellId ?? null;
  if (revision) body.revision = revision;
  if (given(input.nextflowProfile)) body.profile = input.nextflowProfile;
  if (input.parametersFile) body.parametersFile = input.parametersFile;
  return body;
}
