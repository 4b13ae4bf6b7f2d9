// delete_job_results (seed contract §4.1, wire reference §2.5): schedule the deletion of a job's
// results or work directory.
import { apiErrorFor, ApiError, RunyardValueError } from '../errors.js';
import { jobPath } from '../jobs-api/types.js';
import type { ApiTransport } from '../api-transport.js';

export type JobDataMode = 'analysisResults' | 'workDirectory';
export const JOB_DATA_MODES: readonly JobDataMode[] = ['analysisResults', 'workDirectory'];

export interface JobDataDeletion {
  message: string;
  status?: string;
  [key: string]: unknown;
}

/** The public client's message for each refusal; the server's own message follows it. */
function refusal(status: number, mode: JobDataMode, jobId: string): string | undefined {
  switch (status) {
    case 400:
      return `Operation not permitted. Your workspace does not have the option to delete ${mode === 'analysisResults' ? 'results' : 'intermediate'} folders enabled. Please consult with the organisation owner to enable this feature.`;
    case 401:
      return 'Unauthorized. Invalid or missing API key.';
    case 403:
      return "Forbidden. You don't have permission to delete this folder.";
    case 404:
      return `Job with ID '${jobId}' not found or data does not exist.`;
    case 409:
      return 'Conflict. The folder cannot be deleted due to a conflict (e.g., folder is not empty or has dependencies).';
    case 500:
      return 'Internal server error. The server encountered an error while processing the deletion request.';
    default:
      return undefined;
  }
}

/**
 * `DELETE /api/v1/jobs/{J}/data?properties[]=<mode>&teamId=W`. 204 gives
 * `{message: "Results deleted successfully", status: "deleted"}` (the folder is then scheduled for
 * deletion; its status moves on to `deleted`). A refusal is an ApiError of its status (401
 * AuthenticationError, 403 ForbiddenError, 404 NotFoundError, 409 ConflictError) whose message is
 * the public client's for that status (for 404 the server's own) followed by the server's.
 */
export async function deleteJobResults(t: ApiTransport, jobId: string, mode: JobDataMode, workspaceId: string): Promise<JobDataDeletion> {
  if (!JOB_DATA_MODES.includes(mode)) {
    throw new RunyardValueError(`Invalid mode '${String(mode)}'. Supported modes are 'analysisResults' and 'workDirectory'.`);
  }
  if (!workspaceId) throw new RunyardValueError('Invalid workspace_id: must be a non-empty string');
  const path = jobPath(jobId, '/data');
  const res = await t.raw('DELETE', path, { query: { 'properties[]': mode, teamId: workspaceId } });
  if (res.status === 204) return { message: 'Results deleted successfully', status: 'deleted' };
  if (res.status >= 400) {
    const body = res.body as { message?: unknown; code?: unknown } | undefined;
    const serverMessage = typeof body?.message === 'string' ? body.message : '';
    const pinned = refusal(res.status, mode, jobId);
    const message =
      res.status === 404 && serverMessage ? serverMessage : [pinned, serverMessage].filter(Boolean).join(' ') || `HTTP ${res.status}`;
    const code = typeof body?.code === 'string' ? body.code : undefined;
    throw pinned ? apiErrorFor(res.status, code, message, 'DELETE', path) : new ApiError(res.status, code, message, 'DELETE', path);
  }
  if (res.body && typeof res.body === 'object') return res.body as JobDataDeletion;
  return { message: `'${mode}' deleted successfully` };
}
