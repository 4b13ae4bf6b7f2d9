import { FileExplorer } from '@runyard/client/core';
import type { RunyardApi } from '../../api/client';

/**
 * The File Explorer's routes (wire-api §2.6) as the dashboard uses them: a project's datasets, the
 * items of a dataset or virtual folder, and what lies in a storage folder (listed from storage, so
 * without `_id`), all as one item shape.
 */
export interface ExplorerItem {
  _id?: string;
  name: string;
  /** `true` for a dataset; VirtualFolder, S3Folder or AzureBlobFolder for a folder; absent for a file. */
  folderType?: true | string;
  /** S3File or AzureBlobFile for a file. */
  fileType?: string;
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
  createdAt?: string;
  updatedAt?: string | null;
  user?: { name?: string; surname?: string; email?: string };
  [key: string]: unknown;
}

export interface Listing {
  folders: ExplorerItem[];
  files: ExplorerItem[];
  /** How many items the folder holds, when the server says (a listing shows at most one page). */
  count?: number;
}

interface StorageEntry {
  name: string;
  path: string;
  isDir: boolean;
  size: number;
  lastModified: string | null;
}

export const isFolder = (item: ExplorerItem) => item.folderType !== undefined && item.folderType !== null;
export const isDataset = (item: ExplorerItem) => item.folderType === true;
/** Datasets and virtual folders take new items (mkdir, move, upload); storage folders do not. */
export const takesItems = (item: ExplorerItem) => isDataset(item) || item.folderType === 'VirtualFolder';
/** Only items with an id can be renamed, moved or deleted (what lies in a storage folder has none). */
export const changeable = (item: ExplorerItem) => Boolean(item._id) && !isDataset(item);

/** `GET /api/v2/datasets`: Data, Analyses Results, Cohorts. */
export async function listProject(api: RunyardApi, teamId: string, projectId: string): Promise<Listing> {
  const reply = await api.request<{ datasets?: ExplorerItem[] }>('GET', '/api/v2/datasets', { query: { projectId, teamId } });
  return { folders: (reply?.datasets ?? []).map((d) => ({ ...d, folderType: true as const })), files: [] };
}

function fromStorage(bucket: string, entries: StorageEntry[], azureAccount?: string): Listing {
  const out: Listing = { folders: [], files: [] };
  for (const e of entries) {
    if (azureAccount !== undefined) {
      const common = { name: e.name, blobContainerName: bucket, blobStorageAccountName: azureAccount };
      if (e.isDir) out.folders.push({ ...common, folderType: 'AzureBlobFolder', blobPrefix: e.path });
      else out.files.push({ ...common, fileType: 'AzureBlobFile', blobName: e.path, sizeInBytes: e.size, updatedAt: e.lastModified });
    } else if (e.isDir) out.folders.push({ name: e.name, folderType: 'S3Folder', s3BucketName: bucket, s3Prefix: e.path });
    else
      out.files.push({
        name: e.name,
        fileType: 'S3File',
        s3BucketName: bucket,
        s3ObjectKey: e.path,
        sizeInBytes: e.size,
        updatedAt: e.lastModified,
      });
  }
  return out;
}

/** One level of a folder, by its type (as the CLI's `datasets ls` walks). */
export async function listFolder(api: RunyardApi, teamId: string, folder: ExplorerItem): Promise<Listing> {
  type Items = { folders?: ExplorerItem[]; files?: ExplorerItem[]; paginationMetadata?: Record<string, number> };
  const items = (r: Items): Listing => ({
    folders: r?.folders ?? [],
    files: r?.files ?? [],
    count: r?.paginationMetadata?.['Pagination-Count'],
  });
  if (isDataset(folder)) {
    return items(await api.request<Items>('GET', `/api/v1/datasets/${encodeURIComponent(folder._id ?? '')}/items`, { query: { teamId } }));
  }
  switch (folder.folderType) {
    case 'VirtualFolder':
      return items(
        await api.request<Items>('GET', `/api/v1/folders/virtual/${encodeURIComponent(folder._id ?? '')}/items`, { query: { teamId } }),
      );
    case 'S3Folder': {
      const bucket = folder.s3BucketName ?? '';
      const r = await api.request<{ contents: StorageEntry[] }>('GET', '/api/v1/data-access/s3/bucket-contents', {
        query: { bucket, path: folder.s3Prefix ?? '', teamId },
      });
      return fromStorage(bucket, r.contents);
    }
    case 'AzureBlobFolder': {
      const container = folder.blobContainerName ?? '';
      const account = folder.blobStorageAccountName ?? '';
      const prefix = folder.blobPrefix ?? '';
      const r = await api.request<{ contents: StorageEntry[] }>('GET', '/api/v1/data-access/azure/container-contents', {
        query: { containerName: container, storageAccountName: account, path: prefix.endsWith('/') ? prefix : `${prefix}/`, teamId },
      });
      return fromStorage(container, r.contents, account);
    }
    default:
      throw new Error(`The folder "${folder.name}" is of a type this page cannot open (${String(folder.folderType)}).`);
  }
}

/** Where a file's bytes are: bucket (or Azure container) and key. */
export function objectOf(item: ExplorerItem): { bucket: string; key: string } | null {
  const bucket = item.s3BucketName ?? item.blobContainerName;
  const key = item.s3ObjectKey ?? item.blobName ?? (item.fileType === 'S3File' ? item.s3Prefix : undefined);
  return bucket && key ? { bucket, key } : null;
}

/** The GET route the CLI's downloads use (the cookie authenticates a GET): a link for `<a download>`. */
export function objectHref(api: RunyardApi, teamId: string, bucket: string, key: string): string {
  return api.storageObjectPath(teamId, { bucket, key });
}

/** The SDK's File Explorer of a project (its changes are the CLI's `datasets mv|rename|mkdir|rm`). */
export const explorerOf = (api: RunyardApi, teamId: string, projectId: string) => new FileExplorer(api.transport, teamId, '', projectId);

const kindOf = (item: ExplorerItem) => (isFolder(item) ? 'Folder' : 'File');
/** Runyard's own items (a job's folders) change only with force; the page asks first. */
const forced = (item: ExplorerItem) => ({ force: item.isManagedByLifebit === true });

export function renameItem(fe: FileExplorer, item: ExplorerItem, name: string): Promise<unknown> {
  return fe.renameItem(item._id ?? '', name, kindOf(item));
}

/** Asked first by the page (DeletePanel): with force, which a folder holding uploads (deleted with it) needs too. */
export function deleteItem(fe: FileExplorer, item: ExplorerItem): Promise<void> {
  return fe.deleteItem(item, { force: true });
}

/** Into a dataset or a virtual folder. */
export function moveItem(fe: FileExplorer, item: ExplorerItem, destination: ExplorerItem): Promise<unknown> {
  return fe.moveFilesAndFolders(
    item._id ?? '',
    kindOf(item),
    destination._id ?? '',
    isDataset(destination) ? 'Dataset' : 'Folder',
    forced(item),
  );
}

export function createFolder(fe: FileExplorer, parent: ExplorerItem, name: string): Promise<unknown> {
  return fe.createVirtualFolder(name, parent._id ?? '', isDataset(parent) ? 'Dataset' : 'Folder');
}
