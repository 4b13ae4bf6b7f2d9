import { isoNow, MODULE_GROUPS, newObjectId, type JobSubmitBody, type JobType } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { checkJobInputs, findInputFile, idOf } from '../staging/input-refs.js';
import { DEFAULT_INSTANCE_TYPE } from '../instance-types/catalogue.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { insertRows, preparedQuery } from '../store/prepared-query.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { planArrayJob } from './job-array.js';
import { listRegistryAccounts } from './docker-registries.js';
import { checkEngineForSubmission } from './engine-servers.js';
import type { BlobStore } from '../storage/blob-store.js';
import { admitJob } from './job-admission.js';
import { cappedNote } from '../instance-types/job-resources.js';
import { lockResumeFolder, registerJobFolders, storageKindOf, type StorageKind } from './job-data.js';
import { placeJob } from './job-placement.js';
import { resolveRevision } from './job-revision.js';
import { nextflowVersionFor } from './nextflow-versions.js';
import { workflowRow } from './workflows.js';

export const DEFAULT_JOB_NAME = 'new_job';
export const DEFAULT_NEXTFLOW_VERSION = '22.10.8';
export const DEFAULT_COST_LIMIT_USD = 30;

function jobTypeOf(workflowType: string, platform: string): JobType {
  if (workflowType === 'docker') return 'dockerAWS';
  if (workflowType === 'wdl') return 'cromwellAWS';
  return platform === 'azure' ? 'nextflowAzure' : platform === 'hpc' ? 'nextflowHpc' : 'nextflowAWS';
}

/**
 * The longest command or parameter value, in bytes (UTF-8): each reaches the task as one environment
 * variable (RUNYARD_COMMAND, RUNYARD_ARG_<i>, RUNYARD_PARAM_<NAME>), which Linux holds to 128 KiB
 * (MAX_ARG_STRLEN), name included. The schema counts characters, and one may be 4 bytes.
 */
export const MAX_TASK_VALUE_BYTES = 128 * 1024 - 1024;

function checkSize(what: string, value: string | undefined): void {
  const bytes = value === undefined ? 0 : Buffer.byteLength(value);
  if (bytes > MAX_TASK_VALUE_BYTES)
    throw new AppError(
      'VALIDATION_FAILED',
      `${what} is ${bytes} bytes (UTF-8), more than the ${MAX_TASK_VALUE_BYTES} a task can be given: put it in a file of the File Explorer and pass that instead.`,
    );
}

/** The shape of text and array-column parameters; the inputs (data items, glob folders, parametersFile) are checked by checkJobInputs. */
function checkParameters(body: JobSubmitBody): void {
  checkSize('command', body.command ?? undefined);
  const names = new Set<string>();
  for (const p of body.parameters ?? []) {
    if (p.parameterKind === 'textValue')
      checkSize(`parameters: ${quoted(p.name)}`, p.textValue === undefined ? undefined : String(p.textValue));
    if (p.parameterKind === 'textValue' && p.textValue === undefined)
      throw new AppError('VALIDATION_FAILED', `parameters: ${quoted(p.name)} has no textValue.`);
    if (p.parameterKind === 'arrayFileColumn' && (p.columnName === undefined || p.columnIndex === undefined)) {
      throw new AppError('VALIDATION_FAILED', `parameters: array column ${quoted(p.name)} needs columnName and columnIndex.`);
    }
    if (p.parameterKind === 'arrayFileColumn' && !body.arrayFile)
      throw new AppError('VALIDATION_FAILED', `parameters: ${quoted(p.name)} is an array column but the job has no arrayFile.`);
    const key = `${p.prefix ?? ''}${p.name}`;
    if (p.parameterKind === 'textValue' && names.has(key))
      throw new AppError('VALIDATION_FAILED', `parameters: ${quoted(p.name)} is given twice.`);
    names.add(key);
  }
}

/** arrayFile and customScriptFile are for bash jobs (container workflows). */
function checkBashExtras(body: JobSubmitBody, workflow: { workflow_type: string; name: string }): void {
  const what = body.arrayFile ? 'arrayFile' : 'customScriptFile';
  if (workflow.workflow_type !== 'docker')
    throw new AppError(
      'VALIDATION_FAILED',
      `${what} is for bash jobs (container workflows); ${quoted(workflow.name)} is ${workflow.workflow_type}.`,
    );
}

/** The script a bash job's command names must be a file of the workspace. */
async function checkScriptFile(
  db: Kysely<Database>,
  workspaceId: string,
  ref: NonNullable<JobSubmitBody['customScriptFile']>,
): Promise<void> {
  const id = idOf(ref.dataItem.item);
  if (!id || ref.dataItem.kind !== 'File')
    throw new AppError('VALIDATION_FAILED', 'customScriptFile needs dataItem {"kind": "File", "item": <file id>}.');
  if (!(await findInputFile(db, workspaceId, id)))
    throw new AppError('FILE_NOT_FOUND', `customScriptFile: file ${quoted(id)} not found in this workspace.`);
}

const projectOfWorkspace = preparedQuery((db, p: { id: string; workspaceId: string }) =>
  db.selectFrom('projects').select(['id']).where('id', '=', p.id).where('workspace_id', '=', p.workspaceId),
);
const countJobOfProject = preparedQuery((db, p: { id: string }) =>
  db
    .updateTable('projects')
    .set((eb) => ({ job_count: eb('job_count', '+', 1) }))
    .where('id', '=', p.id),
);

/**
 * Validates a submission, resolves project, workflow, queue and revision, and commits the job as
 * `queued` before answering: an acknowledged job is durable. Nothing is written on a 4xx.
 */
export async function submitJob(
  db: Kysely<Database>,
  config: Config,
  ctx: Context,
  body: JobSubmitBody,
  blobs: BlobStore,
  storage: StorageKind = storageKindOf(config),
): Promise<{ jobId: string }> {
  const project = await projectOfWorkspace.executeTakeFirst(db, { id: body.project, workspaceId: ctx.workspaceId });
  if (!project) throw new AppError('PROJECT_NOT_FOUND', `Project ${body.project} not found in this workspace.`);
  const workflow = await workflowRow(db, ctx.workspaceId, body.workflow);
  if (workflow.archived) throw new AppError('VALIDATION_FAILED', `Workflow ${quoted(workflow.name)} is archived; unarchive it to run it.`);
  const workflowType = workflow.workflow_type;
  if (workflowType === 'docker' && !body.command)
    throw new AppError('VALIDATION_FAILED', 'command is required for bash jobs on a container workflow.');
  if (workflowType !== 'docker' && body.command)
    throw new AppError('VALIDATION_FAILED', `command is only for container workflows; ${quoted(workflow.name)} is ${workflowType}.`);
  checkParameters(body);
  // The public client's resume copies the job's resumeWorkDir, null for one that was not launched resumable.
  if (body.resumeWorkDir === null)
    throw new AppError(
      'VALIDATION_FAILED',
      'Resume is allowed only for jobs launched resumable: resumeWorkDir is null, so the job this resumes was not (a bash job never is).',
    );
  // A WDL job needs the workspace's engine server started (409 while it is stopped), and names it, if at all, by its _id.
  if (workflowType === 'wdl') await checkEngineForSubmission(db, config, ctx.workspaceId, body.cromwellCloudResources);
  // Files and folders a job takes as inputs must be its workspace's (404 naming the parameter otherwise).
  await checkJobInputs(db, storage, ctx.workspaceId, body);
  const isModule = (MODULE_GROUPS as readonly string[]).includes(workflow.group_name);
  const placement = await placeJob(db, ctx.workspaceId, body, workflowType === 'wdl' ? 'cromwell' : 'nextflow', isModule);
  // With a container runtime, a container job runs the runtime's CLI, outside the sandbox, which a cluster's node does not
  // have for it; without one its image runs in the sandbox on every executor (scheduler/image-pull.ts), Slurm's too.
  if (placement.hpcId && workflowType === 'docker' && config.containerRuntime && workflow.container_name) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Workflow ${quoted(workflow.name)} runs in the container image ${quoted(workflow.container_name)}, and container jobs ` +
        `do not run on HPC clusters yet through a container runtime (RUNYARD_CONTAINER_RUNTIME=${config.containerRuntime}): ` +
        'run it on a local queue (executionPlatform aws or azure). Without a runtime, images run on HPC clusters in the sandbox.',
    );
  }
  if (body.arrayFile || body.customScriptFile) checkBashExtras(body, workflow);
  if (body.customScriptFile) await checkScriptFile(db, ctx.workspaceId, body.customScriptFile);
  // A platform module pulls its own images: dockerLogin is not for it (the public client drops it too).
  const dockerLogin = body.batch?.dockerLogin === true && !(MODULE_GROUPS as readonly string[]).includes(workflow.group_name);
  if (dockerLogin && !(await listRegistryAccounts(db, ctx.user.id)).length)
    throw new AppError(
      'VALIDATION_FAILED',
      'batch.dockerLogin needs a docker registry account linked to your user, and none is: runyard user docker-login --registry R --username U.',
    );
  const platform = body.executionPlatform ?? 'aws';
  const sizing = {
    workflow_type: workflowType,
    resource_cpu: body.resourceRequirements?.cpu ?? 1,
    resource_ram: body.resourceRequirements?.ram ?? 4,
    // The master instance wins: a clone overrides only it and keeps the parent's instanceType.
    instance_type: body.masterInstance?.requestedInstance?.type ?? body.instanceType ?? (platform === 'hpc' ? null : DEFAULT_INSTANCE_TYPE),
  };
  // 400 for an unknown instance type, or a job larger than its executor could ever run.
  const perTask = admitJob(config, placement.backend, sizing);
  // An array job holds what its tasks running at once need.
  const array = await planArrayJob(db, blobs, config, ctx.workspaceId, body, placement, perTask);
  const resources = array?.resources ?? perTask;
  const revision = await resolveRevision(config, workflow, body.revision);
  // Nextflow: 400 for a version that is not installed (unless downloads are allowed); the stored one is the one used.
  const nextflowVersion =
    workflowType === 'nextflow'
      ? nextflowVersionFor(config, body.nextflowVersion, DEFAULT_NEXTFLOW_VERSION)
      : workflowType === 'docker'
        ? null
        : (body.nextflowVersion ?? DEFAULT_NEXTFLOW_VERSION);
  const now = isoNow();
  const id = newObjectId();
  const name = body.name ?? DEFAULT_JOB_NAME;
  await db.transaction().execute(async (tx) => {
    // A resumed job runs in the work directory of the job it resumes; the folder must not be going away.
    const resumeFrom = body.resumeWorkDir ? await lockResumeFolder(tx, ctx, body.resumeWorkDir) : undefined;
    const queueId = await placement.queueId(tx);
    const folders = await registerJobFolders(
      tx,
      storage,
      { id, name, workspaceId: ctx.workspaceId, projectId: project.id, userId: ctx.user.id },
      resumeFrom,
    );
    await insertRows(tx, 'jobs', [
      {
        id,
        workspace_id: ctx.workspaceId,
        project_id: project.id,
        workflow_id: workflow.id,
        user_id: ctx.user.id,
        queue_id: queueId,
        name,
        status: 'queued',
        job_type: jobTypeOf(workflowType, platform),
        workflow_type: workflowType,
        execution_platform: platform,
        request_json: JSON.stringify(body),
        parameters_json: JSON.stringify(body.parameters ?? []),
        revision_json: JSON.stringify(revision),
        profile: body.profile ?? null,
        nextflow_version: nextflowVersion,
        command: body.command ?? null,
        resource_cpu: sizing.resource_cpu,
        resource_ram: sizing.resource_ram,
        instance_type: sizing.instance_type,
        cpus: resources.cpus,
        memory_gib: resources.memoryGiB,
        resources_note: cappedNote(config, { ...sizing, backend: placement.backend }),
        storage_size_gb: body.storageSizeInGb ?? 500,
        cost_limit: body.execution?.computeCostLimit ?? DEFAULT_COST_LIMIT_USD,
        resumable: body.resumable || workflowType === 'wdl' ? 1 : 0,
        save_process_logs: body.saveProcessLogs === false ? 0 : 1,
        batch_enabled: body.batch?.enabled ? 1 : 0,
        archived_at: null,
        lease_owner: null,
        lease_expires_at: null,
        external_id: null,
        exit_code: null,
        status_message: null,
        resume_work_dir: body.resumeWorkDir ?? null,
        created_at: now,
        updated_at: now,
        start_time: null,
        end_time: null,
        hpc_id: placement.hpcId,
        docker_login: dockerLogin ? 1 : 0,
        array_size: array?.size ?? null,
        array_limit: array?.limit ?? null,
        ...folders,
      },
    ]);
    await countJobOfProject.run(tx, { id: project.id });
  });
  return { jobId: id };
}
