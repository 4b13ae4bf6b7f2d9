import {
  isoNow,
  MAX_ITEMS_PAGE,
  newObjectId,
  type AzureFileCreateBody,
  type AzureFolderCreateBody,
  type FoldersQuery,
  type ItemsQuery,
  type ItemStatus,
  type MoveBody,
  type S3FileCreateBody,
  type S3FolderCreateBody,
  type VirtualFolderCreateBody,
} from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { defaultBucketOf } from '../scheduler/job-paths.js';
import type { BlobEntry } from '../storage/blob-store.js';
import { checkBucket, checkContainer, checkKey } from '../storage/keys.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import {
  checkItemName,
  checkNameFree,
  DEFAULT_STATUSES,
  ensureDatasets,
  datasetToWire,
  fileOrThrow,
  fileToWire,
  findDataset,
  findFolder,
  folderOrThrow,
  folderToWire,
  MAX_DEPTH,
  resolveDestination,
  usersOf,
  type FileRow,
  type FolderRow,
} from './data-items.js';
import { scheduleFolderDeletion } from './job-data.js';
import { assertAccess, blobCall, checkedPath, listLevel, type StorageDeps } from './storage-access.js';

/** Most items a copy of a virtual folder may hold. */
export const MAX_COPY_ITEMS = 10_000;

/** `GET /api/v2/datasets?projectId=`: the project's datasets, made on first use. */
export async function listDatasets(db: Kysely<Database>, ctx: Context, projectId: string) {
  const project = await db
    .selectFrom('projects')
    .select('id')
    .where('id', '=', projectId)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!project) throw new AppError('PROJECT_NOT_FOUND', `Project ${projectId} not found in this workspace.`);
  const datasets = await ensureDatasets(db, ctx.workspaceId, projectId);
  return { datasets: datasets.sort((a, b) => a.name.localeCompare(b.name)).map(datasetToWire) };
}

// ---- listing ------------------------------------------------------------------------------

const statusesOf = (q: { status?: ItemStatus[] }): readonly ItemStatus[] => (q.status?.length ? q.status : DEFAULT_STATUSES);

/** The folders then the files under a dataset or virtual folder, one page of them. */
async function databaseItems(
  db: Kysely<Database>,
  ctx: Context,
  parentId: string,
  statuses: readonly ItemStatus[],
  page: number,
  limit: number,
) {
  const folders = db
    .selectFrom('folders')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('parent_id', '=', parentId)
    .where('status', 'in', statuses);
  const files = db
    .selectFrom('files')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('parent_id', '=', parentId)
    .where('status', 'in', statuses);
  const [folderCount, fileCount] = (
    await Promise.all([
      folders.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      files.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ])
  ).map((r) => Number(r.n));
  const offset = (page - 1) * limit;
  const folderRows =
    offset < folderCount ? await folders.selectAll().orderBy('name').orderBy('id').limit(limit).offset(offset).execute() : [];
  const fileLimit = limit - folderRows.length;
  const fileRows =
    fileLimit > 0
      ? await files
          .selectAll()
          .orderBy('name')
          .orderBy('id')
          .limit(fileLimit)
          .offset(Math.max(0, offset - folderCount))
          .execute()
      : [];
  const users = await usersOf(db, [...folderRows, ...fileRows]);
  return {
    folders: folderRows.map((f) => folderToWire(f, users)),
    files: fileRows.map((f) => fileToWire(f, users)),
    count: folderCount + fileCount,
  };
}

/** What is inside an S3 or Azure folder, from storage: items without `_id`, with the folder's status. */
async function storageItems(storage: StorageDeps, folder: FolderRow, statuses: readonly ItemStatus[], page: number, limit: number) {
  if (!statuses.includes(folder.status as ItemStatus)) return { folders: [], files: [], count: 0 };
  const entries = await listLevel(storage.blobs, folder.bucket!, folder.storage_key!);
  const slice = entries.slice((page - 1) * limit, page * limit);
  const azure = folder.item_type === 'AzureBlobFolder';
  const common = (e: BlobEntry) => ({
    name: e.name,
    isManagedByLifebit: folder.is_managed === 1,
    status: folder.status as ItemStatus,
    updatedAt: e.lastModified ? e.lastModified.toISOString() : null,
  });
  const where = (e: BlobEntry) => {
    const key = e.isDir ? e.key.replace(/\/$/, '') : e.key;
    if (azure)
      return {
        blobContainerName: folder.bucket!,
        blobStorageAccountName: folder.account ?? '',
        [e.isDir ? 'blobPrefix' : 'blobName']: key,
      };
    return { s3BucketName: folder.bucket!, [e.isDir ? 's3Prefix' : 's3ObjectKey']: key };
  };
  return {
    folders: slice
      .filter((e) => e.isDir)
      .map((e) => ({ ...common(e), kind: 'Folder', folderType: azure ? 'AzureBlobFolder' : 'S3Folder', ...where(e), sizeInBytes: 0 })),
    files: slice
      .filter((e) => !e.isDir)
      .map((e) => ({ ...common(e), kind: 'File', fileType: azure ? 'AzureBlobFile' : 'S3File', ...where(e), sizeInBytes: e.size })),
    count: entries.length,
  };
}

/**
 * `GET /api/v1/datasets/{id}/items` (a dataset or any folder) and `GET /api/v1/folders/virtual/{id}/items`
 * (`virtualOnly`): folders and files with their status; without `status`, all but `deleted`.
 */
export async function listItems(db: Kysely<Database>, storage: StorageDeps, ctx: Context, id: string, q: ItemsQuery, virtualOnly: boolean) {
  const page = q.page ?? 1;
  const limit = q.limit ?? MAX_ITEMS_PAGE;
  const statuses = statusesOf(q);
  let result;
  if (await findDataset(db, ctx.workspaceId, id)) {
    result = await databaseItems(db, ctx, id, statuses, page, limit);
  } else {
    const folder = await findFolder(db, ctx.workspaceId, id);
    if (!folder) throw new AppError('FOLDER_NOT_FOUND', `No dataset or folder ${quoted(id)} in this workspace.`);
    if (folder.item_type === 'VirtualFolder') result = await databaseItems(db, ctx, id, statuses, page, limit);
    else if (virtualOnly)
      throw new AppError(
        'NOT_A_VIRTUAL_FOLDER',
        `Folder ${quoted(folder.name)} is a ${folder.item_type}: list it with the storage routes.`,
      );
    else result = await storageItems(storage, folder, statuses, page, limit);
  }
  return {
    folders: result.folders,
    files: result.files,
    paginationMetadata: { 'Pagination-Count': result.count, 'Pagination-Page': page, 'Pagination-Limit': limit },
  };
}

/** `GET /api/v1/folders?id=F&status=...`: the folder as a one-element array, or `[]` when its status is not asked for. */
export async function listFolders(db: Kysely<Database>, ctx: Context, q: FoldersQuery) {
  const folder = await folderOrThrow(db, ctx.workspaceId, q.id);
  if (!statusesOf(q).includes(folder.status as ItemStatus)) return [];
  return [folderToWire(folder, await usersOf(db, [folder]))];
}

// ---- changes ------------------------------------------------------------------------------

/**
 * Items being deleted cannot change; a job's folders only with force. Other items Runyard manages
 * (uploads) change as the caller asks: the public client guards them itself (it asks for --force
 * before it deletes one) and sends no force.
 */
function guardChange(item: FolderRow | FileRow, force: boolean, verb: string): void {
  if (item.status !== 'ready') throw new AppError('DELETION_CONFLICT', `${quoted(item.name)} is ${item.status} and cannot be ${verb}.`);
  if ('job_role' in item && item.job_role === 'work')
    throw new AppError('ITEM_MANAGED', `${quoted(item.name)} is the work directory of job ${item.job_id} and cannot be ${verb}.`);
  if ('job_role' in item && item.job_role && !force) {
    throw new AppError(
      'ITEM_MANAGED',
      `"${item.name}" is managed by Runyard (the ${item.job_role} of job ${item.job_id}); add force=true to have it ${verb} anyway.`,
    );
  }
}

/** `PUT /api/v1/dataItems/move`: into a dataset or a virtual folder, never into itself. */
export async function moveItem(db: Kysely<Database>, ctx: Context, body: MoveBody, force: boolean): Promise<{ success: true }> {
  const { kind, item } = body.dataItemToMove;
  const row = kind === 'Folder' ? await folderOrThrow(db, ctx.workspaceId, item) : await fileOrThrow(db, ctx.workspaceId, item);
  guardChange(row, force, 'moved');
  const dest = await resolveDestination(db, ctx.workspaceId, body.toDataItemParent.kind, body.toDataItemParent.item);
  if (kind === 'Folder' && (dest.id === row.id || dest.ancestors.includes(row.id))) {
    throw new AppError('INVALID_DESTINATION', `${quoted(row.name)} cannot be moved into itself.`);
  }
  if (row.parent_id === dest.id) return { success: true };
  await checkNameFree(db, dest.id, row.name);
  await db
    .updateTable(kind === 'Folder' ? 'folders' : 'files')
    .set({ parent_kind: dest.kind, parent_id: dest.id, updated_at: isoNow() })
    .where('id', '=', row.id)
    .where('workspace_id', '=', ctx.workspaceId)
    .execute();
  return { success: true };
}

/** `PUT /api/v1/files/{id}` and `PUT /api/v1/folders/{id}` with `{name}`. */
export async function renameItem(db: Kysely<Database>, ctx: Context, kind: 'File' | 'Folder', id: string, name: string, force: boolean) {
  checkItemName(name);
  const row = kind === 'Folder' ? await folderOrThrow(db, ctx.workspaceId, id) : await fileOrThrow(db, ctx.workspaceId, id);
  guardChange(row, force, 'renamed');
  await checkNameFree(db, row.parent_id, name, row.id);
  const table = kind === 'Folder' ? 'folders' : 'files';
  await db
    .updateTable(table)
    .set({ name, updated_at: isoNow() })
    .where('id', '=', id)
    .where('workspace_id', '=', ctx.workspaceId)
    .execute();
  if (kind === 'Folder') {
    const f = await folderOrThrow(db, ctx.workspaceId, id);
    return folderToWire(f, await usersOf(db, [f]));
  }
  const f = await fileOrThrow(db, ctx.workspaceId, id);
  return fileToWire(f, await usersOf(db, [f]));
}

interface NewItem {
  name: string;
  itemType: string;
  parentKind: string;
  parentId: string;
  bucket?: string | null;
  account?: string | null;
  key?: string | null;
  size?: number;
  managed?: boolean;
}

/** The columns folders and files share (DataItemColumns), for a new item. */
function itemValues(ctx: Context, n: NewItem, id: string, now: string) {
  return {
    id,
    workspace_id: ctx.workspaceId,
    name: n.name,
    item_type: n.itemType,
    parent_kind: n.parentKind,
    parent_id: n.parentId,
    bucket: n.bucket ?? null,
    account: n.account ?? null,
    storage_key: n.key ?? null,
    size_bytes: n.size ?? 0,
    is_managed: n.managed ? 1 : 0,
    user_id: ctx.user.id,
    status: 'ready',
    created_at: now,
    updated_at: now,
  };
}

function folderValues(ctx: Context, n: NewItem, now = isoNow()) {
  return {
    ...itemValues(ctx, n, newObjectId(), now),
    job_id: null,
    job_role: null,
    status_message: null,
    deleted_by: null,
    deletion_date: null,
  };
}

function fileValues(ctx: Context, n: NewItem, id = newObjectId(), now = isoNow()) {
  return itemValues(ctx, n, id, now);
}

async function insertFolder(db: Kysely<Database>, ctx: Context, n: NewItem) {
  const values = folderValues(ctx, n);
  await db.insertInto('folders').values(values).execute();
  const row = await folderOrThrow(db, ctx.workspaceId, values.id);
  return folderToWire(row, await usersOf(db, [row]));
}

export async function insertFile(db: Kysely<Database>, ctx: Context, n: NewItem, id?: string) {
  const values = fileValues(ctx, n, id);
  await db.insertInto('files').values(values).execute();
  const row = await fileOrThrow(db, ctx.workspaceId, values.id);
  return fileToWire(row, await usersOf(db, [row]));
}

/** `POST /api/v1/folders/virtual`: a new folder, or with `copyContentsFrom` a copy of a virtual folder and everything in it. */
export async function createVirtualFolder(db: Kysely<Database>, ctx: Context, body: VirtualFolderCreateBody) {
  checkItemName(body.name);
  const dest = await resolveDestination(db, ctx.workspaceId, body.parent.kind, body.parent.id);
  if (body.copyContentsFrom) return copyVirtualFolder(db, ctx, body.copyContentsFrom, body.name, dest);
  await checkNameFree(db, dest.id, body.name);
  return insertFolder(db, ctx, { name: body.name, itemType: 'VirtualFolder', parentKind: dest.kind, parentId: dest.id });
}

/** Every folder and file below a folder (breadth first, parents before children), of any status. */
async function subtree(
  db: Kysely<Database>,
  ctx: Context,
  rootId: string,
  max = Infinity,
): Promise<{ folders: FolderRow[]; files: FileRow[] }> {
  const folders: FolderRow[] = [];
  const files: FileRow[] = [];
  let level = [rootId];
  for (let depth = 0; level.length && depth < MAX_DEPTH; depth++) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 500) {
      const ids = level.slice(i, i + 500);
      const fs = await db
        .selectFrom('folders')
        .selectAll()
        .where('workspace_id', '=', ctx.workspaceId)
        .where('parent_kind', '=', 'Folder')
        .where('parent_id', 'in', ids)
        .orderBy('name')
        .execute();
      const fi = await db
        .selectFrom('files')
        .selectAll()
        .where('workspace_id', '=', ctx.workspaceId)
        .where('parent_kind', '=', 'Folder')
        .where('parent_id', 'in', ids)
        .orderBy('name')
        .execute();
      folders.push(...fs);
      files.push(...fi);
      next.push(...fs.map((f) => f.id));
      if (folders.length + files.length > max) throw new AppError('VALIDATION_FAILED', `The folder holds more than ${max} items.`);
    }
    level = next;
  }
  return { folders, files };
}

async function copyVirtualFolder(
  db: Kysely<Database>,
  ctx: Context,
  sourceId: string,
  name: string,
  dest: Awaited<ReturnType<typeof resolveDestination>>,
) {
  const source = await folderOrThrow(db, ctx.workspaceId, sourceId);
  if (source.item_type !== 'VirtualFolder') {
    throw new AppError(
      'NOT_A_VIRTUAL_FOLDER',
      `copyContentsFrom: "${source.name}" is a ${source.item_type}; copy it with the route of its type.`,
    );
  }
  if (source.status !== 'ready') throw new AppError('DELETION_CONFLICT', `${quoted(source.name)} is ${source.status}.`);
  if (dest.id === source.id || dest.ancestors.includes(source.id))
    throw new AppError('INVALID_DESTINATION', `${quoted(source.name)} cannot be copied into itself.`);
  await checkNameFree(db, dest.id, name);
  const inside = await subtree(db, ctx, source.id, MAX_COPY_ITEMS);
  const now = isoNow();
  const root = folderValues(ctx, { name, itemType: 'VirtualFolder', parentKind: dest.kind, parentId: dest.id }, now);
  const newIds = new Map<string, string>([[source.id, root.id]]);
  const copyOf = <T extends FolderRow | FileRow>(r: T) => ({
    name: r.name,
    itemType: r.item_type,
    parentKind: 'Folder',
    parentId: newIds.get(r.parent_id)!,
    bucket: r.bucket,
    account: r.account,
    key: r.storage_key,
    size: Number(r.size_bytes),
    managed: r.is_managed === 1,
  });
  const folderRows = [root];
  // Only what is ready is copied; what is below a folder that is not is left out with it.
  for (const f of inside.folders) {
    if (f.status !== 'ready' || !newIds.has(f.parent_id)) continue;
    const values = folderValues(ctx, copyOf(f), now);
    newIds.set(f.id, values.id);
    folderRows.push(values);
  }
  const fileRows = inside.files
    .filter((f) => f.status === 'ready' && newIds.has(f.parent_id))
    .map((f) => fileValues(ctx, copyOf(f), undefined, now));
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < folderRows.length; i += 200)
      await tx
        .insertInto('folders')
        .values(folderRows.slice(i, i + 200))
        .execute();
    for (let i = 0; i < fileRows.length; i += 200)
      await tx
        .insertInto('files')
        .values(fileRows.slice(i, i + 200))
        .execute();
  });
  const row = await folderOrThrow(db, ctx.workspaceId, root.id);
  return folderToWire(row, await usersOf(db, [row]));
}

/** The S3 routes serve the local and S3 stores; the Azure routes the Azure store, with its account. */
function checkStorageType(storage: StorageDeps, azure: boolean, account?: string): void {
  if (azure !== (storage.blobs.kind === 'azure')) {
    throw new AppError(
      'STORAGE_NOT_FOUND',
      azure
        ? 'This server does not keep data in Azure Blob Storage.'
        : 'This server keeps data in Azure Blob Storage: use the azure-blob routes.',
    );
  }
  if (azure && account !== storage.azureAccount)
    throw new AppError('STORAGE_NOT_FOUND', `Storage account ${quoted(account)} not found in this workspace.`);
}

/** `POST /api/v1/folders/s3` and `/folders/azure-blob`: a folder pointing into storage the workspace owns. */
export async function createStorageFolder(
  db: Kysely<Database>,
  storage: StorageDeps,
  ctx: Context,
  body: S3FolderCreateBody | AzureFolderCreateBody,
) {
  const azure = 'blobContainerName' in body;
  checkStorageType(storage, azure, azure ? body.blobStorageAccountName : undefined);
  checkItemName(body.name);
  const bucket = await blobCall(() => (azure ? checkContainer(body.blobContainerName) : checkBucket(body.s3BucketName)));
  const key = await checkedPath(azure ? body.blobPrefix : body.s3Prefix);
  if (key === '') throw new AppError('INVALID_STORAGE_PATH', 'The prefix must name a folder, not the root of the bucket.');
  await assertAccess(db, ctx.workspaceId, bucket, key);
  // The local store's own check: a prefix that leads out of its bucket through a link is refused now, not on use.
  if (storage.blobs.localPath) await blobCall(() => storage.blobs.localPath!(bucket, key));
  const dest = await resolveDestination(db, ctx.workspaceId, body.parent.kind, body.parent.id);
  await checkNameFree(db, dest.id, body.name);
  return insertFolder(db, ctx, {
    name: body.name,
    itemType: azure ? 'AzureBlobFolder' : 'S3Folder',
    parentKind: dest.kind,
    parentId: dest.id,
    bucket,
    account: azure ? storage.azureAccount : null,
    key,
    // A folder pointing into storage only ever loses its reference (deleteFolder): not managed, whatever the request claims.
    managed: false,
  });
}

/** `POST /api/v1/files/s3` and `/files/azure-blob`: a file pointing to an object the workspace owns (its size is read from storage). */
export async function createStorageFile(
  db: Kysely<Database>,
  storage: StorageDeps,
  ctx: Context,
  body: S3FileCreateBody | AzureFileCreateBody,
) {
  const azure = 'blobContainerName' in body;
  checkStorageType(storage, azure, azure ? body.blobStorageAccountName : undefined);
  checkItemName(body.name);
  const bucket = await blobCall(() => (azure ? checkContainer(body.blobContainerName) : checkBucket(body.s3BucketName)));
  const key = await blobCall(() => checkKey(azure ? body.blobName : body.s3ObjectKey));
  await assertAccess(db, ctx.workspaceId, bucket, key, true);
  const stat = await blobCall(() => storage.blobs.stat(bucket, key));
  if (!stat) throw new AppError('STORAGE_NOT_FOUND', `Object ${quoted(key)} in ${quoted(bucket)} not found in this workspace.`);
  const dest = await resolveDestination(db, ctx.workspaceId, body.parent.kind, body.parent.id);
  await checkNameFree(db, dest.id, body.name);
  return insertFile(db, ctx, {
    name: body.name,
    itemType: azure ? 'AzureBlobFile' : 'S3File',
    parentKind: dest.kind,
    parentId: dest.id,
    bucket,
    account: azure ? storage.azureAccount : null,
    key,
    size: stat.size,
    // What Runyard does with the object when the item goes, whatever the request claims (releaseBlobs).
    managed: isUploadedObject(ctx.workspaceId, bucket, key),
  });
}

/** The key area of files uploaded to a workspace: `<ws>/files/<fileId>/<name>`. */
export const uploadPrefixOf = (workspaceId: string) => `${workspaceId}/files/`;

/** Whether an object is one uploaded to the workspace: Runyard deletes it with the last item that points to it. */
export function isUploadedObject(workspaceId: string, bucket: string | null, key: string | null): boolean {
  return bucket === defaultBucketOf(workspaceId) && Boolean(key?.startsWith(uploadPrefixOf(workspaceId)));
}

/**
 * After file rows are gone: the uploaded objects no other file points to are removed. Files
 * that point elsewhere (job outputs, a copy's source) only ever lose their reference.
 */
async function releaseBlobs(db: Kysely<Database>, storage: StorageDeps, ctx: Context, files: FileRow[]): Promise<void> {
  for (const f of files) {
    if (!isUploadedObject(ctx.workspaceId, f.bucket, f.storage_key)) continue;
    const other = await db
      .selectFrom('files')
      .select('id')
      .where('bucket', '=', f.bucket)
      .where('storage_key', '=', f.storage_key)
      .executeTakeFirst();
    if (!other) await blobCall(() => storage.blobs.delete(f.bucket!, f.storage_key!));
  }
}

/** `DELETE /api/v1/files/{id}`. */
export async function deleteFile(db: Kysely<Database>, storage: StorageDeps, ctx: Context, id: string, force: boolean): Promise<void> {
  const file = await fileOrThrow(db, ctx.workspaceId, id);
  void force; // An upload goes with its object when it is the last item pointing to it; the item says so (isManagedByLifebit).
  await db.deleteFrom('files').where('id', '=', id).where('workspace_id', '=', ctx.workspaceId).execute();
  await releaseBlobs(db, storage, ctx, [file]);
}

/**
 * `DELETE /api/v1/folders/{id}`: a virtual folder goes with everything in it; a folder pointing
 * into storage loses only its reference. A job's folder (only with force) is scheduled for
 * deletion like `DELETE /api/v1/jobs/{id}/data`, blobs and all.
 */
export async function deleteFolder(db: Kysely<Database>, storage: StorageDeps, ctx: Context, id: string, force: boolean): Promise<void> {
  const folder = await folderOrThrow(db, ctx.workspaceId, id);
  if (folder.job_role) {
    if (!force) {
      throw new AppError(
        'ITEM_MANAGED',
        `"${folder.name}" is the ${folder.job_role} folder of job ${folder.job_id}: delete it with DELETE /api/v1/jobs/${folder.job_id}/data, or add force=true.`,
      );
    }
    return scheduleFolderDeletion(db, ctx, folder);
  }
  if (folder.is_managed === 1 && !force)
    throw new AppError('ITEM_MANAGED', `${quoted(folder.name)} is managed by Runyard; add force=true to delete it anyway.`);
  const inside = folder.item_type === 'VirtualFolder' ? await subtree(db, ctx, folder.id) : { folders: [], files: [] };
  const job = inside.folders.find((f) => f.job_role);
  if (job)
    throw new AppError(
      'ITEM_MANAGED',
      `"${folder.name}" holds "${job.name}", the ${job.job_role} folder of job ${job.job_id}: move it out first.`,
    );
  const managed = [...inside.folders, ...inside.files].find((f) => f.is_managed === 1);
  if (managed && !force)
    throw new AppError(
      'ITEM_MANAGED',
      `"${folder.name}" holds "${managed.name}", which is managed by Runyard; add force=true to delete it anyway.`,
    );
  const folderIds = [folder.id, ...inside.folders.map((f) => f.id)];
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < inside.files.length; i += 500)
      await tx
        .deleteFrom('files')
        .where(
          'id',
          'in',
          inside.files.slice(i, i + 500).map((f) => f.id),
        )
        .execute();
    for (let i = 0; i < folderIds.length; i += 500)
      await tx
        .deleteFrom('folders')
        .where('id', 'in', folderIds.slice(i, i + 500))
        .execute();
  });
  await releaseBlobs(db, storage, ctx, inside.files);
}
