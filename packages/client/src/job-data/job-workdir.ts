// get_job_workdir (seed contract §4.1, wire reference §2.1): a job's working directory, with the
// public client's fallbacks.
import { RunyardValueError } from '../errors.js';
import type { WarningSink } from '../jobs-api/types.js';
import type { ApiTransport } from '../api-transport.js';
import { azureHost, containerAndPrefix, findCloud } from './cloud.js';
import { assertFolderAvailable, jobFolderStatus } from './folder-status.js';
import { assertStarted, jobOfWorkspace } from './job-access.js';
import type { FolderRecord, JobFolderRef, StorageLocation } from './types.js';

export interface WorkdirOptions {
  /** Receives the warning when the folder lookup fails and the logs-based path is used instead. */
  warn?: WarningSink;
}

/** `GET /api/v1/folders?id=F&teamId=W` (no trailing slash): the folder's URL. */
async function folderUrl(t: ApiTransport, folderId: string, workspaceId: string): Promise<string> {
  const reply = await t.request<FolderRecord[]>('GET', '/api/v1/folders', { query: { id: folderId, teamId: workspaceId } });
  if (!Array.isArray(reply) || reply.length === 0) throw new RunyardValueError(`Folder ${folderId} was not found.`);
  if (reply.length > 1) throw new RunyardValueError(`Request returned more than one result for folder id ${folderId}`);
  const f = reply[0];
  if (f.folderType === 'S3Folder') return `s3://${f.s3BucketName}/${f.s3Prefix}`;
  if (f.folderType === 'AzureBlobFolder') {
    return `az://${azureHost(f.blobStorageAccountName || workspaceId)}/${f.blobContainerName}/${f.blobPrefix}`;
  }
  throw new RunyardValueError('Unsupported cloud provider');
}

/**
 * 1. `GET /api/v1/jobs/{J}`: same workspace, started, and the `resumeWorkDir` key present.
 * 2. Without `resumeWorkDir` but with `workDirectory.folderId`: the folder's deletion status
 *    (`GET /api/v1/folders/?…status×5`); `ready` uses that folder, a deletion status is a
 *    RunyardValueError saying so, no status goes on to step 4.
 * 3. With a folder: `GET /api/v1/folders?id=F&teamId=W` gives `s3://bucket/prefix` or
 *    `az://<account>.blob.core.windows.net/container/prefix`; if that fails, a warning and step 4.
 * 4. With `logs`: the logs prefix with `/logs` replaced by `/work` (Azure: after `GET /api/v1/cloud/azure`).
 * 5. Without `logs`: the folder lookup of step 3 again, its failure not caught.
 */
export async function getJobWorkdir(t: ApiTransport, jobId: string, workspaceId: string, options: WorkdirOptions = {}): Promise<string> {
  const job = await jobOfWorkspace(t, jobId, workspaceId);
  assertStarted(job, 'Working directories');
  if (!('resumeWorkDir' in job)) {
    throw new RunyardValueError(
      'Working directories are not available. This may be because the analysis was run without resumable mode enabled, or because intermediate results have since been removed.',
    );
  }
  let folderId = (job.resumeWorkDir as string | null | undefined) ?? null;
  const workDirectory = job.workDirectory as JobFolderRef | null | undefined;
  if (!folderId && workDirectory && workDirectory.folderId) {
    const status = await jobFolderStatus(t, workDirectory, workspaceId);
    assertFolderAvailable('workdir', status);
    if (status === 'ready') folderId = workDirectory.folderId;
  }
  if (folderId) {
    try {
      return await folderUrl(t, folderId, workspaceId);
    } catch (e) {
      options.warn?.(`Warning: Could not get shared workdir from folders API: ${(e as Error).message}`);
    }
  }
  if ('logs' in job && job.logs) {
    const logs = job.logs as StorageLocation;
    const cloud = await findCloud(t, workspaceId, logs);
    const { container, prefix } = containerAndPrefix(cloud, logs, 'logs');
    const work = prefix.replaceAll('/logs', '/work');
    if (cloud.keys.scheme === 's3') return `s3://${container}/${work}`;
    const account = cloud.cloudMeta.storage?.storageAccount;
    return account ? `az://${azureHost(account)}/${container}/${work}` : `/${container}/${work}`;
  }
  return folderUrl(t, String(job.resumeWorkDir), workspaceId);
}
