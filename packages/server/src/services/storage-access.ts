import type { BucketContentsQuery, ContainerContentsQuery } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { BlobKeyError, type BlobEntry, type BlobStore } from '../storage/blob-store.js';
import { checkBucket, checkContainer, checkKey } from '../storage/keys.js';
import { storageDepsOf, type StorageDeps } from '../storage/storage-deps.js';
import type { Database } from '../store/schema.js';
import { canAccess, isInside } from '../staging/workspace-access.js';
import type { Context } from './context.js';

// Defined below services, so that staging checks the same rule; re-exported for the routes and the app.
export { storageDepsOf, type StorageDeps };

/**
 * Which storage a workspace may reach (T9): its own area `<ws>/` of its default bucket, and what
 * its S3 or Azure folders and files point to. Anything else, another workspace's bucket
 * included, is not found. Keys are checked by the blob store's rules (no `..`, no absolute path,
 * no control character, nothing hidden behind percent-encoding) before anything is looked up.
 */

/** Most entries one storage listing returns (the public client does not page). */
export const MAX_LIST_ENTRIES = 100_000;

/** Runs a blob store call; an invalid key or bucket becomes a 400 that names it. */
export async function blobCall<T>(fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof BlobKeyError) throw new AppError('INVALID_STORAGE_PATH', e.message);
    throw e;
  }
}

/** A key or folder path as given (a trailing slash allowed), checked and without its trailing slash; `''` is the root. */
export async function checkedPath(path: string | undefined): Promise<string> {
  if (path === undefined || path === '') return '';
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return blobCall(() => checkKey(trimmed));
}

export async function assertAccess(db: Kysely<Database>, workspaceId: string, bucket: string, key: string, object = false): Promise<void> {
  if (!(await canAccess(db, workspaceId, bucket, key, object))) {
    throw new AppError(
      'STORAGE_NOT_FOUND',
      `${object ? 'Object' : 'Path'} ${quoted(key)} in ${quoted(bucket)} not found in this workspace.`,
    );
  }
}

/** Every entry one level under `prefix`, up to MAX_LIST_ENTRIES. */
export async function listLevel(blobs: BlobStore, bucket: string, prefix: string): Promise<BlobEntry[]> {
  const out: BlobEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await blobCall(() => blobs.list(bucket, prefix, { delimiter: true, limit: 1000, ...(cursor && { cursor }) }));
    out.push(...page.entries);
    cursor = page.cursor;
  } while (cursor && out.length < MAX_LIST_ENTRIES);
  return out.slice(0, MAX_LIST_ENTRIES);
}

/** The wire form of a listing entry: `path` is the key relative to the bucket, without a folder's trailing slash. */
export function contentOf(e: BlobEntry) {
  return {
    name: e.name,
    path: e.isDir && e.key.endsWith('/') ? e.key.slice(0, -1) : e.key,
    isDir: e.isDir,
    size: e.size,
    lastModified: e.lastModified ? e.lastModified.toISOString() : null,
  };
}

async function listFor(db: Kysely<Database>, storage: StorageDeps, ctx: Context, bucket: string, path: string | undefined) {
  const key = await checkedPath(path);
  await assertAccess(db, ctx.workspaceId, bucket, key);
  let entries = await listLevel(storage.blobs, bucket, key);
  // The root of a bucket shows only the workspace's own area.
  if (key === '') entries = entries.filter((e) => isInside(e.key.replace(/\/$/, ''), ctx.workspaceId));
  return { contents: entries.map(contentOf) };
}

/** `GET /api/v1/data-access/s3/bucket-contents`: one level of a bucket the workspace owns. */
export async function bucketContents(db: Kysely<Database>, storage: StorageDeps, ctx: Context, q: BucketContentsQuery) {
  if (storage.blobs.kind === 'azure')
    throw new AppError(
      'STORAGE_NOT_FOUND',
      'This server keeps data in Azure Blob Storage: list it with /api/v1/data-access/azure/container-contents.',
    );
  const bucket = await blobCall(() => checkBucket(q.bucket));
  return listFor(db, storage, ctx, bucket, q.path);
}

/** `GET /api/v1/data-access/azure/container-contents`: one level of a container the workspace owns. */
export async function containerContents(db: Kysely<Database>, storage: StorageDeps, ctx: Context, q: ContainerContentsQuery) {
  if (storage.blobs.kind !== 'azure')
    throw new AppError(
      'STORAGE_NOT_FOUND',
      'This server does not keep data in Azure Blob Storage: list it with /api/v1/data-access/s3/bucket-contents.',
    );
  if (q.storageAccountName !== storage.azureAccount)
    throw new AppError('STORAGE_NOT_FOUND', `Storage account ${quoted(q.storageAccountName)} not found in this workspace.`);
  const container = await blobCall(() => checkContainer(q.containerName));
  return listFor(db, storage, ctx, container, q.path);
}

/** `GET /api/v1/cloud/azure`: the storage account when data is in Azure; `{}` otherwise (job logs then carry s3BucketName). */
export function cloudAzure(storage: StorageDeps): { storage?: { storageAccount: string } } {
  return storage.blobs.kind === 'azure' && storage.azureAccount ? { storage: { storageAccount: storage.azureAccount } } : {};
}
