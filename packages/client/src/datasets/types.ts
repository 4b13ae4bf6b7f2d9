// Items of the File Explorer as the Datasets helper returns them (wire reference §2.6): datasets,
// folders and files from the server, and the entries of storage listings normalised to the same shape.

/** A folder or a dataset (`folderType: true`), or a file; the keys depend on the type. */
export interface ExplorerItem {
  /** Absent for what lies inside an S3 or Azure folder (listed from storage). */
  _id?: string;
  name: string;
  /** `true` for a dataset; `VirtualFolder`, `S3Folder` or `AzureBlobFolder` for a folder; absent for a file. */
  folderType?: true | 'VirtualFolder' | 'S3Folder' | 'AzureBlobFolder' | string;
  /** `S3File` or `AzureBlobFile` for a file. */
  fileType?: 'S3File' | 'AzureBlobFile' | string;
  /** A dataset's kind (`Data`, `AnalysesResults`, `Cohorts`); `Folder` or `File` for other items. */
  kind?: string;
  s3BucketName?: string;
  s3Prefix?: string;
  s3ObjectKey?: string;
  blobContainerName?: string;
  blobStorageAccountName?: string;
  blobPrefix?: string;
  blobName?: string;
  sizeInBytes?: number;
  isManagedByLifebit?: boolean;
  status?: string;
  user?: { id?: string; name?: string; surname?: string; email?: string };
  updatedAt?: string | null;
  [key: string]: unknown;
}

/** What `listFolderContent` returns: folders and files (and, from the server, its paging metadata). */
export interface FolderContent {
  folders: ExplorerItem[];
  files: ExplorerItem[];
  [key: string]: unknown;
}

export type ItemKind = 'File' | 'Folder';
export type ParentKind = 'Dataset' | 'Folder';

/** True for a folder or dataset (the public client's test: the item has a `folderType`). */
export const isFolder = (item: ExplorerItem) => 'folderType' in item && item.folderType !== undefined;

/** `Folder` for a folder or dataset, `File` otherwise. */
export const kindOf = (item: ExplorerItem): ItemKind => (isFolder(item) ? 'Folder' : 'File');
