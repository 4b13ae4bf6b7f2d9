// get_results_deletion_status and get_workdir_deletion_status (seed contract §2.7, wire reference §2.1).
import { FileExplorer } from '../datasets/file-explorer.js';
import { RunyardValueError } from '../errors.js';
import { getJobStatus } from '../jobs-api/job-read.js';
import { requireWorkspace } from '../jobs-api/types.js';
import type { ApiTransport } from '../api-transport.js';
import { getFolderDeletionStatus, getFolderItemsDeletionStatus } from './folder-status.js';
import type { JobFolderRef } from './types.js';

/** A folder or file with its status, as the server lists it (with `deletedBy` merged in from the job). */
export type StatusItem = Record<string, unknown> & { _id?: string; name?: string; status?: string };

export interface ResultsDeletionStatus {
  job_id: string;
  job_name: string;
  results_folder_id: string | undefined;
  results_folder_name: string | undefined;
  status: string | undefined;
  items: StatusItem;
}

export interface WorkdirDeletionStatus {
  job_id: string;
  job_name: string;
  workdir_folder_id: string | undefined;
  workdir_folder_name: string | undefined;
  status: string | undefined;
  items: StatusItem;
}

/**
 * The job (`GET /api/v1/jobs/{J}`), its project's File Explorer (the projects search, then
 * `GET /api/v2/datasets`), the items of `Analyses Results` with their status
 * (`GET /api/v1/datasets/{id}/items?status…×5`), and there the folder or file whose name holds the
 * job id. Who deleted it comes from the job's `analysisResults.deletedBy`.
 */
export async function getResultsDeletionStatus(t: ApiTransport, jobId: string, workspaceId: string): Promise<ResultsDeletionStatus> {
  requireWorkspace(workspaceId);
  const job = await getJobStatus(t, jobId, workspaceId);
  const jobName = job.name ?? jobId;
  const deletedBy = (job.analysisResults as JobFolderRef | null | undefined)?.deletedBy;
  const project = job.project as { _id?: string; name?: string } | null | undefined;
  if (!project) throw new RunyardValueError(`Could not find project for job '${jobId}'`);
  if (!project._id || !project.name) throw new RunyardValueError(`Could not extract project information from job '${jobId}'`);
  const ds = await FileExplorer.open(t, workspaceId, project.name);
  let top;
  try {
    top = await ds.listProjectContent();
  } catch (e) {
    throw new RunyardValueError(`Failed to list project content for project '${project.name}'. ${(e as Error).message}`);
  }
  const analyses = top.folders.find((f) => f.name === 'Analyses Results' || f.name === 'AnalysesResults');
  if (!analyses?._id) throw new RunyardValueError(`Analyses Results folder not found in project '${project.name}'.`);
  let items;
  try {
    items = await getFolderItemsDeletionStatus(t, analyses._id, workspaceId);
  } catch (e) {
    throw new RunyardValueError(`Failed to get items from Analyses Results folder. ${(e as Error).message}`);
  }
  const all = [...(items.folders ?? []), ...(items.files ?? [])] as StatusItem[];
  const found = all.find((i) => typeof i.name === 'string' && i.name.includes(jobId));
  if (!found) {
    throw new RunyardValueError(
      `Results folder for job '${jobName}' (ID: ${jobId}) not found in Analyses Results.\nThis may indicate that the results have been deleted or are scheduled for deletion.`,
    );
  }
  const info: StatusItem = deletedBy ? { ...found, deletedBy } : found;
  return {
    job_id: jobId,
    job_name: jobName,
    results_folder_id: info._id,
    results_folder_name: info.name,
    status: info.status,
    items: info,
  };
}

/**
 * The job (`GET /api/v1/jobs/{J}`), its work folder (`workDirectory.folderId`, else the legacy
 * `resumeWorkDir`), and that folder with its status (`GET /api/v1/folders/?id&status…×5`). Who
 * deleted it comes from the job's `workDirectory.deletedBy`.
 */
export async function getWorkdirDeletionStatus(t: ApiTransport, jobId: string, workspaceId: string): Promise<WorkdirDeletionStatus> {
  requireWorkspace(workspaceId);
  const job = await getJobStatus(t, jobId, workspaceId);
  const jobName = job.name ?? jobId;
  const workDirectory = job.workDirectory as JobFolderRef | null | undefined;
  let folderId = workDirectory?.folderId ?? undefined;
  const deletedBy = workDirectory?.deletedBy;
  if (!folderId && 'resumeWorkDir' in job) folderId = (job.resumeWorkDir as string | null) ?? undefined;
  if (!folderId) {
    throw new RunyardValueError(
      'Working directory is not available for this job. This may be because the analysis was run without resumable mode enabled, or because intermediate results have been removed.',
    );
  }
  const folders = await getFolderDeletionStatus(t, folderId, workspaceId);
  if (!Array.isArray(folders) || folders.length === 0) {
    throw new RunyardValueError(
      `Working directory for job '${jobName}' (ID: ${jobId}) not found.\nThis may indicate that the working directory has been deleted or is scheduled for deletion.`,
    );
  }
  const info: StatusItem = deletedBy ? { ...folders[0], deletedBy } : { ...folders[0] };
  return {
    job_id: jobId,
    job_name: jobName,
    workdir_folder_id: info._id,
    workdir_folder_name: info.name,
    status: info.status,
    items: info,
  };
}
