import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { BlobKeyError } from '../storage/blob-store.js';
import { checkBucket, checkContainer, checkKey } from '../storage/keys.js';
import type { StorageKind } from '../storage/storage-deps.js';
import type { DatasetRow, FileRow, FolderRow } from '../store/rows.js';
import type { Database } from '../store/schema.js';
import { globProblem } from './glob.js';
import { canAccess } from './workspace-access.js';

/**
 * The File Explorer items and storage objects a job takes as inputs (seed contract §2.4, wire
 * API §2.2-§2.3): `dataItem` parameters name a file, `globPattern` parameters a folder (or a
 * dataset) and a pattern, and `parametersFile` a file or a storage object. Every lookup is
 * scoped by the job's workspace: another workspace's item is not found, as one that does not exist.
 */

/** A parameter as stored in the job (the wire form the client sent). */
export interface StoredParameter {
  name?: unknown;
  prefix?: unknown;
  parameterKind?: unknown;
  textValue?: unknown;
  globPattern?: unknown;
  folder?: unknown;
  dataItem?: { kind?: unknown; item?: unknown } | null;
}

/** An id as the client sends it: a string, or (from a job document) an object with `_id` or `id`. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'string' && value) return value;
  if (value && typeof value === 'object') {
    const o = value as { _id?: unknown; id?: unknown };
    if (typeof o._id === 'string' && o._id) return o._id;
    if (typeof o.id === 'string' && o.id) return o.id;
  }
  return null;
}

/** A file of the workspace that points to an object and is not being deleted. */
export async function findInputFile(db: Kysely<Database>, workspaceId: string, id: string): Promise<FileRow | undefined> {
  const f = await db.selectFrom('files').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
  return f && f.status === 'ready' && f.bucket && f.storage_key ? f : undefined;
}

export type InputFolder = { kind: 'dataset'; row: DatasetRow } | { kind: 'folder'; row: FolderRow };

/** A folder of the workspace (virtual, S3 or Azure) that is not being deleted, or a dataset. */
export async function findInputFolder(db: Kysely<Database>, workspaceId: string, id: string): Promise<InputFolder | undefined> {
  const folder = await db.selectFrom('folders').selectAll().where('id', '=', id).where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (folder) return folder.status === 'ready' ? { kind: 'folder', row: folder } : undefined;
  const dataset = await db
    .selectFrom('datasets')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return dataset && { kind: 'dataset', row: dataset };
}

/** Extensions a parametersFile may have (as the public client requires). */
const PARAMS_FILE_EXTENSION = /\.(json|ya?ml)$/i;

/** Where a job's parametersFile is: a File Explorer file, or an object named by bucket (container) and key. */
export type ParamsFileRef =
  | { kind: 'file'; id: string }
  | { kind: 'object'; type: 'S3File' | 'AzureBlobFile'; bucket: string; key: string; name: string; account: string | null };

/** The parametersFile of a submission in one of its three wire shapes, checked; null when there is none. Throws a message. */
export function paramsFileRef(value: unknown): ParamsFileRef | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object') throw new Error('must be an object with dataItem or dataItemEmbedded');
  const v = value as {
    dataItem?: { kind?: unknown; item?: unknown };
    dataItemEmbedded?: { type?: unknown; data?: Record<string, unknown> };
  };
  if (v.dataItem) {
    const id = idOf(v.dataItem.item);
    if (!id || (v.dataItem.kind !== undefined && v.dataItem.kind !== 'File'))
      throw new Error('dataItem must be {"kind": "File", "item": <file id>}');
    return { kind: 'file', id };
  }
  const embedded = v.dataItemEmbedded;
  if (!embedded || typeof embedded !== 'object' || !embedded.data || typeof embedded.data !== 'object')
    throw new Error('must have dataItem or dataItemEmbedded');
  const d = embedded.data;
  const str = (x: unknown) => (typeof x === 'string' ? x : '');
  try {
    if (embedded.type === 'S3File') {
      const key = checkKey(d.s3ObjectKey);
      return { kind: 'object', type: 'S3File', bucket: checkBucket(d.s3BucketName), key, name: str(d.name) || key, account: null };
    }
    if (embedded.type === 'AzureBlobFile') {
      const key = checkKey(d.blobName);
      const account = str(d.blobStorageAccountName);
      return { kind: 'object', type: 'AzureBlobFile', bucket: checkContainer(d.blobContainerName), key, name: str(d.name) || key, account };
    }
  } catch (e) {
    if (e instanceof BlobKeyError) throw new Error(e.message);
    throw e;
  }
  throw new Error('dataItemEmbedded.type must be S3File or AzureBlobFile');
}

/** Whether the key or name ends in .json, .yaml or .yml. */
export function paramsFileFormat(name: string): 'json' | 'yaml' | null {
  const m = PARAMS_FILE_EXTENSION.exec(name);
  return m ? (m[1].toLowerCase() === 'json' ? 'json' : 'yaml') : null;
}

/** The bucket and key of a parametersFile, checked against the workspace; an AppError when it is not the workspace's. */
export async function resolveParamsFile(
  db: Kysely<Database>,
  storage: StorageKind,
  workspaceId: string,
  ref: ParamsFileRef,
): Promise<{ bucket: string; key: string; name: string }> {
  if (ref.kind === 'file') {
    const file = await findInputFile(db, workspaceId, ref.id);
    if (!file) throw new AppError('FILE_NOT_FOUND', `parametersFile: file ${quoted(ref.id)} not found in this workspace.`);
    return { bucket: file.bucket!, key: file.storage_key!, name: file.name };
  }
  const azure = storage.kind === 'azure';
  const notFound = () =>
    new AppError('STORAGE_NOT_FOUND', `parametersFile: ${quoted(ref.key)} in ${quoted(ref.bucket)} not found in this workspace.`);
  if ((ref.type === 'AzureBlobFile') !== azure) throw notFound();
  if (azure && ref.account !== storage.azureAccount) throw notFound();
  if (!(await canAccess(db, workspaceId, ref.bucket, ref.key, true))) throw notFound();
  return { bucket: ref.bucket, key: ref.key, name: ref.name };
}

interface SubmittedInputs {
  parameters?: StoredParameter[];
  parametersFile?: unknown;
}

/**
 * The submission's checks of its inputs: each dataItem names a file of the workspace, each
 * globPattern a usable pattern and a folder (or dataset) of the workspace, and the
 * parametersFile is a .json/.yaml/.yml file (of the workspace, when a File Explorer file). 404 (the
 * file or folder is not the workspace's) or 400, naming the parameter.
 */
export async function checkJobInputs(
  db: Kysely<Database>,
  storage: StorageKind,
  workspaceId: string,
  body: SubmittedInputs,
): Promise<void> {
  for (const p of body.parameters ?? []) {
    const name = String(p.name);
    if (p.parameterKind === 'dataItem') {
      const id = idOf(p.dataItem?.item);
      if (!id || (p.dataItem?.kind !== undefined && p.dataItem.kind !== 'File'))
        throw new AppError('VALIDATION_FAILED', `parameters: ${quoted(name)} needs dataItem {"kind": "File", "item": <file id>}.`);
      if (!(await findInputFile(db, workspaceId, id)))
        throw new AppError('FILE_NOT_FOUND', `parameters: ${quoted(name)}: file ${quoted(id)} not found in this workspace.`);
    } else if (p.parameterKind === 'globPattern') {
      const problem = globProblem(p.globPattern);
      if (problem) throw new AppError('VALIDATION_FAILED', `parameters: ${quoted(name)}: globPattern ${problem}.`);
      const id = idOf(p.folder);
      if (!id)
        throw new AppError('VALIDATION_FAILED', `parameters: ${quoted(name)} needs the id of the folder its globPattern applies to.`);
      if (!(await findInputFolder(db, workspaceId, id)))
        throw new AppError('FOLDER_NOT_FOUND', `parameters: ${quoted(name)}: folder ${quoted(id)} not found in this workspace.`);
    }
  }
  let ref: ParamsFileRef | null;
  try {
    ref = paramsFileRef(body.parametersFile);
  } catch (e) {
    throw new AppError('VALIDATION_FAILED', `parametersFile ${(e as Error).message}.`);
  }
  if (!ref) return;
  // A storage object (s3://, az://) is checked for the workspace when the job starts (the job fails if it may not read
  // it), as the public client sends any bucket; a File Explorer file must be the workspace's now.
  const name = ref.kind === 'file' ? (await resolveParamsFile(db, storage, workspaceId, ref)).name : ref.name;
  if (!paramsFileFormat(name) && !paramsFileFormat(ref.kind === 'object' ? ref.key : ''))
    throw new AppError('VALIDATION_FAILED', `parametersFile ${quoted(name)} must be a .json, .yaml or .yml file.`);
}
