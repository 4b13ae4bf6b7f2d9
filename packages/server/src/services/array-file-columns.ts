import type { ArrayFileMetadataQuery, ArrayFileMetadataReply } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { ARRAY_FILE_SEPARATOR_NAMES, readHeaderLine, separatorChar, splitFields } from '../engines/array-file.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { BlobNotFoundError } from '../storage/blob-store.js';
import { checkBucket, checkContainer, checkKey } from '../storage/keys.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { canAccess } from '../staging/workspace-access.js';
import { blobCall, type StorageDeps } from './storage-access.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The object key of the query: standard base64, sent without URL-encoding (wire-api §2.1), so a
 * `+` in it reached us as a space; base64 has no spaces, so each one was a `+`.
 */
function objectKeyOf(encoded: string): string {
  const b64 = encoded.replaceAll(' ', '+');
  if (!BASE64.test(b64)) throw new AppError('VALIDATION_FAILED', `s3ObjectKey ${quoted(encoded)} is not standard base64 of an object key.`);
  const key = Buffer.from(b64, 'base64').toString('utf8');
  if (!key) throw new AppError('VALIDATION_FAILED', 's3ObjectKey is empty.');
  return key;
}

/**
 * `GET /api/v1/jobs/array-file/metadata`: the columns of an array file's header row, read from
 * the store (only as far as the first line). The file must be one the workspace may read.
 */
export async function arrayFileColumns(
  db: Kysely<Database>,
  storage: StorageDeps,
  ctx: Context,
  q: ArrayFileMetadataQuery,
): Promise<ArrayFileMetadataReply> {
  const sep = separatorChar(q.separator);
  if (sep === undefined) {
    throw new AppError(
      'VALIDATION_FAILED',
      `separator ${quoted(q.separator)} is not one of ${ARRAY_FILE_SEPARATOR_NAMES.map((s) => quoted(s)).join(', ')}.`,
    );
  }
  // The public client sends s3BucketName; on a server that keeps data in Azure it names the container.
  const bucket = await blobCall(() => (storage.blobs.kind === 'azure' ? checkContainer : checkBucket)(q.s3BucketName));
  const key = await blobCall(() => checkKey(objectKeyOf(q.s3ObjectKey)));
  // Not echoing the key: what another workspace's key names is not confirmed or repeated.
  if (!(await canAccess(db, ctx.workspaceId, bucket, key, true)))
    throw new AppError('STORAGE_NOT_FOUND', `The array file (s3ObjectKey) in ${quoted(bucket)} is not found in this workspace.`);
  let line: string | null;
  try {
    line = await readHeaderLine(await storage.blobs.get(bucket, key));
  } catch (e) {
    if (e instanceof BlobNotFoundError) throw new AppError('STORAGE_NOT_FOUND', `The array file ${quoted(key)} is not in the store.`);
    if (e instanceof RangeError) throw new AppError('VALIDATION_FAILED', `The array file ${quoted(key)} has no header row: ${e.message}.`);
    throw e;
  }
  if (line === null) throw new AppError('VALIDATION_FAILED', `The array file ${quoted(key)} is empty: it needs a header row.`);
  return { headers: splitFields(line, sep).map((name, index) => ({ index, name: name.trim() })) };
}
