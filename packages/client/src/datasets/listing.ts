// Storage listings as File Explorer content (wire reference §2.6): the entries of an S3 or Azure
// folder become folders and files of the shape the server gives its own items.
import type { StorageContent } from '../job-data/types.js';
import type { ExplorerItem, FolderContent } from './types.js';

/** `list_s3_folder_content`'s normalisation: folders get `folderType`, files `fileType`; both `s3BucketName` and `s3Prefix` (the key). */
export function s3Content(bucket: string, contents: StorageContent[]): FolderContent {
  const out: FolderContent = { folders: [], files: [] };
  for (const item of contents) {
    if (item.isDir) out.folders.push({ ...item, folderType: 'S3Folder', s3BucketName: bucket, s3Prefix: item.path });
    else out.files.push({ ...item, s3Prefix: item.path, s3BucketName: bucket, fileType: 'S3File' });
  }
  return out;
}

/** `list_azure_container_content`'s normalisation: AzureBlobFolder and AzureBlobFile items. */
export function azureContent(container: string, account: string, contents: Array<StorageContent & { _id?: string }>): FolderContent {
  const out: FolderContent = { folders: [], files: [] };
  for (const item of contents) {
    const path = item.path ?? '';
    const name = item.name || path.replace(/\/+$/, '').split('/').pop() || path;
    const common: ExplorerItem = {
      ...(item._id !== undefined && { _id: item._id }),
      name,
      blobContainerName: container,
      blobStorageAccountName: account,
    };
    if (item.isDir) out.folders.push({ ...common, folderType: 'AzureBlobFolder', blobPrefix: path, kind: 'Folder' });
    else
      out.files.push({
        ...common,
        fileType: 'AzureBlobFile',
        blobName: path,
        sizeInBytes: item.size ?? 0,
        updatedAt: item.lastModified ?? null,
        kind: 'File',
      });
  }
  return out;
}
