// clone_or_resume_job (seed contract §2.5, wire reference §2.4): the original request payload with overrides,
// posted as a new job.
import type { Workflow } from '@runyard/contract';
import { RunyardValueError } from '../errors.js';
import { applyCloneOverrides, inferRevision } from '../jobs/clone-overrides.js';
import { getProjectIdFromName } from '../projects.js';
import type { ApiTransport } from '../api-transport.js';
import { getBranches } from '../workflows.js';
import { getFieldFromJobsEndpoint, getJobRequestPayload } from './job-read.js';
import { fixPayloadBooleans } from './payload-booleans.js';
import { findQueueByName, getJobQueues, queueId } from './queues.js';
import { FINISHED_JOB_STATUSES, requireWorkspace, type WarningSink } from './types.js';

export interface CloneOrResumeOptions {
  workspaceId: string;
  sourceJobId: string;
  /** `clone` (default) makes a new job from the same request; `resume` also continues the original's work directory. */
  mode?: 'clone' | 'resume';
  /** Label or name of the queue of the new job. */
  queueName?: string;
  /** Dollars; -1 means no limit. */
  costLimit?: number;
  /** Instance type of the master node. */
  masterInstance?: string;
  jobName?: string;
  /** Only for jobs that have a Nextflow version. */
  nextflowVersion?: string;
  /** A branch of the workflow's repository; checked with getBranches. */
  branch?: string;
  /** Default `github`: the platform used to list the branches. */
  repositoryPlatform?: string;
  profile?: string;
  doNotSaveLogs?: boolean;
  useFusion?: boolean;
  accelerateSavingResults?: boolean;
  /** Clone only. */
  resumable?: boolean;
  /** Run the new job in this project (looked up by name). */
  projectName?: string;
  /** `name=value` overrides: a parameter of that name gets the new value, others are added as text. */
  parameters?: string[];
  onWarning?: WarningSink;
}

function isEmptyRevision(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'object' && Object.keys(value as object).length === 0);
}

/**
 * The revision of a job document as a request revision: its type inferred from whichever of digest, tag,
 * branch or commit is set, and only that one given (a job document carries the resolved commit beside the
 * branch or tag, and a request may name only one). Undefined when none is set.
 */
export function revisionFromJob(revision: Record<string, unknown>): Record<string, unknown> | undefined {
  const type = inferRevision(revision).revisionType as string | undefined;
  if (!type) return undefined;
  if (type === 'digest') return { revisionType: 'digest', digest: revision.digest, tag: revision.tag ?? null };
  return { revisionType: type, tag: null, commit: null, branch: null, [type]: revision[type] };
}

async function checkBranch(t: ApiTransport, ws: string, jobId: string, branch: string, platform: string): Promise<void> {
  const workflow = (await getFieldFromJobsEndpoint(t, jobId, 'workflow', ws)) as Partial<Workflow> | null;
  const repo = workflow?.repository;
  if (!repo) throw new RunyardValueError(`The workflow of job ${jobId} has no repository, so its branch cannot be changed.`);
  const { branches } = await getBranches(t, ws, {
    repositoryIdentifier: repo.repositoryId,
    owner: repo.owner.login,
    workflowOwnerId: workflow?.owner?.id,
    strategy: platform,
  });
  if (!branches.some((b) => b.name === branch)) {
    throw new RunyardValueError(
      `Branch '${branch}' not found in the repository of workflow '${workflow?.name ?? ''}'. Available branches: ${branches.map((b) => b.name).join(', ')}.`,
    );
  }
}

/**
 * clone_or_resume_job: reads the job's request payload; for resume, reads `resumeWorkDir` (which must be set)
 * and checks the job has finished; fills a missing revision from the job document; checks `branch` with
 * getBranches; resolves the queue and project names; applies the overrides (applyCloneOverrides), fixes string
 * booleans and posts the new job. Returns its id.
 */
export async function cloneOrResumeJob(t: ApiTransport, o: CloneOrResumeOptions): Promise<string> {
  const ws = o.workspaceId;
  requireWorkspace(ws);
  if (!o.sourceJobId) throw new RunyardValueError('A source job id is required.');
  const mode = o.mode ?? 'clone';
  if (mode !== 'clone' && mode !== 'resume') throw new RunyardValueError(`mode must be 'clone' or 'resume', not '${String(mode)}'.`);
  const warn: WarningSink = o.onWarning ?? (() => {});
  const id = o.sourceJobId;

  const original = await getJobRequestPayload(t, id, ws);
  let resumeWorkDir: string | undefined;
  if (mode === 'resume') {
    let workDir: unknown;
    try {
      workDir = await getFieldFromJobsEndpoint(t, id, 'resumeWorkDir', ws);
    } catch (e) {
      if (e instanceof RunyardValueError) throw new RunyardValueError('The job was not set as resumable when originally run');
      throw e;
    }
    if (typeof workDir !== 'string' || !workDir) throw new RunyardValueError('The job was not set as resumable when originally run');
    resumeWorkDir = workDir;
    const status = String(await getFieldFromJobsEndpoint(t, id, 'status', ws));
    if (!FINISHED_JOB_STATUSES.includes(status)) {
      throw new RunyardValueError(
        `Job ${id} has status '${status}'; only jobs with status ${FINISHED_JOB_STATUSES.join(', ')} can be resumed.`,
      );
    }
  }

  const source = { ...original };
  if (isEmptyRevision(source.revision)) {
    const revision = await getFieldFromJobsEndpoint(t, id, 'revision', ws);
    const request = revision && typeof revision === 'object' ? revisionFromJob(revision as Record<string, unknown>) : undefined;
    if (request) source.revision = request;
  }
  if (o.branch) await checkBranch(t, ws, id, o.branch, o.repositoryPlatform ?? 'github');

  let jobQueueId: string | undefined;
  if (o.queueName) {
    if (source.executionPlatform === 'azure') warn('Azure does not use job queues; the queue name is ignored.');
    else {
      const queue = findQueueByName(await getJobQueues(t, ws), o.queueName);
      if (!queue) throw new RunyardValueError(`Queue '${o.queueName}' not found in workspace '${ws}'.`);
      jobQueueId = queueId(queue);
    }
  }
  const projectId = o.projectName ? (await getProjectIdFromName(t, ws, o.projectName))._id : undefined;

  const { payload, warnings } = applyCloneOverrides(source, {
    mode,
    resumeWorkDir,
    jobName: o.jobName,
    costLimit: o.costLimit,
    instanceType: o.masterInstance,
    nextflowVersion: o.nextflowVersion,
    branch: o.branch,
    profile: o.profile,
    doNotSaveLogs: o.doNotSaveLogs,
    useFusion: o.useFusion,
    accelerateSavingResults: o.accelerateSavingResults,
    resumable: o.resumable,
    jobQueueId,
    projectId,
    parameters: o.parameters,
  });
  warnings.forEach(warn);
  const reply = await t.request<{ jobId: string }>('POST', '/api/v2/jobs', { query: { teamId: ws }, body: fixPayloadBooleans(payload) });
  return reply.jobId;
}
