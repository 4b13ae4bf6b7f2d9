// Shapes the job-data operations read: where a job keeps its logs and results, storage listings,
// File Explorer folders with their deletion status (wire reference §2.1, §2.6).
import type { FileItem, FolderItem, ItemStatus } from '@runyard/contract';

/** `logs` or `results` of a job document: S3-like keys, or Azure blob keys. */
export interface StorageLocation {
  s3BucketName?: string;
  s3Bucket?: string;
  s3Prefix?: string;
  blobStorageAccountName?: string;
  blobContainerName?: string;
  blobPrefix?: string;
  [key: string]: unknown;
}

/** `workDirectory` or `analysisResults` of a job document. */
export interface JobFolderRef {
  folderId?: string | null;
  deletedBy?: { id?: string; name?: string; surname?: string; email?: string };
  deletionDate?: string;
  [key: string]: unknown;
}

/** One entry of `GET /api/v1/data-access/{s3/bucket-contents|azure/container-contents}`. */
export interface StorageContent {
  name: string;
  /** The key relative to the bucket or container. */
  path: string;
  isDir: boolean;
  size?: number;
  lastModified?: string | null;
  [key: string]: unknown;
}

export type CloudName = 'aws' | 'azure';

/** What `GET /api/v1/cloud/azure` answers for an Azure workspace. */
export interface CloudMeta {
  storage?: { storageAccount: string };
  [key: string]: unknown;
}

/** The keys of a storage location for one cloud, and its URL scheme. */
export interface CloudStorageKeys {
  container: 's3BucketName' | 'blobContainerName';
  prefix: 's3Prefix' | 'blobPrefix';
  scheme: 's3' | 'az';
}

/** The deletion statuses a folder or file moves through (`ready` is the normal one). */
export const DELETION_STATUSES: readonly ItemStatus[] = ['ready', 'deleted', 'deleting', 'scheduledForDeletion', 'failedToDelete'];

/** A folder of `GET /api/v1/folders/` (any extra keys kept). */
export type FolderRecord = FolderItem & Record<string, unknown>;

/** `GET /api/v1/datasets/{id}/items` with the status filter. */
export interface FolderItemsStatus {
  folders: Array<FolderRecord | Record<string, unknown>>;
  files: Array<(FileItem & Record<string, unknown>) | Record<string, unknown>>;
  paginationMetadata?: Record<string, unknown>;
  [key: string]: unknown;
}
