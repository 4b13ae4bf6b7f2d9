import {
  DATASET_NAMES,
  ITEM_STATUSES,
  MAX_ITEM_NAME,
  isoNow,
  newObjectId,
  type Dataset,
  type DatasetKind,
  type FileItem,
  type FolderItem,
  type ItemStatus,
} from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { DatasetRow, FileRow, FolderRow } from '../store/rows.js';
import type { Database } from '../store/schema.js';

/**
 * The File Explorer's model: datasets, folders and files of a workspace, their wire form, and
 * the checks every change shares (names, destinations, sibling names). Every lookup is scoped by
 * workspace: another workspace's item is not found, the same as one that does not exist.
 */

export type { DatasetRow, FileRow, FolderRow };

/** What a listing shows when no `status` is asked for: everything but what is gone. */
export const DEFAULT_STATUSES: readonly ItemStatus[] = ITEM_STATUSES.filter((s) => s !== 'deleted');

/** Parents deeper than this are refused (and a walk up the tree stops here): no cycles, no unbounded work. */
export const MAX_DEPTH = 64;

const DATASET_ORDER: DatasetKind[] = ['Data', 'AnalysesResults', 'Cohorts'];

const datasetsOfProject = preparedQuery((db, p: { projectId: string }) =>
  db.selectFrom('datasets').selectAll().where('project_id', '=', p.projectId),
);

/** The three datasets of a project, created on first use; safe to call concurrently. */
export async function ensureDatasets(db: Kysely<Database>, workspaceId: string, projectId: string): Promise<DatasetRow[]> {
  const existing = await datasetsOfProject.execute(db, { projectId });
  if (existing.length === DATASET_ORDER.length) return existing;
  const now = isoNow();
  const missing = DATASET_ORDER.filter((kind) => !existing.some((d) => d.kind === kind));
  await db
    .insertInto('datasets')
    .values(
      missing.map((kind) => ({
        id: newObjectId(),
        workspace_id: workspaceId,
        project_id: projectId,
        kind,
        name: DATASET_NAMES[kind],
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['project_id', 'kind']).doNothing())
    .execute();
  return datasetsOfProject.execute(db, { projectId });
}

export async function datasetOfKind(db: Kysely<Database>, workspaceId: string, projectId: string, kind: DatasetKind): Promise<DatasetRow> {
  return (await ensureDatasets(db, workspaceId, projectId)).find((d) => d.kind === kind)!;
}

export function datasetToWire(d: DatasetRow): Dataset {
  return {
    _id: d.id,
    name: d.name,
    folderType: true,
    kind: d.kind as DatasetKind,
    project: { id: d.project_id },
    team: { id: d.workspace_id },
    isManagedByLifebit: true,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
  };
}

export async function findDataset(db: Kysely<Database>, workspaceId: string, id: string): Promise<DatasetRow | undefined> {
  return db.selectFrom('datasets').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
}

export async function findFolder(db: Kysely<Database>, workspaceId: string, id: string): Promise<FolderRow | undefined> {
  return db.selectFrom('folders').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
}

export async function findFile(db: Kysely<Database>, workspaceId: string, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
}

export async function folderOrThrow(db: Kysely<Database>, workspaceId: string, id: string): Promise<FolderRow> {
  const f = await findFolder(db, workspaceId, id);
  if (!f) throw new AppError('FOLDER_NOT_FOUND', `Folder ${id} not found in this workspace.`);
  return f;
}

export async function fileOrThrow(db: Kysely<Database>, workspaceId: string, id: string): Promise<FileRow> {
  const f = await findFile(db, workspaceId, id);
  if (!f) throw new AppError('FILE_NOT_FOUND', `File ${id} not found in this workspace.`);
  return f;
}

/** A name for a folder or file: 1-200 characters, not only white space, no `/`, `\` or control character, not `.` or `..`. */
export function checkItemName(name: string): string {
  const problem = !/\S/.test(name)
    ? 'must not be empty or only white space'
    : name.length > MAX_ITEM_NAME
      ? `must be at most ${MAX_ITEM_NAME} characters`
      : /[/\\]/.test(name)
        ? 'must not contain / or \\'
        : /[\u0000-\u001f\u007f-\u009f]/.test(name)
          ? 'must not contain control characters'
          : name === '.' || name === '..'
            ? 'must not be . or ..'
            : null;
  if (problem) throw new AppError('VALIDATION_FAILED', `name ${problem}.`);
  return name;
}

export type UserInfo = { id: string; name: string; surname: string; email: string };

/** The users these rows name (owner, and who deleted), in one query. */
export async function usersOf(
  db: Kysely<Database>,
  rows: { user_id: string; deleted_by?: string | null }[],
): Promise<Map<string, UserInfo>> {
  const ids = [...new Set(rows.flatMap((r) => [r.user_id, r.deleted_by]).filter((x): x is string => Boolean(x)))];
  if (!ids.length) return new Map();
  const users = await db.selectFrom('users').select(['id', 'name', 'surname', 'email']).where('id', 'in', ids).execute();
  return new Map(users.map((u) => [u.id, u]));
}

const unknownUser = (id: string): UserInfo => ({ id, name: '', surname: '', email: '' });

/** The storage keys of a folder or file by its type: s3BucketName/s3Prefix, or the three blob keys. */
function storageKeys(type: string, r: FolderRow | FileRow, prefixKey: 's3Prefix' | 's3ObjectKey', blobKey: 'blobPrefix' | 'blobName') {
  if (type.startsWith('S3')) return { s3BucketName: r.bucket ?? '', [prefixKey]: r.storage_key ?? '' };
  if (type.startsWith('AzureBlob'))
    return { blobContainerName: r.bucket ?? '', blobStorageAccountName: r.account ?? '', [blobKey]: r.storage_key ?? '' };
  return {};
}

export function folderToWire(f: FolderRow, users: Map<string, UserInfo>): FolderItem {
  return {
    _id: f.id,
    name: f.name,
    kind: 'Folder',
    folderType: f.item_type as FolderItem['folderType'],
    ...storageKeys(f.item_type, f, 's3Prefix', 'blobPrefix'),
    isManagedByLifebit: f.is_managed === 1,
    status: f.status as ItemStatus,
    user: users.get(f.user_id) ?? unknownUser(f.user_id),
    team: { id: f.workspace_id },
    parent: { kind: f.parent_kind, id: f.parent_id },
    ...(f.deleted_by && { deletedBy: users.get(f.deleted_by) ?? unknownUser(f.deleted_by) }),
    ...(f.deletion_date && { deletionDate: f.deletion_date }),
    ...(f.status === 'failedToDelete' && f.status_message && { statusMessage: f.status_message }),
    createdAt: f.created_at,
    updatedAt: f.updated_at,
  };
}

export function fileToWire(f: FileRow, users: Map<string, UserInfo>): FileItem {
  return {
    _id: f.id,
    name: f.name,
    kind: 'File',
    fileType: f.item_type as FileItem['fileType'],
    ...storageKeys(f.item_type, f, 's3ObjectKey', 'blobName'),
    sizeInBytes: Number(f.size_bytes),
    isManagedByLifebit: f.is_managed === 1,
    isBeingRenamed: false,
    status: f.status as ItemStatus,
    user: users.get(f.user_id) ?? unknownUser(f.user_id),
    team: { id: f.workspace_id },
    parent: { kind: f.parent_kind, id: f.parent_id },
    createdAt: f.created_at,
    updatedAt: f.updated_at,
  };
}

/** Where items can be put: a dataset, or a virtual folder that is not being deleted. */
export interface Destination {
  kind: 'Dataset' | 'Folder';
  id: string;
  /** The dataset at the top of the destination's tree. */
  dataset: DatasetRow;
  /** The folders from the destination up to its dataset (the destination first); empty for a dataset. */
  ancestors: string[];
}

/** Walks up from a folder to its dataset; null when the folder is not in a dataset (a job's work directory). */
export async function datasetAbove(
  db: Kysely<Database>,
  workspaceId: string,
  folder: FolderRow,
): Promise<{ dataset: DatasetRow; ancestors: string[] } | null> {
  const ancestors: string[] = [];
  let current: FolderRow | undefined = folder;
  for (let depth = 0; current && depth <= MAX_DEPTH; depth++) {
    ancestors.push(current.id);
    if (current.parent_kind === 'Dataset') {
      const dataset = await findDataset(db, workspaceId, current.parent_id);
      return dataset ? { dataset, ancestors } : null;
    }
    if (current.parent_kind !== 'Folder') return null;
    current = await findFolder(db, workspaceId, current.parent_id);
  }
  return null;
}

/** Resolves `{kind, id}` to a place items can go, or fails: not found (404), or not a dataset or virtual folder (400). */
export async function resolveDestination(
  db: Kysely<Database>,
  workspaceId: string,
  kind: 'Dataset' | 'Folder',
  id: string,
): Promise<Destination> {
  if (kind === 'Dataset') {
    const dataset = await findDataset(db, workspaceId, id);
    if (dataset) return { kind, id, dataset, ancestors: [] };
    if (await findFolder(db, workspaceId, id))
      throw new AppError('INVALID_DESTINATION', `${quoted(id)} is a folder, not a dataset: give its kind as Folder.`);
    throw new AppError('DATASET_NOT_FOUND', `Dataset ${quoted(id)} not found in this workspace.`);
  }
  const folder = await findFolder(db, workspaceId, id);
  if (!folder) {
    if (await findDataset(db, workspaceId, id))
      throw new AppError('INVALID_DESTINATION', `${quoted(id)} is a dataset, not a folder: give its kind as Dataset.`);
    throw new AppError('FOLDER_NOT_FOUND', `Folder ${quoted(id)} not found in this workspace.`);
  }
  if (folder.item_type !== 'VirtualFolder') {
    throw new AppError(
      'INVALID_DESTINATION',
      `Folder "${folder.name}" is a ${folder.item_type}; items can only be placed in a dataset or a virtual folder.`,
    );
  }
  if (folder.status !== 'ready') throw new AppError('DELETION_CONFLICT', `Folder ${quoted(folder.name)} is ${folder.status}.`);
  const above = await datasetAbove(db, workspaceId, folder);
  if (!above) throw new AppError('INVALID_DESTINATION', `Folder ${quoted(folder.name)} is not inside a dataset.`);
  if (above.ancestors.length >= MAX_DEPTH) throw new AppError('INVALID_DESTINATION', `Folders can be nested at most ${MAX_DEPTH} deep.`);
  return { kind, id, dataset: above.dataset, ancestors: above.ancestors };
}

/** Fails with ITEM_NAME_TAKEN when the parent already holds a folder or file (not deleted) of that name, other than `except`. */
export async function checkNameFree(db: Kysely<Database>, parentId: string, name: string, except?: string): Promise<void> {
  for (const table of ['folders', 'files'] as const) {
    const clash = await db
      .selectFrom(table)
      .select('id')
      .where('parent_id', '=', parentId)
      .where('name', '=', name)
      .where('status', '!=', 'deleted')
      .$if(Boolean(except), (q) => q.where('id', '!=', except!))
      .executeTakeFirst();
    if (clash) throw new AppError('ITEM_NAME_TAKEN', `${quoted(name)} already exists in this folder.`);
  }
}
