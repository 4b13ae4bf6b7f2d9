// Shapes the job operations read from the server (wire reference §2.1). A job document carries many more
// keys than these; only the ones the SDK relies on are named.
import { RunyardValueError } from '../errors.js';

/** A job document of `GET /api/v1/jobs/{id}` or of a `GET /api/v2/jobs` page. */
export interface JobDocument {
  _id: string;
  name: string;
  status: string;
  [key: string]: unknown;
}

/** `paginationMetadata` of `GET /api/v2/jobs`, or the client's own when it filtered the jobs itself. */
export interface JobPaginationMetadata {
  'Pagination-Count': number;
  'Pagination-Page': number;
  'Pagination-Limit': number;
  /** Set when the client filtered the jobs itself (queue filter); the counts are then the client's. */
  _client_filtered?: true;
  [key: string]: unknown;
}

/** The statuses after which a job never changes (wait_job_completion, resume). */
export const FINISHED_JOB_STATUSES: readonly string[] = ['completed', 'failed', 'aborted'];

/** Receives a note for the user: a replaced value, an ignored option. */
export type WarningSink = (message: string) => void;

/** `/api/v1/jobs/{id}` plus `suffix`; an empty id is a RunyardValueError. */
export function jobPath(jobId: string, suffix = ''): string {
  if (!jobId) throw new RunyardValueError('A job id is required.');
  return `/api/v1/jobs/${encodeURIComponent(jobId)}${suffix}`;
}

export function requireWorkspace(workspaceId: string): void {
  if (!workspaceId || typeof workspaceId !== 'string') throw new RunyardValueError('Invalid workspace_id: must be a non-empty string');
}
