// What a job cost (wire reference §2.1 "Costs"): its master instance and workers, in dollars.
import type { JobCostsReply } from '@runyard/contract';
import type { ApiTransport } from '../api-transport.js';
import { jobPath, requireWorkspace } from './types.js';

export interface JobCostsOptions {
  /** Page of the workers, from 1 (default 1). */
  page?: number;
  /** Workers a page (default 20, as cloudos-cli asks). */
  limit?: number;
}

/** get_job_costs: `GET /api/v1/jobs/{id}/costs/compute?page=&limit=&teamId=W`. */
export async function getJobCosts(
  t: ApiTransport,
  jobId: string,
  workspaceId: string,
  options: JobCostsOptions = {},
): Promise<JobCostsReply> {
  requireWorkspace(workspaceId);
  const query = { page: String(options.page ?? 1), limit: String(options.limit ?? 20), teamId: workspaceId };
  return t.request<JobCostsReply>('GET', jobPath(jobId, '/costs/compute'), { query });
}
