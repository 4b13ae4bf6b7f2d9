// get_job_logs (seed contract §4.1, wire reference §2.1): a job's log files and their URLs.
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { containerAndPrefix, findCloud, storageUrl } from './cloud.js';
import { assertStarted, jobOfWorkspace } from './job-access.js';
import { getStorageContents } from './storage-contents.js';
import type { StorageLocation } from './types.js';

/** The names the public client shows for the well-known log files; others keep their own name. */
export const LOG_DISPLAY_NAMES: Readonly<Record<string, string>> = {
  'stdout.txt': 'Nextflow standard output',
  '.nextflow.log': 'Nextflow log',
  'trace.txt': 'Trace file',
};

/**
 * `GET /api/v1/jobs/{J}`, then (Azure only) `GET /api/v1/cloud/azure`, then one listing of the job's
 * `logs` prefix. Every file there, by display name, with its `s3://` or `az://` URL.
 */
export async function getJobLogs(t: ApiTransport, jobId: string, workspaceId: string): Promise<Record<string, string>> {
  const { cloud, container, prefix } = await logsLocation(t, jobId, workspaceId);
  const contents = await getStorageContents(t, cloud.cloudName, cloud.cloudMeta, container, prefix, workspaceId);
  const out: Record<string, string> = {};
  for (const item of contents) {
    if (item.isDir) continue;
    out[LOG_DISPLAY_NAMES[item.name] ?? item.name] = storageUrl(cloud, container, item.path, workspaceId);
  }
  return out;
}

/** Where a started job's logs are. */
async function logsLocation(t: ApiTransport, jobId: string, workspaceId: string) {
  const job = await jobOfWorkspace(t, jobId, workspaceId);
  assertStarted(job, 'Logs');
  if (!('logs' in job) || !job.logs) throw new RunyardValueError('Logs are not available.');
  const logs = job.logs as StorageLocation;
  const cloud = await findCloud(t, workspaceId, logs);
  return { cloud, ...containerAndPrefix(cloud, logs, 'logs') };
}

/** The folder of a job's logs, as a storage URL (`s3://bucket/prefix`, `az://...`): what `job logs --download` fetches. */
export async function getJobLogsFolder(t: ApiTransport, jobId: string, workspaceId: string): Promise<string> {
  const { cloud, container, prefix } = await logsLocation(t, jobId, workspaceId);
  return storageUrl(cloud, container, prefix, workspaceId);
}
