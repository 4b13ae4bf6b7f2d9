// Deletion status of File Explorer folders (seed contract §2.7, wire reference §2.1): one folder through
// the folders resource, the items of a folder through the datasets resource, and what a status means
// for a job's results or work directory.
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { DELETION_STATUSES, type FolderItemsStatus, type FolderRecord, type JobFolderRef } from './types.js';

/**
 * get_folder_deletion_status: `GET /api/v1/folders/?id=F&status=ready&status=deleted&status=deleting&status=scheduledForDeletion&status=failedToDelete&teamId=W`.
 * The folder as a one-element array with its `status` (an empty array when there is none).
 */
export async function getFolderDeletionStatus(t: ApiTransport, folderId: string, workspaceId: string): Promise<FolderRecord[]> {
  if (!folderId) throw new RunyardValueError('A folder id is required.');
  return t.request<FolderRecord[]>('GET', '/api/v1/folders/', {
    query: { id: folderId, status: [...DELETION_STATUSES], teamId: workspaceId },
  });
}

/** get_folder_items_deletion_status: `GET /api/v1/datasets/{F}/items?status=…×5&teamId=W`: folders and files with their status. */
export async function getFolderItemsDeletionStatus(t: ApiTransport, folderId: string, workspaceId: string): Promise<FolderItemsStatus> {
  if (!folderId) throw new RunyardValueError('A folder id is required.');
  return t.request<FolderItemsStatus>('GET', `/api/v1/datasets/${encodeURIComponent(folderId)}/items`, {
    query: { status: [...DELETION_STATUSES], teamId: workspaceId },
  });
}

/** Whose folder a status message is about. */
export type FolderRole = 'results' | 'workdir';

const MESSAGES: Record<FolderRole, Record<string, string>> = {
  results: {
    deleting: 'Analysis results are currently being deleted. The results folder is not accessible.',
    scheduledForDeletion: 'Analysis results have been scheduled for deletion. The results folder is no longer available.',
    deleted: 'Analysis results have been deleted. The results folder is no longer available.',
    failedToDelete: 'Analysis results were marked for deletion but failed to delete. The results folder may not be accessible.',
    other: 'Analysis results have been removed. The results folder is no longer available.',
  },
  workdir: {
    deleting: 'Intermediate job results are currently being deleted. The working directory is not accessible.',
    scheduledForDeletion: 'Intermediate job results have been scheduled for deletion. The working directory is no longer available.',
    deleted: 'Intermediate job results have been deleted. The working directory is no longer available.',
    failedToDelete: 'Intermediate job results were marked for deletion but failed to delete. The working directory may not be accessible.',
    other: 'Intermediate job results have been removed. The working directory is no longer available.',
  },
};

/**
 * The status of a job's results or work folder as the public client reads it: the folder's
 * `[0].status`; with no folder in the answer (or a failed request), `scheduledForDeletion` when
 * the job names who deleted it, otherwise undefined (no status).
 */
export async function jobFolderStatus(t: ApiTransport, ref: JobFolderRef, workspaceId: string): Promise<string | undefined> {
  try {
    const folders = await getFolderDeletionStatus(t, String(ref.folderId), workspaceId);
    if (Array.isArray(folders) && folders.length > 0) return folders[0].status;
  } catch {
    // As the public client: an unreadable status falls through to the job's own record of the deletion.
  }
  return ref.deletedBy ? 'scheduledForDeletion' : undefined;
}

/** A RunyardValueError with the public client's message for any status but `ready` (and no status). */
export function assertFolderAvailable(role: FolderRole, status: string | undefined): void {
  if (status === undefined || status === 'ready') return;
  throw new RunyardValueError(MESSAGES[role][status] ?? MESSAGES[role].other);
}
