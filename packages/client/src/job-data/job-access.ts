// The checks every job-data operation makes on the job document first (wire reference §2.1).
import { RunyardValueError } from '../errors.js';
import { getJobStatus } from '../jobs-api/job-read.js';
import { requireWorkspace, type JobDocument } from '../jobs-api/types.js';
import type { ApiTransport } from '../api-transport.js';

/** Statuses in which a job has written nothing yet (the public client's two, and Runyard's `queued`). */
const NOT_STARTED = ['queued', 'initializing', 'scheduled'];

/** The job document of a job of this workspace; another workspace's job is a RunyardValueError. */
export async function jobOfWorkspace(t: ApiTransport, jobId: string, workspaceId: string): Promise<JobDocument> {
  requireWorkspace(workspaceId);
  const job = await getJobStatus(t, jobId, workspaceId);
  assertSameWorkspace(job, workspaceId);
  return job;
}

export function assertSameWorkspace(job: JobDocument, workspaceId: string): void {
  if (job.team !== workspaceId) {
    throw new RunyardValueError('Workspace provided or configured is different from workspace where the job was executed');
  }
}

/** A RunyardValueError `<what> are not yet available. The job is still initializing.` before the job has started. */
export function assertStarted(job: JobDocument, what: string): void {
  if (NOT_STARTED.includes(job.status)) throw new RunyardValueError(`${what} are not yet available. The job is still initializing.`);
}
