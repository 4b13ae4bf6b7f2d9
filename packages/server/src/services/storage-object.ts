import type { StorageObjectQuery } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { RawReply } from './raw-reply.js';
import { canAccess } from '../staging/workspace-access.js';
import type { ByteRange } from '../storage/blob-store.js';
import { checkBucket, checkContainer, checkKey, nameOf } from '../storage/keys.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { blobCall, type StorageDeps } from './storage-access.js';

/**
 * The byte range a `Range` header asks for, of an object of `size` bytes: null for none (or one
 * this route does not serve: several ranges, another unit), which is answered whole.
 */
export function requestedRange(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  // An empty object has no byte to point at (a suffix range would be `bytes 0--1/0`): answered whole, as a server may.
  if (!m || (m[1] === '' && m[2] === '') || size === 0) return null;
  if (m[1] === '') {
    // The last N bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * `GET /api/runyard/storage/object`: an object the workspace may read (the rule of the storage
 * listings, T9), streamed; with `Range: bytes=a-b` (or `a-`, `-n`) 206 with that part, so that a
 * download resumes where it stopped. 404 for an object that is not there or not the workspace's.
 */
export async function storageObject(
  db: Kysely<Database>,
  storage: StorageDeps,
  ctx: Context,
  q: StorageObjectQuery,
  rangeHeader: string | undefined,
): Promise<RawReply> {
  const bucket = await blobCall(() => (storage.blobs.kind === 'azure' ? checkContainer : checkBucket)(q.bucket));
  const key = await blobCall(() => checkKey(q.key));
  const notFound = () => new AppError('STORAGE_NOT_FOUND', `Object ${quoted(key)} in ${quoted(bucket)} not found in this workspace.`);
  if (!(await canAccess(db, ctx.workspaceId, bucket, key, true))) throw notFound();
  // A key that passes through a link out of its bucket (a job can plant one in its results) is refused as such: 4xx, never 500.
  const stat = await blobCall(() => storage.blobs.stat(bucket, key));
  if (!stat) throw notFound();
  const range = requestedRange(rangeHeader, stat.size);
  if (range === 'unsatisfiable')
    throw new AppError(
      'RANGE_NOT_SATISFIABLE',
      `The object has ${stat.size} bytes; the range ${quoted(rangeHeader ?? '')} is not within them.`,
      { 'content-range': `bytes */${stat.size}` },
    );
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'accept-ranges': 'bytes',
    'last-modified': stat.lastModified.toUTCString(),
    'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(nameOf(key))}`,
    'content-length': String(range ? range.end! - range.start + 1 : stat.size),
    ...(range && { 'content-range': `bytes ${range.start}-${range.end}/${stat.size}` }),
  };
  return new RawReply(range ? 206 : 200, headers, await blobCall(() => storage.blobs.get(bucket, key, range ?? undefined)));
}
