// archive_jobs, unarchive_jobs and the pre-check check_jobs_archive_status (seed contract §3, wire reference §2.1, §2.5).
import { ApiError, RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { requireWorkspace, type JobDocument } from './types.js';

/** The current UTC time as ISO 8601 with microseconds and a `Z`, as the public client writes `archivalTimestamp`. */
export function archivalTimestamp(now: number = performance.timeOrigin + performance.now()): string {
  const ms = Math.floor(now);
  const micros = Math.min(999, Math.round((now - ms) * 1000));
  const iso = new Date(ms).toISOString(); // 2024-01-01T00:00:00.123Z
  return `${iso.slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
}

function checkIds(jobIds: string[]): string[] {
  if (!Array.isArray(jobIds) || jobIds.length === 0) throw new RunyardValueError('No job IDs provided.');
  for (const id of jobIds) if (typeof id !== 'string' || !id) throw new RunyardValueError(`Invalid job id ${JSON.stringify(id)}.`);
  return [...new Set(jobIds)];
}

async function setArchived(t: ApiTransport, jobIds: string[], workspaceId: string, status: boolean): Promise<unknown> {
  requireWorkspace(workspaceId);
  const ids = checkIds(jobIds);
  return t.request('PUT', '/api/v1/jobs', {
    query: { teamId: workspaceId },
    body: { jobIds: ids, update: { archived: { status, archivalTimestamp: archivalTimestamp() } } },
  });
}

/** archive_jobs: `PUT /api/v1/jobs?teamId=W` with `update.archived.status` true. Duplicate ids are sent once. */
export function archiveJobs(t: ApiTransport, jobIds: string[], workspaceId: string): Promise<unknown> {
  return setArchived(t, jobIds, workspaceId, true);
}

/** unarchive_jobs: the same call with `update.archived.status` false. */
export function unarchiveJobs(t: ApiTransport, jobIds: string[], workspaceId: string): Promise<unknown> {
  return setArchived(t, jobIds, workspaceId, false);
}

export interface ArchiveStatusCheck {
  /** Ids that need the change. */
  validJobs: string[];
  /** Ids already in the target state. */
  alreadyProcessed: string[];
  /** Ids that could not be checked, with the reason. */
  invalidJobs: Record<string, string>;
}

async function probe(t: ApiTransport, workspaceId: string, jobId: string, archived: boolean): Promise<boolean> {
  const r = await t.request<{ jobs?: JobDocument[] }>('GET', '/api/v2/jobs', {
    query: { teamId: workspaceId, 'archived.status': archived, page: 1, limit: 1, id: jobId },
  });
  return Array.isArray(r.jobs) && r.jobs.length > 0;
}

/**
 * check_jobs_archive_status: for each id, `GET /api/v2/jobs?…archived.status=true&page=1&limit=1&id=J`, and when
 * that finds nothing the same with `archived.status=false`; found in neither is "Job not found". The ids are
 * partitioned by whether they are already in `targetArchivedState` (true: archiving, false: unarchiving).
 * With `verbose`, one line per id goes to `log`.
 */
export async function checkJobsArchiveStatus(
  t: ApiTransport,
  jobIds: string[],
  workspaceId: string,
  targetArchivedState: boolean,
  verbose = false,
  log: (message: string) => void = console.log,
): Promise<ArchiveStatusCheck> {
  requireWorkspace(workspaceId);
  const out: ArchiveStatusCheck = { validJobs: [], alreadyProcessed: [], invalidJobs: {} };
  const action = targetArchivedState ? 'archived' : 'unarchived';
  for (const jobId of checkIds(jobIds)) {
    let archived: boolean;
    try {
      if (await probe(t, workspaceId, jobId, true)) archived = true;
      else if (await probe(t, workspaceId, jobId, false)) archived = false;
      else {
        out.invalidJobs[jobId] = 'Job not found';
        if (verbose) log(`Job '${jobId}' was not found in workspace '${workspaceId}'.`);
        continue;
      }
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      out.invalidJobs[jobId] = `Failed to get status for job ${jobId}: ${e.message}`;
      if (verbose) log(out.invalidJobs[jobId]);
      continue;
    }
    if (archived === targetArchivedState) {
      out.alreadyProcessed.push(jobId);
      if (verbose) log(`Job '${jobId}' is already ${action}; no action needed.`);
    } else {
      out.validJobs.push(jobId);
      if (verbose) log(`Job '${jobId}' will be ${action}.`);
    }
  }
  return out;
}
