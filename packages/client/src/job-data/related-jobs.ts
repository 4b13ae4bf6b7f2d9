// get_parent_job and the jobs related by a working directory (seed contract §4.1, wire reference §2.1).
import { ApiError, RunyardValueError } from '../errors.js';
import type { JobDocument } from '../jobs-api/types.js';
import type { ApiTransport } from '../api-transport.js';
import type { FolderRecord } from './types.js';

/** One job sharing a working directory, as `getRelatedJobs` gives it. */
export interface RelatedJob {
  _id: string;
  status: string | undefined;
  name: string | undefined;
  user_name: string | undefined;
  user_surname: string | undefined;
  createdAt: string | undefined;
  /** Seconds from start to end; null while either is missing. */
  runTime: number | null;
  /** In cents, as in job documents. */
  computeCostSpent: number | null | undefined;
}

/** The job that made a folder, as get_parent_job gives it. */
export interface ParentJob {
  id: string;
  /** From the job's document; absent when it cannot be read (another workspace's job). */
  name?: string;
  status?: string;
  jobType?: string;
  createdAt?: string;
  user?: { name?: string; surname?: string; email?: string };
}

/**
 * get_parent_job: `GET /api/v1/folders/?id=F&status=ready&teamId=W` for the id of the job that made
 * the folder (`[0].parent.id`), then `GET /api/v1/jobs/{id}` for its details. Null when the folder
 * names no job.
 */
export async function getParentJob(t: ApiTransport, workspaceId: string, folderId: string): Promise<ParentJob | null> {
  if (!folderId) throw new RunyardValueError('A folder id is required.');
  const reply = await t.request<FolderRecord[]>('GET', '/api/v1/folders/', {
    query: { id: folderId, status: 'ready', teamId: workspaceId },
  });
  const first = Array.isArray(reply) ? reply[0] : undefined;
  const id = (first?.parent as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' || !id) return null;
  let job: JobDocument;
  try {
    job = await t.request<JobDocument>('GET', `/api/v1/jobs/${encodeURIComponent(id)}`, { query: { teamId: workspaceId } });
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return { id };
    throw e;
  }
  const user = job.user as ParentJob['user'] | undefined;
  return {
    id,
    name: job.name,
    status: job.status,
    ...(typeof job.jobType === 'string' && { jobType: job.jobType }),
    ...(typeof job.createdAt === 'string' && { createdAt: job.createdAt }),
    ...(user && { user: { name: user.name, surname: user.surname, email: user.email } }),
  };
}

function runTimeOf(start: unknown, end: unknown): number | null {
  if (typeof start !== 'string' || typeof end !== 'string' || !start || !end) return null;
  const ms = Date.parse(end) - Date.parse(start);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/**
 * Every job (not archived) whose working directory is the folder: `GET /api/v2/jobs?limit=&page=&sort=-createdAt&archived.status=false&workDirectory.folderId=F&teamId=W`,
 * page after page until one is short or empty. A map from job id to its summary.
 */
export async function getRelatedJobs(
  t: ApiTransport,
  workspaceId: string,
  workdirFolderId: string,
  limit = 100,
): Promise<Record<string, RelatedJob>> {
  if (!workdirFolderId) throw new RunyardValueError('A working directory folder id is required.');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new RunyardValueError(`limit must be an integer from 1 to 100, not ${limit}.`);
  const jobs: JobDocument[] = [];
  for (let page = 1; ; page++) {
    const reply = await t.request<{ jobs?: JobDocument[] }>('GET', '/api/v2/jobs', {
      query: {
        limit,
        page,
        sort: '-createdAt',
        'archived.status': 'false',
        'workDirectory.folderId': workdirFolderId,
        teamId: workspaceId,
      },
    });
    const batch = reply?.jobs ?? [];
    if (!batch.length) break;
    jobs.push(...batch);
    if (batch.length < limit) break;
  }
  const out: Record<string, RelatedJob> = {};
  for (const job of jobs) {
    if (!job._id) continue;
    const user = (job.user ?? {}) as { name?: string; surname?: string };
    out[job._id] = {
      _id: job._id,
      status: job.status,
      name: job.name,
      user_name: user.name,
      user_surname: user.surname,
      createdAt: job.createdAt as string | undefined,
      runTime: runTimeOf(job.startTime, job.endTime),
      computeCostSpent: job.computeCostSpent as number | null | undefined,
    };
  }
  return out;
}
