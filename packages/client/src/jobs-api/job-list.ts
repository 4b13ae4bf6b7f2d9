// get_job_list (seed contract §4.1, wire reference §2.1): server-side filters, the paging loop, `last_n_jobs`
// and the client-side queue filter.
import { RunyardValueError } from '../errors.js';
import { getProjectIdFromName } from '../projects.js';
import type { Query, ApiTransport } from '../api-transport.js';
import { getUserInfo, resolveUserId } from '../users.js';
import { getWorkflowContent } from '../workflows.js';
import { findQueueByName, getJobQueues, queueId } from './queues.js';
import { requireWorkspace, type JobDocument, type JobPaginationMetadata } from './types.js';

/** The statuses the public client accepts as `filter_status`. */
// The public client's list, plus Runyard's `scheduled` and `aborting`.
export const JOB_LIST_STATUSES: readonly string[] = [
  'completed',
  'running',
  'failed',
  'aborted',
  'queued',
  'pending',
  'initializing',
  'scheduled',
  'aborting',
];

/** The largest `limit` of `GET /api/v2/jobs`. */
export const MAX_JOB_LIST_PAGE_SIZE = 100;

export interface JobListOptions {
  /** The most recent N jobs, or every job with 'all'; `page` and `pageSize` are then ignored. */
  lastNJobs?: number | 'all';
  /** 1-based page (default 1), used when `lastNJobs` is not given. */
  page?: number;
  /** Jobs per page, 1 to 100 (default 10). */
  pageSize?: number;
  /** true lists only archived jobs; false (default) only the others. */
  archived?: boolean;
  /** One of JOB_LIST_STATUSES (any case). */
  filterStatus?: string;
  /** Part of the job name, case-insensitive (server-side). */
  filterJobName?: string;
  /** A project name, resolved to its id. */
  filterProject?: string;
  /** A workflow name, resolved to its id (`last` picks the newest of duplicates). */
  filterWorkflow?: string;
  filterJobId?: string;
  /** Only the caller's jobs (`users/me`). */
  filterOnlyMine?: boolean;
  /** A username or display name, resolved to a user id. */
  filterOwner?: string;
  /**
   * A queue label or name, resolved to its id through both queue lists; filtered by the client on
   * `batch.jobQueue.id`. Jobs without any queue (non-batch jobs) are kept.
   */
  filterQueue?: string;
  /** With `filterWorkflow`: the most recently imported of duplicated workflows. */
  last?: boolean;
}

export interface JobListResult {
  jobs: JobDocument[];
  paginationMetadata: JobPaginationMetadata | null;
}

function positiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function jobQueueIdOf(job: JobDocument): string | undefined {
  const batch = job.batch as { jobQueue?: unknown } | null | undefined;
  const queue = batch?.jobQueue;
  if (queue === null || queue === undefined || queue === '') return undefined;
  if (typeof queue === 'string') return queue;
  const q = queue as { id?: unknown; _id?: unknown };
  const id = q.id ?? q._id;
  return typeof id === 'string' ? id : undefined;
}

/** Builds the server-side query (resolving names to ids first) in the public client's key order. */
async function buildQuery(t: ApiTransport, workspaceId: string, o: JobListOptions, limit: number): Promise<Query> {
  const query: Query = { teamId: workspaceId, 'archived.status': o.archived ?? false, limit, page: 1 };
  if (o.filterStatus) query.status = o.filterStatus.toLowerCase();
  if (o.filterJobName) query.name = o.filterJobName;
  if (o.filterJobId) query.id = o.filterJobId;
  if (o.filterProject) query['project.id'] = (await getProjectIdFromName(t, workspaceId, o.filterProject))._id;
  if (o.filterWorkflow) query['workflow.id'] = (await getWorkflowContent(t, workspaceId, o.filterWorkflow, { last: o.last ?? false }))._id;
  if (o.filterOnlyMine) {
    const me = await getUserInfo(t);
    const id = me.id ?? me._id;
    if (!id) throw new RunyardValueError('Could not retrieve current user information.');
    query['user.id'] = id;
  }
  if (o.filterOwner) query['user.id'] = await resolveUserId(t, o.filterOwner, workspaceId);
  return query;
}

function checkOptions(o: JobListOptions): void {
  if (o.lastNJobs !== undefined && o.lastNJobs !== 'all' && !positiveInteger(o.lastNJobs)) {
    throw new RunyardValueError(`last_n_jobs must be a positive integer or 'all', not ${JSON.stringify(o.lastNJobs)}.`);
  }
  if (o.page !== undefined && !positiveInteger(o.page))
    throw new RunyardValueError(`page must be a positive integer, not ${JSON.stringify(o.page)}.`);
  if (o.pageSize !== undefined && (!positiveInteger(o.pageSize) || o.pageSize > MAX_JOB_LIST_PAGE_SIZE)) {
    throw new RunyardValueError(`page_size must be an integer from 1 to ${MAX_JOB_LIST_PAGE_SIZE}, not ${JSON.stringify(o.pageSize)}.`);
  }
  if (o.filterStatus && !JOB_LIST_STATUSES.includes(o.filterStatus.toLowerCase())) {
    throw new RunyardValueError(`Invalid filter_status '${o.filterStatus}'. Valid values: ${JOB_LIST_STATUSES.join(', ')}`);
  }
  if (o.filterOnlyMine && o.filterOwner) throw new RunyardValueError('filter_only_mine and filter_owner cannot be used together.');
}

/**
 * get_job_list. `limit` is `pageSize` (default 10) in page mode, `min(100, lastNJobs)` with a number, 100 with
 * 'all'. Pages are fetched from the first (or from `page`) while a page comes back full, stopping as soon as
 * enough jobs are collected: in page mode that is one request. Returns the jobs and the server's pagination
 * metadata (of the last page fetched).
 *
 * With `filterQueue` the jobs are filtered by the client, so pages of 100 are read until enough matching jobs
 * are found (lastNJobs) or all of them (page mode, which then cuts the page out of the matching jobs); the
 * metadata becomes the client's own `{Pagination-Count, Pagination-Page, Pagination-Limit, _client_filtered}`.
 */
export async function getJobList(t: ApiTransport, workspaceId: string, options: JobListOptions = {}): Promise<JobListResult> {
  requireWorkspace(workspaceId);
  checkOptions(options);
  const { lastNJobs, filterQueue } = options;
  const page = options.page ?? 1;
  const pageSize = options.pageSize ?? 10;
  const lastMode = lastNJobs !== undefined;
  let limit = lastMode ? (lastNJobs === 'all' ? MAX_JOB_LIST_PAGE_SIZE : Math.min(MAX_JOB_LIST_PAGE_SIZE, lastNJobs)) : pageSize;
  if (filterQueue && !lastMode) limit = MAX_JOB_LIST_PAGE_SIZE;
  const query = await buildQuery(t, workspaceId, options, limit);

  let keep: (job: JobDocument) => boolean = () => true;
  if (filterQueue) {
    const queue = findQueueByName(await getJobQueues(t, workspaceId), filterQueue);
    if (!queue) throw new RunyardValueError(`Queue with name '${filterQueue}' not found in workspace '${workspaceId}'`);
    const wanted = queueId(queue);
    keep = (job) => {
      const id = jobQueueIdOf(job);
      return id === undefined || id === wanted;
    };
  }

  // How many (kept) jobs are enough; 'all' reads every page.
  const target: number | 'all' = lastMode ? lastNJobs : filterQueue ? 'all' : pageSize;
  let current = lastMode || filterQueue ? 1 : page;
  const jobs: JobDocument[] = [];
  let metadata: JobPaginationMetadata | null = null;
  for (;;) {
    const reply = await t.request<{ jobs?: JobDocument[]; paginationMetadata?: JobPaginationMetadata }>('GET', '/api/v2/jobs', {
      query: { ...query, page: current },
    });
    metadata = reply.paginationMetadata ?? metadata;
    const pageJobs = Array.isArray(reply.jobs) ? reply.jobs : [];
    if (!pageJobs.length) break;
    jobs.push(...pageJobs.filter(keep));
    if (target !== 'all' && jobs.length >= target) break;
    if (pageJobs.length < limit) break;
    current += 1;
  }

  if (!filterQueue) return { jobs: lastMode && lastNJobs !== 'all' ? jobs.slice(0, lastNJobs) : jobs, paginationMetadata: metadata };
  const selected = lastMode ? (lastNJobs === 'all' ? jobs : jobs.slice(0, lastNJobs)) : jobs.slice((page - 1) * pageSize, page * pageSize);
  return {
    jobs: selected,
    paginationMetadata: {
      'Pagination-Count': lastMode ? selected.length : jobs.length,
      'Pagination-Page': lastMode ? 1 : page,
      'Pagination-Limit': lastMode ? limit : pageSize,
      _client_filtered: true,
    },
  };
}
