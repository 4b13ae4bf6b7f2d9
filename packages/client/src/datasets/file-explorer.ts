// The File Explorer of one project (wire reference §2.6), as the public client's Datasets class: made
// for a project name (the projects search), it lists paths and changes items. Browser-safe: the
// upload of a local file is Datasets' (datasets.ts); a page uploads to `uploadUrl` itself.
import type { Dataset, FileItem, FolderItem } from '@runyard/contract';
import { RunyardValueError } from '../errors.js';
import { getStorageContents } from '../job-data/storage-contents.js';
import { getProjectIdFromName } from '../projects.js';
import { encodeQuery, joinPath, type ApiTransport, type Query } from '../api-transport.js';
import { azureContent, s3Content } from './listing.js';
import { ANALYSES_RESULTS, ANALYSES_RESULTS_ALIAS, pathSegments, requireDataPath, splitParent } from './paths.js';
import { kindOf, type ExplorerItem, type FolderContent, type ItemKind, type ParentKind } from './types.js';

/** A folder a move, copy, mkdir or upload can put items into: a dataset or a virtual folder. */
export interface Destination {
  id: string;
  kind: ParentKind;
  item: ExplorerItem;
}

/** Where `findItem` found an item: the item and the path of the folder holding it. */
export interface FoundItem {
  item: ExplorerItem;
  parent: string;
  name: string;
}

const where = (parent: string) => parent || '[project root]';

/** The route a file is uploaded to, its content as the request body. */
export const UPLOAD_ROUTE = '/api/runyard/datasets/upload';

export class FileExplorer {
  readonly #t: ApiTransport;
  readonly workspaceId: string;
  readonly projectName: string;
  readonly projectId: string;

  /** Use `FileExplorer.open` (or `api.datasets`), which finds the project's id first. */
  constructor(t: ApiTransport, workspaceId: string, projectName: string, projectId: string) {
    this.#t = t;
    this.workspaceId = workspaceId;
    this.projectName = projectName;
    this.projectId = projectId;
  }

  /** `GET /api/v2/projects?teamId=W&search=NAME` (unless the project id is given): the helper for that project. */
  static async open(
    t: ApiTransport,
    workspaceId: string,
    projectName: string,
    options: { projectId?: string } = {},
  ): Promise<FileExplorer> {
    return new FileExplorer(t, workspaceId, projectName, await projectIdOf(t, workspaceId, projectName, options.projectId));
  }

  // ---- listing ----------------------------------------------------------------------------

  /** `GET /api/v2/datasets?projectId=P&teamId=W`: the datasets as folders (`folderType: true`). */
  async listProjectContent(): Promise<FolderContent> {
    const reply = await this.#t.request<{ datasets?: Dataset[] }>('GET', '/api/v2/datasets', {
      query: { projectId: this.projectId, teamId: this.workspaceId },
    });
    const datasets = (reply?.datasets ?? []).map((d) => ({ ...d, folderType: true as const }) as ExplorerItem);
    return { folders: datasets, files: [] };
  }

  /** The items of a dataset by name (`AnalysesResults` means `Analyses Results`): the datasets, then `GET /api/v1/datasets/{id}/items`. */
  async listDatasetsContent(datasetName: string): Promise<FolderContent> {
    const name = datasetName === ANALYSES_RESULTS_ALIAS ? ANALYSES_RESULTS : datasetName;
    const top = await this.listProjectContent();
    const dataset = top.folders.filter((f) => f.name === name).pop();
    if (!dataset?._id) throw new RunyardValueError(`Folder '${name}' not found in project '${this.projectName}'.`);
    return this.#t.request<FolderContent>('GET', `/api/v1/datasets/${encodeURIComponent(dataset._id)}/items`, {
      query: { teamId: this.workspaceId },
    });
  }

  /** One level of an S3 folder: `GET /api/v1/data-access/s3/bucket-contents`, as folders and files. */
  async listS3FolderContent(bucket: string, prefix: string): Promise<FolderContent> {
    return s3Content(bucket, await getStorageContents(this.#t, 'aws', {}, bucket, prefix, this.workspaceId));
  }

  /** `GET /api/v1/folders/virtual/{id}/items`. */
  async listVirtualFolderContent(folderId: string): Promise<FolderContent> {
    return this.#t.request<FolderContent>('GET', `/api/v1/folders/virtual/${encodeURIComponent(folderId)}/items`, {
      query: { teamId: this.workspaceId },
    });
  }

  /** One level of an Azure folder: `GET /api/v1/data-access/azure/container-contents` (prefix ending in `/`). */
  async listAzureContainerContent(container: string, account: string, prefix: string): Promise<FolderContent> {
    const reply = await this.#t.request<{ contents?: [] }>('GET', '/api/v1/data-access/azure/container-contents', {
      query: { containerName: container, storageAccountName: account, path: prefix, teamId: this.workspaceId },
    });
    return azureContent(container, account, reply?.contents ?? []);
  }

  /**
   * What is at a path: the datasets for an empty path; a dataset's items for `A`; for `A/B/...` the
   * walk of the public client, one segment at a time (an S3 folder listed from its bucket, a virtual
   * folder from its items, an Azure folder from its container), each intermediate level listed again
   * from the start. A path ending at a file gives `{files: [that file], folders: []}`.
   */
  async listFolderContent(folderPath?: string | null): Promise<FolderContent> {
    const parts = pathSegments(folderPath);
    if (!parts.length) return this.listProjectContent();
    if (parts.length === 1) return this.listDatasetsContent(parts[0]);
    const datasetName = parts[0];
    let content = await this.listDatasetsContent(datasetName);
    for (let depth = 1; depth < parts.length; depth++) {
      const name = parts[depth];
      const last = depth === parts.length - 1;
      const folder = (content.folders ?? []).find((f) => f.name === name);
      if (!folder) {
        const file = last ? (content.files ?? []).find((f) => f.name === name) : undefined;
        if (file) return { files: [file], folders: [] };
        throw new RunyardValueError(`Folder '${name}' not found under dataset '${datasetName}'`);
      }
      if (!last) {
        content = await this.listFolderContent(parts.slice(0, depth + 1).join('/'));
        continue;
      }
      return this.listFolder(folder, parts.join('/'));
    }
    return content;
  }

  /** The content of one folder item, by its type. */
  async listFolder(folder: ExplorerItem, shownAs = folder.name): Promise<FolderContent> {
    switch (folder.folderType) {
      case 'S3Folder':
        return this.listS3FolderContent(String(folder.s3BucketName), String(folder.s3Prefix));
      case 'VirtualFolder':
        return this.listVirtualFolderContent(String(folder._id));
      case 'AzureBlobFolder': {
        const prefix = String(folder.blobPrefix ?? '');
        return this.listAzureContainerContent(
          String(folder.blobContainerName),
          String(folder.blobStorageAccountName),
          prefix.endsWith('/') ? prefix : `${prefix}/`,
        );
      }
      default:
        throw new RunyardValueError(`Unsupported folder type '${String(folder.folderType)}' for path '${shownAs}'`);
    }
  }

  /** The file or folder at a path: its parent listed, the item found by name (files first). */
  async findItem(itemPath: string): Promise<FoundItem> {
    const { parent, name } = splitParent(itemPath);
    const content = await this.listFolderContent(parent);
    const item = [...(content.files ?? []), ...(content.folders ?? [])].find((i) => i.name === name);
    if (!item) throw new RunyardValueError(`Item '${name}' not found in '${where(parent)}'`);
    return { item, parent, name };
  }

  /** The folder (or dataset) at a path: its parent listed, the folder found by name. */
  async findFolder(folderPath: string): Promise<ExplorerItem> {
    const { parent, name } = splitParent(folderPath);
    const wanted = !parent && name === ANALYSES_RESULTS_ALIAS ? ANALYSES_RESULTS : name;
    const content = await this.listFolderContent(parent);
    const folder = (content.folders ?? []).find((f) => f.name === wanted);
    if (!folder) throw new RunyardValueError(`Could not find folder '${name}' in '${where(parent)}'.`);
    return folder;
  }

  /**
   * The folder at a path as a destination: a dataset (kind `Dataset`) or a virtual folder (`Folder`);
   * an S3 or Azure folder cannot take items and is a RunyardValueError.
   */
  async findDestination(folderPath: string): Promise<Destination> {
    return destinationOf(await this.findFolder(folderPath), folderPath);
  }

  /**
   * The id of a file (`isFile`, default) or folder at a path; a path ending elsewhere is a
   * RunyardValueError (`File 'x' not found in directory 'd'.` / `Folder 'x' not found in project.`).
   */
  async getFileOrFolderId(itemPath: string, isFile = true): Promise<string> {
    const { parent, name } = splitParent(itemPath);
    const content = await this.listFolderContent(parent);
    const list = isFile ? content.files : content.folders;
    const match = (list ?? []).find((i) => i.name === name);
    if (!match) {
      throw new RunyardValueError(isFile ? `File '${name}' not found in directory '${parent}'.` : `Folder '${name}' not found in project.`);
    }
    return match._id ?? '';
  }

  // ---- changes ----------------------------------------------------------------------------

  /** `PUT /api/v1/dataItems/move?teamId=W`: a file or folder into a dataset or virtual folder. */
  async moveFilesAndFolders(
    sourceId: string,
    sourceKind: ItemKind,
    targetId: string,
    targetKind: ParentKind,
    options: { force?: boolean } = {},
  ): Promise<unknown> {
    return this.#t.request('PUT', '/api/v1/dataItems/move', {
      query: { teamId: this.workspaceId, ...(options.force && { force: true }) },
      body: { dataItemToMove: { kind: sourceKind, item: sourceId }, toDataItemParent: { kind: targetKind, item: targetId } },
    });
  }

  /** `PUT /api/v1/files/{id}` or `PUT /api/v1/folders/{id}` with `{name}`: the renamed item. */
  async renameItem(itemId: string, newName: string, kind: ItemKind): Promise<FileItem | FolderItem> {
    if (kind !== 'File' && kind !== 'Folder') throw new RunyardValueError("Invalid kind provided. Must be 'File' or 'Folder'.");
    checkName(newName);
    return this.#t.request('PUT', `/api/v1/${kind === 'File' ? 'files' : 'folders'}/${encodeURIComponent(itemId)}`, {
      query: { teamId: this.workspaceId },
      body: { name: newName },
    });
  }

  /** `POST /api/v1/folders/virtual?teamId=W` with `{name, parent: {kind, id}}` (201): the new folder. */
  async createVirtualFolder(name: string, parentId: string, parentKind: ParentKind): Promise<FolderItem> {
    if (parentKind !== 'Dataset' && parentKind !== 'Folder')
      throw new RunyardValueError("Invalid parent_kind. Must be 'Dataset' or 'Folder'.");
    checkName(name);
    return this.#t.request('POST', '/api/v1/folders/virtual', {
      query: { teamId: this.workspaceId },
      body: { name, parent: { kind: parentKind, id: parentId } },
    });
  }

  /**
   * A copy of a file or folder under a destination (`parent: {kind, id}`), by the item's type: a
   * virtual folder with `copyContentsFrom`, an S3 or Azure folder or file as a new item pointing to
   * the same storage.
   */
  async copyItem(item: ExplorerItem, destinationId: string, destinationKind: ParentKind): Promise<unknown> {
    const parent = { kind: destinationKind, id: destinationId };
    const q = { query: { teamId: this.workspaceId } };
    const managed = item.isManagedByLifebit ?? false;
    const size = item.sizeInBytes ?? (typeof item.size === 'number' ? item.size : 0);
    if (item.folderType === 'VirtualFolder') {
      if (!item._id) throw new RunyardValueError(`Virtual folder '${item.name}' has no id.`);
      return this.#t.request('POST', '/api/v1/folders/virtual', { ...q, body: { copyContentsFrom: item._id, name: item.name, parent } });
    }
    if (item.folderType === 'S3Folder') {
      return this.#t.request('POST', '/api/v1/folders/s3', {
        ...q,
        body: {
          s3BucketName: item.s3BucketName,
          s3Prefix: item.s3Prefix ?? item.s3ObjectKey,
          name: item.name,
          parent,
          isManagedByLifebit: managed,
        },
      });
    }
    if (item.fileType === 'S3File') {
      return this.#t.request('POST', '/api/v1/files/s3', {
        ...q,
        body: {
          s3BucketName: item.s3BucketName,
          s3ObjectKey: item.s3ObjectKey ?? item.s3Prefix,
          name: item.name,
          parent,
          isManagedByLifebit: managed,
          sizeInBytes: size,
        },
      });
    }
    if (item.folderType === 'AzureBlobFolder') {
      return this.#t.request('POST', '/api/v1/folders/azure-blob', {
        ...q,
        body: {
          blobContainerName: item.blobContainerName,
          blobPrefix: item.blobPrefix,
          blobStorageAccountName: item.blobStorageAccountName,
          name: item.name,
          parent,
        },
      });
    }
    if (item.fileType === 'AzureBlobFile') {
      return this.#t.request('POST', '/api/v1/files/azure-blob', {
        ...q,
        body: {
          blobContainerName: item.blobContainerName,
          blobName: item.blobName,
          blobStorageAccountName: item.blobStorageAccountName,
          name: item.name,
          parent,
          isManagedByLifebit: managed,
          sizeInBytes: size,
        },
      });
    }
    throw new RunyardValueError(`Unknown item type for copy: ${item.name}`);
  }

  /**
   * `DELETE /api/v1/files/{id}` or `DELETE /api/v1/folders/{id}` (204). Refused before any request:
   * an item without an `_id` (inside an S3 or Azure folder), and one managed by Runyard unless
   * `force` (which the request then carries as `force=true`, as it does for any item).
   */
  async deleteItem(item: ExplorerItem, options: { force?: boolean } = {}): Promise<void> {
    if (!item._id) {
      throw new RunyardValueError(
        `Item '${item.name}' could not be removed as the parent folder is an s3 folder and their content cannot be modified.`,
      );
    }
    const managed = item.isManagedByLifebit === true;
    if (managed && !options.force) {
      throw new RunyardValueError(
        'By removing this file, it will be permanently deleted. If you want to go forward, please use the --force flag.',
      );
    }
    await this.#t.request('DELETE', `/api/v1/${kindOf(item) === 'File' ? 'files' : 'folders'}/${encodeURIComponent(item._id)}`, {
      // force also for a folder that is not managed itself but holds uploads, which go with it (the server asks for it).
      query: { teamId: this.workspaceId, ...(options.force && { force: true }) },
    });
  }

  /**
   * The query of an upload into `Data` or a virtual folder inside it (`destPath`, a folder path
   * starting with `Data`) of a file named `name`: `teamId`, `projectId`, `parentId` (when not `Data`
   * itself) and `name`, checked and resolved before any byte is sent.
   */
  protected async uploadQuery(destPath: string, name: string): Promise<Query> {
    const parts = requireDataPath(destPath, 'DEST_PATH');
    checkName(name);
    const parentId = parts.length > 1 ? (await this.findDestination(parts.join('/'))).id : undefined;
    return { teamId: this.workspaceId, projectId: this.projectId, ...(parentId && { parentId }), name };
  }

  /**
   * Where a page uploads a file: the path and query of `POST /api/runyard/datasets/upload` for
   * `destPath` and `name` (see uploadQuery), below the transport's base path. The file goes as the
   * raw body with `Content-Type: application/octet-stream` and the CSRF header (XMLHttpRequest
   * gives its progress); the reply is the new file.
   */
  async uploadUrl(destPath: string, name: string): Promise<string> {
    return joinPath(this.#t.basePath, UPLOAD_ROUTE) + encodeQuery(await this.uploadQuery(destPath, name));
  }
}

/** The project's id: the one given, or the one the projects search finds by name. */
export async function projectIdOf(t: ApiTransport, workspaceId: string, projectName: string, projectId?: string): Promise<string> {
  if (!workspaceId) throw new RunyardValueError('Invalid workspace_id: must be a non-empty string');
  return projectId ?? (await getProjectIdFromName(t, workspaceId, projectName))._id;
}

/** A new item name: not empty, no `/`, `\` or control character, not `.` or `..`. */
export function checkName(name: string): void {
  if (typeof name !== 'string' || !name || name === '.' || name === '..' || /[/\\\u0000-\u001f\u007f]/.test(name)) {
    throw new RunyardValueError(
      `Invalid name '${String(name)}': a name is not empty, not '.' or '..', and has no '/', '\\' or control character.`,
    );
  }
}

/** A folder as a place to put items: a dataset or a virtual folder; a storage folder is a RunyardValueError. */
export function destinationOf(folder: ExplorerItem, shownAs = folder.name): Destination {
  if (!folder._id) throw new RunyardValueError(`Destination folder '${shownAs}' has no id.`);
  if (folder.folderType === true) return { id: folder._id, kind: 'Dataset', item: folder };
  if (folder.folderType === 'VirtualFolder') return { id: folder._id, kind: 'Folder', item: folder };
  throw new RunyardValueError(
    `The destination '${shownAs}' is ${folder.folderType === 'S3Folder' ? 'an S3 folder' : 'a storage folder'}; only datasets and virtual folders can take items.`,
  );
}
