// Object-storage URLs (seed contract §2.9): `s3://bucket/key` as the data items of mounts and job requests.
import { RunyardValueError } from '../errors.js';

export interface S3FolderItem {
  dataItem: { type: 'S3Folder'; data: { name: string; s3BucketName: string; s3Prefix: string } };
}

export interface S3FileItem {
  dataItem: { type: 'S3File'; data: { name: string; s3BucketName: string; s3ObjectKey: string } };
}

const S3_SCHEME = 's3://';

/** Bucket and key of an `s3://` URL; the key is everything after the bucket's slash (may be empty). */
function splitS3Url(url: string): { bucket: string; key: string } {
  if (!url.startsWith(S3_SCHEME)) throw new RunyardValueError(`Invalid S3 URL '${url}': it must start with 's3://'.`);
  const rest = url.slice(S3_SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (!bucket) throw new RunyardValueError(`Invalid S3 URL '${url}': it names no bucket.`);
  return { bucket, key: slash < 0 ? '' : rest.slice(slash + 1).replace(/^\/+/, '') };
}

/** True for an `s3://` URL naming a file: its last segment contains a dot and it has no trailing slash. */
export function isStorageFile(url: string): boolean {
  if (!url.startsWith(S3_SCHEME) || url.endsWith('/')) return false;
  const { key } = splitS3Url(url);
  if (!key) return false;
  return key.slice(key.lastIndexOf('/') + 1).includes('.');
}

/**
 * `s3://bucket/a/b/` as a folder item: `name` is the last prefix segment, `s3Prefix` the whole prefix.
 * A URL not starting with `s3://`, or with no key after the bucket, is a RunyardValueError.
 */
export function parseS3FolderUrl(url: string): S3FolderItem {
  const { bucket, key } = splitS3Url(url);
  const name = key.replace(/\/+$/, '').split('/').pop();
  if (!name) throw new RunyardValueError(`Invalid S3 URL '${url}': it must include a key after the bucket.`);
  return { dataItem: { type: 'S3Folder', data: { name, s3BucketName: bucket, s3Prefix: key } } };
}

/** `s3://bucket/a/file.txt` as a file item; a URL that cannot name a file is a RunyardValueError. */
export function parseS3FileUrl(url: string): S3FileItem {
  const { bucket, key } = splitS3Url(url);
  if (!key) throw new RunyardValueError(`Invalid S3 URL '${url}': it must include a key after the bucket.`);
  if (key.endsWith('/')) throw new RunyardValueError(`Invalid S3 file URL '${url}': it ends with '/', so it names a folder.`);
  const name = key.slice(key.lastIndexOf('/') + 1);
  return { dataItem: { type: 'S3File', data: { name, s3BucketName: bucket, s3ObjectKey: key } } };
}
