// get_job_results (seed contract §4.1, wire reference §2.1): where a completed job's results are.
import { RunyardValueError } from '../errors.js';
import { getJobStatus } from '../jobs-api/job-read.js';
import { requireWorkspace } from '../jobs-api/types.js';
import type { ApiTransport } from '../api-transport.js';
import { containerAndPrefix, findCloud, storageUrl } from './cloud.js';
import { JobNotCompletedError, NoResultDirectoriesError } from './errors.js';
import { assertFolderAvailable, jobFolderStatus } from './folder-status.js';
import { assertSameWorkspace } from './job-access.js';
import { getStorageContents } from './storage-contents.js';
import type { JobFolderRef, StorageLocation } from './types.js';

/**
 * As the public client does it: the job is read twice (its status, then the document); a job not
 * `completed` is a JobNotCompletedError. When the job names its results folder
 * (`analysisResults.folderId`), its deletion status is read (`GET /api/v1/folders/?…status×5`) and
 * any status but `ready` is a RunyardValueError saying what became of the results. Then
 * (Azure only) `GET /api/v1/cloud/azure` and one listing of the `results` prefix: the URL of the
 * first directory named `results` there, else of the first directory; none is a NoResultDirectoriesError.
 */
export async function getJobResults(t: ApiTransport, jobId: string, workspaceId: string): Promise<string> {
  const { cloud, container, prefix } = await completedResults(t, jobId, workspaceId);
  const contents = await getStorageContents(t, cloud.cloudName, cloud.cloudMeta, container, prefix, workspaceId);
  const dir = contents.find((i) => i.isDir && i.name === 'results') ?? contents.find((i) => i.isDir);
  if (!dir) throw new NoResultDirectoriesError();
  return storageUrl(cloud, container, dir.path, workspaceId);
}

/**
 * The whole results folder of a completed job as a storage URL (what `job results --download`
 * copies), after the same checks as getJobResults: completed, its results folder not deleted.
 */
export async function getJobResultsFolder(t: ApiTransport, jobId: string, workspaceId: string): Promise<string> {
  const { cloud, container, prefix } = await completedResults(t, jobId, workspaceId);
  return storageUrl(cloud, container, prefix, workspaceId);
}

/** The checks of get_job_results, and where the results are. */
async function completedResults(t: ApiTransport, jobId: string, workspaceId: string) {
  requireWorkspace(workspaceId);
  const { status } = await getJobStatus(t, jobId, workspaceId);
  if (status !== 'completed') throw new JobNotCompletedError(jobId, status);
  const job = await getJobStatus(t, jobId, workspaceId);
  assertSameWorkspace(job, workspaceId);
  const ref = job.analysisResults as JobFolderRef | null | undefined;
  if (ref && ref.folderId) assertFolderAvailable('results', await jobFolderStatus(t, ref, workspaceId));
  const results = job.results as StorageLocation | undefined;
  if (!results || typeof results !== 'object') throw new RunyardValueError('Results are not available.');
  const cloud = await findCloud(t, workspaceId, (job.logs as StorageLocation | undefined) ?? results);
  return { cloud, ...containerAndPrefix(cloud, results, 'results') };
}
