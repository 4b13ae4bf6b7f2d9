// Reading one job: its document, one field of it, and the body it was submitted with (wire reference §2.1).
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { jobPath, requireWorkspace, type JobDocument } from './types.js';

/**
 * get_job_status: the job document, `GET /api/v1/jobs/{id}?teamId=W`. Without a workspace the query carries
 * the literal `None`, as the public client sends it; the server then looks in every workspace of the caller.
 */
export async function getJobStatus(t: ApiTransport, jobId: string, workspaceId?: string | null): Promise<JobDocument> {
  return t.request<JobDocument>('GET', jobPath(jobId), { query: { teamId: workspaceId || 'None' } });
}

/** get_field_from_jobs_endpoint: one top-level key of the job document; a missing key is a RunyardValueError. */
export async function getFieldFromJobsEndpoint(t: ApiTransport, jobId: string, field: string, workspaceId: string): Promise<unknown> {
  requireWorkspace(workspaceId);
  const doc = await getJobStatus(t, jobId, workspaceId);
  if (!Object.prototype.hasOwnProperty.call(doc, field)) throw new RunyardValueError(`Field '${field}' not found in endpoint 'jobs'.`);
  return doc[field];
}

/** get_job_request_payload: the body the job was submitted with, plus `_id` and `resourceId`. */
export async function getJobRequestPayload(t: ApiTransport, jobId: string, workspaceId: string): Promise<Record<string, unknown>> {
  requireWorkspace(workspaceId);
  return t.request<Record<string, unknown>>('GET', jobPath(jobId, '/request-payload'), { query: { teamId: workspaceId } });
}
