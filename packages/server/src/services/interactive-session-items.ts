import { DATASET_NAMES, MAX_SESSION_MOUNTS, isObjectId, type SessionDataItem } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { findInputFile, idOf } from '../staging/input-refs.js';
import { canAccess } from '../staging/workspace-access.js';
import type { FolderRow } from '../store/rows.js';
import type { Database } from '../store/schema.js';
import { checkedPath } from './storage-access.js';
import type { SessionItem } from '../scheduler/session-mounts.js';

/**
 * The files (`dataItems`) and linked folders (`fuseFileSystems`) of a session, checked against
 * the workspace and resolved to where they are: a File Explorer file or storage folder of the
 * workspace, or an object or prefix of storage the workspace may read (T9). Anything else is
 * refused (400 for a malformed item, 404 for one the workspace does not have), naming the item.
 */

/** One item as the session row keeps it, as the client gave it. */
export type ResolvedSessionItem = SessionItem<SessionDataItem>;

/** A folder whose type cannot be linked (a virtual folder): the mount routes answer it with the reference's own message. */
export class FolderTypeError extends AppError {
  constructor(message: string) {
    super('VALIDATION_FAILED', message);
  }
}

/** A mount name: what the session shows under mounts/, so no path separator and nothing hidden. */
export function checkMountName(name: string, where: string): string {
  const problem = !/\S/.test(name)
    ? 'is empty'
    : name.length > 200
      ? 'is longer than 200 characters'
      : /[/\\]/.test(name)
        ? 'contains / or \\'
        : /[\u0000-\u001f\u007f-\u009f]/.test(name)
          ? 'contains a control character'
          : name === '.' || name === '..' || name.startsWith('.')
            ? 'starts with a dot'
            : null;
  if (problem) throw new AppError('VALIDATION_FAILED', `${where}: the name ${quoted(name)} ${problem}.`);
  return name;
}

const lastSegment = (key: string) => key.split('/').filter(Boolean).pop() ?? '';

async function fileItem(db: Kysely<Database>, workspaceId: string, given: SessionDataItem, where: string): Promise<ResolvedSessionItem> {
  const id = idOf(given.item);
  if (!id || !isObjectId(id)) throw new AppError('VALIDATION_FAILED', `${where}: item must be the id of a file.`);
  const file = await findInputFile(db, workspaceId, id);
  if (!file) throw new AppError('FILE_NOT_FOUND', `${where}: file ${quoted(id)} not found in this workspace.`);
  return {
    given,
    kind: 'file',
    name: checkMountName(given.name || file.name, where),
    itemId: file.id,
    bucket: file.bucket!,
    key: file.storage_key!,
    account: file.account,
  };
}

/** A folder the session can link: one that points into storage (not a virtual folder or a dataset) and is not being deleted. */
function storageFolder(folder: FolderRow | undefined, given: SessionDataItem, where: string, what: string): ResolvedSessionItem {
  if (!folder || folder.status !== 'ready')
    throw new AppError('FOLDER_NOT_FOUND', `${where}: folder ${quoted(what)} not found in this workspace.`);
  if (!folder.bucket || folder.storage_key === null || folder.item_type === 'VirtualFolder') {
    throw new FolderTypeError(
      `${where}: folder ${quoted(folder.name)} is a ${folder.item_type}; only folders that point into storage (S3Folder, AzureBlobFolder) can be linked.`,
    );
  }
  return {
    given,
    kind: 'folder',
    name: checkMountName(given.name || given.data?.name || folder.name, where),
    itemId: folder.id,
    bucket: folder.bucket,
    key: folder.storage_key,
    account: folder.account,
  };
}

async function folderById(db: Kysely<Database>, workspaceId: string, given: SessionDataItem, where: string): Promise<ResolvedSessionItem> {
  const id = idOf(given.item);
  if (!id || !isObjectId(id)) throw new AppError('VALIDATION_FAILED', `${where}: item must be the id of a folder.`);
  const folder = await db.selectFrom('folders').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
  return storageFolder(folder, given, where, id);
}

/**
 * A File Explorer folder as the public client's `--link project/Data/x` sends it: the project's
 * name in s3BucketName and the path inside the project in s3Prefix (wire-api §2.11). Null when the
 * workspace has no project of that name.
 */
async function folderByProjectPath(
  db: Kysely<Database>,
  workspaceId: string,
  projectName: string,
  path: string,
  given: SessionDataItem,
  where: string,
): Promise<ResolvedSessionItem | null> {
  const project = await db
    .selectFrom('projects')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', projectName)
    .executeTakeFirst();
  if (!project) return null;
  const [datasetName, ...names] = path.split('/').filter(Boolean);
  const kind = Object.entries(DATASET_NAMES).find(([, n]) => n === datasetName)?.[0];
  const dataset =
    kind && (await db.selectFrom('datasets').select('id').where('project_id', '=', project.id).where('kind', '=', kind).executeTakeFirst());
  const shown = `${projectName}/${path}`;
  if (!dataset || !names.length) throw new AppError('FOLDER_NOT_FOUND', `${where}: folder ${quoted(shown)} not found in this workspace.`);
  let parent = dataset.id;
  let folder: FolderRow | undefined;
  for (const name of names) {
    folder = await db
      .selectFrom('folders')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('parent_id', '=', parent)
      .where('name', '=', name)
      .where('status', '!=', 'deleted')
      .executeTakeFirst();
    if (!folder) break;
    parent = folder.id;
  }
  return storageFolder(folder, given, where, shown);
}

async function storageItem(db: Kysely<Database>, workspaceId: string, given: SessionDataItem, where: string): Promise<ResolvedSessionItem> {
  const data = given.data ?? {};
  const bucket = data.s3BucketName;
  if (!bucket) throw new AppError('VALIDATION_FAILED', `${where}: data.s3BucketName is required.`);
  if (given.type === 'S3File') {
    if (!data.s3ObjectKey) throw new AppError('VALIDATION_FAILED', `${where}: data.s3ObjectKey is required.`);
    const key = await checkedPath(data.s3ObjectKey);
    if (!(await canAccess(db, workspaceId, bucket, key, true)))
      throw new AppError('STORAGE_NOT_FOUND', `${where}: object ${quoted(key)} in ${quoted(bucket)} not found in this workspace.`);
    return {
      given,
      kind: 'file',
      name: checkMountName(data.name ? lastSegment(data.name) : lastSegment(key), where),
      itemId: null,
      bucket,
      key,
      account: null,
    };
  }
  if (!data.s3Prefix) throw new AppError('VALIDATION_FAILED', `${where}: data.s3Prefix is required (a folder, not the whole bucket).`);
  const key = await checkedPath(data.s3Prefix);
  if (await canAccess(db, workspaceId, bucket, key)) {
    return { given, kind: 'folder', name: checkMountName(data.name || lastSegment(key), where), itemId: null, bucket, key, account: null };
  }
  const explorer = await folderByProjectPath(db, workspaceId, bucket, key, given, where);
  if (explorer) return explorer;
  throw new AppError('STORAGE_NOT_FOUND', `${where}: folder ${quoted(key)} in ${quoted(bucket)} not found in this workspace.`);
}

/** One item, by its shape. */
export async function resolveItem(
  db: Kysely<Database>,
  workspaceId: string,
  given: SessionDataItem,
  where: string,
): Promise<ResolvedSessionItem> {
  if (given.type === 'S3File' || given.type === 'S3Folder') return storageItem(db, workspaceId, given, where);
  if (given.kind === 'File') return fileItem(db, workspaceId, given, where);
  if (given.kind === 'Folder') return folderById(db, workspaceId, given, where);
  throw new AppError(
    'VALIDATION_FAILED',
    `${where} must be {"kind": "File"|"Folder", "item": <id>} or {"type": "S3File"|"S3Folder", "data": {...}}.`,
  );
}

/**
 * The session's items after this change: those it has, then `dataItems` and `fuseFileSystems`
 * resolved. At most MAX_SESSION_MOUNTS in all, and no two with the same name under mounts/.
 */
export async function resolveSessionItems(
  db: Kysely<Database>,
  workspaceId: string,
  have: { files: ResolvedSessionItem[]; folders: ResolvedSessionItem[] },
  add: { dataItems?: SessionDataItem[]; fuseFileSystems?: SessionDataItem[] },
): Promise<{ files: ResolvedSessionItem[]; folders: ResolvedSessionItem[] }> {
  const files = [...have.files];
  const folders = [...have.folders];
  for (const [i, given] of (add.dataItems ?? []).entries()) files.push(await resolveItem(db, workspaceId, given, `dataItems[${i}]`));
  for (const [i, given] of (add.fuseFileSystems ?? []).entries()) {
    const where = `fuseFileSystems[${i}]`;
    const item = await resolveItem(db, workspaceId, given, where);
    if (item.kind !== 'folder') throw new AppError('VALIDATION_FAILED', `${where} is a file; give files in dataItems.`);
    folders.push(item);
  }
  const all = [...files, ...folders];
  if (all.length > MAX_SESSION_MOUNTS) {
    throw new AppError(
      'VALIDATION_FAILED',
      `A session holds at most ${MAX_SESSION_MOUNTS} files and linked folders; this would make ${all.length}.`,
    );
  }
  const seen = new Set<string>();
  for (const item of all) {
    if (seen.has(item.name))
      throw new AppError('VALIDATION_FAILED', `Two items would be mounted with the name ${quoted(item.name)}; mount names must differ.`);
    seen.add(item.name);
  }
  return { files, folders };
}
