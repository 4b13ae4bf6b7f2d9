// abort_job (wire reference §2.5).
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { requireWorkspace } from './types.js';

/**
 * abort_job: `PUT /api/v2/jobs/{id}/abort?forceAbort=false&teamId=W`, no body. `force` stops the task at once
 * instead of gracefully. A job that already finished is refused by the server (an ApiError with its message).
 */
export async function abortJob(t: ApiTransport, jobId: string, workspaceId: string, force = false): Promise<unknown> {
  if (!jobId) throw new RunyardValueError('A job id is required.');
  requireWorkspace(workspaceId);
  return t.request('PUT', `/api/v2/jobs/${encodeURIComponent(jobId)}/abort`, { query: { forceAbort: force, teamId: workspaceId } });
}
