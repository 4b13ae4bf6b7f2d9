// Job queues (wire reference §2.10): listing and the choice of a job's queue.
import type { JobQueue } from '@runyard/contract';
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { requireWorkspace, type WarningSink } from './types.js';

export interface JobQueueListOptions {
  /** Leave out the queues of platform modules (one call instead of two). */
  excludeSystemQueues?: boolean;
}

/** get_job_queues: the workspace's queues, then (unless excluded) the system queues. */
export async function getJobQueues(t: ApiTransport, workspaceId: string, options: JobQueueListOptions = {}): Promise<JobQueue[]> {
  requireWorkspace(workspaceId);
  const query = { teamId: workspaceId };
  const queues = await t.request<JobQueue[]>('GET', '/api/v1/teams/aws/v2/job-queues', { query });
  if (options.excludeSystemQueues) return queues;
  return [...queues, ...(await t.request<JobQueue[]>('GET', '/api/v1/teams/aws/v2/system-job-queues', { query }))];
}

/** The id of a queue (`id`, or `_id` on older servers). */
export function queueId(queue: Pick<JobQueue, 'id' | '_id'>): string {
  return queue.id ?? queue._id;
}

/** The queue whose label or name is `name` (the queue filter and clone's `--job-queue`); undefined when none. */
export function findQueueByName(queues: JobQueue[], name: string): JobQueue | undefined {
  return queues.find((q) => q.label === name || q.name === name);
}

export interface FetchJobQueueIdOptions {
  /** `nextflow`, or `cromwell` (`wdl` is taken as `cromwell`); bash jobs pass `nextflow`. */
  workflowType: string;
  /** false: no queue at all, and no call is made. Default true. */
  batch?: boolean;
  /** The label of the queue wanted; the default queue when none matches. */
  jobQueue?: string | null;
  onWarning?: WarningSink;
}

/**
 * fetch_job_queue_id: the id of the queue a batch job goes to. The candidates are the ready queues of the
 * workflow's executor; the default is the first candidate marked default, otherwise the last candidate.
 * `jobQueue` is matched on the label; without a match the default is used and a warning says so.
 * Returns null when `batch` is false.
 */
export async function fetchJobQueueId(t: ApiTransport, workspaceId: string, options: FetchJobQueueIdOptions): Promise<string | null> {
  const { batch = true, jobQueue, onWarning } = options;
  if (!batch) return null;
  const executor = options.workflowType === 'wdl' ? 'cromwell' : options.workflowType;
  if (executor !== 'nextflow' && executor !== 'cromwell') {
    throw new RunyardValueError(`Job queues are for nextflow and cromwell (wdl) workflows, not '${options.workflowType}'.`);
  }
  const candidates = (await getJobQueues(t, workspaceId)).filter((q) => q.status === 'Ready' && q.executor === executor);
  if (!candidates.length) {
    throw new RunyardValueError(`No ready ${executor} job queue found in workspace '${workspaceId}'.`);
  }
  const fallback = candidates.find((q) => q.isDefault) ?? candidates[candidates.length - 1];
  if (!jobQueue) return queueId(fallback);
  const chosen = candidates.find((q) => q.label === jobQueue);
  if (chosen) return queueId(chosen);
  onWarning?.(
    `Queue '${jobQueue}' you specified was not found, using the default queue '${fallback.label}' instead. ` +
      `Available ${executor} queues: ${candidates.map((q) => q.label).join(', ')}.`,
  );
  return queueId(fallback);
}
