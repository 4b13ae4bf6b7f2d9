import { BlobKeyError } from './blob-store.js';
import { checkBucket, checkContainer, checkKey, checkPrefix } from './keys.js';

/**
 * The link forms of stored data on the wire: `s3://<bucket>/<key>` and
 * `az://<account>.blob.core.windows.net/<container>/<blob>`. Keys are written as they are (not percent-encoded),
 * as the AWS CLI and the reference client do; a key ending with `/` names a folder.
 */

const AZURE_HOST_SUFFIX = '.blob.core.windows.net';

export class StorageUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageUrlError';
  }
}

export interface S3Location {
  kind: 's3';
  bucket: string;
  /** `''` for the bucket itself; ends with `/` for a folder. */
  key: string;
}

export interface AzureLocation {
  kind: 'azure';
  account: string;
  container: string;
  /** `''` for the container itself; ends with `/` for a folder. */
  key: string;
}

export type StorageLocation = S3Location | AzureLocation;

/** A key or folder key for a URL: `''`, a key, or a folder ending with `/`. */
function checkedPath(key: string, what: string): string {
  if (key === '') return '';
  try {
    return key.endsWith('/') ? checkPrefix(key) : checkKey(key);
  } catch (e) {
    if (e instanceof BlobKeyError) throw new StorageUrlError(`${what}: ${e.message}`);
    throw e;
  }
}

function checkedName(check: (name: string) => string, name: string, what: string): string {
  try {
    return check(name);
  } catch (e) {
    if (e instanceof BlobKeyError) throw new StorageUrlError(`${what}: ${e.message}`);
    throw e;
  }
}

/** An Azure storage account name: 3-24 lowercase letters and digits. */
function checkAccount(account: string, what: string): string {
  if (!/^[a-z0-9]{3,24}$/.test(account)) {
    throw new StorageUrlError(`${what}: storage account name ${JSON.stringify(account)} must be 3 to 24 lowercase letters and digits`);
  }
  return account;
}

/** `s3://<bucket>/<key>`; the key may be empty (the bucket) or a folder ending with `/`. */
export function s3Url(bucket: string, key = ''): string {
  const b = checkedName(checkBucket, bucket, 's3 URL');
  return `s3://${b}/${checkedPath(key, 's3 URL')}`;
}

/** `az://<account>.blob.core.windows.net/<container>/<blob>`; the blob may be empty (the container) or a folder ending with `/`. */
export function azureUrl(account: string, container: string, key = ''): string {
  const a = checkAccount(account, 'az URL');
  const c = checkedName(checkContainer, container, 'az URL');
  return `az://${a}${AZURE_HOST_SUFFIX}/${c}/${checkedPath(key, 'az URL')}`;
}

/** Parses `s3://bucket`, `s3://bucket/`, `s3://bucket/key` or `s3://bucket/folder/`. */
export function parseS3Url(url: string): S3Location {
  if (typeof url !== 'string' || !url.startsWith('s3://'))
    throw new StorageUrlError(`not an s3 URL (it must start with s3://): ${JSON.stringify(url)}`);
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (!bucket) throw new StorageUrlError(`s3 URL ${JSON.stringify(url)} has no bucket`);
  const key = slash < 0 ? '' : rest.slice(slash + 1);
  return {
    kind: 's3',
    bucket: checkedName(checkBucket, bucket, `s3 URL ${JSON.stringify(url)}`),
    key: checkedPath(key, `s3 URL ${JSON.stringify(url)}`),
  };
}

/** Parses `az://<account>.blob.core.windows.net/<container>[/<blob>]`; a query string, fragment or port is refused. */
export function parseAzureUrl(url: string): AzureLocation {
  if (typeof url !== 'string' || !url.startsWith('az://'))
    throw new StorageUrlError(`not an az URL (it must start with az://): ${JSON.stringify(url)}`);
  const what = `az URL ${JSON.stringify(url)}`;
  if (url.includes('?')) throw new StorageUrlError(`${what} must not have a query string`);
  if (url.includes('#')) throw new StorageUrlError(`${what} must not have a fragment`);
  const rest = url.slice('az://'.length);
  const slash = rest.indexOf('/');
  const host = slash < 0 ? rest : rest.slice(0, slash);
  if (!host.endsWith(AZURE_HOST_SUFFIX)) throw new StorageUrlError(`${what}: the host must be <account>${AZURE_HOST_SUFFIX}`);
  const account = checkAccount(host.slice(0, -AZURE_HOST_SUFFIX.length), what);
  const path = slash < 0 ? '' : rest.slice(slash + 1);
  const cut = path.indexOf('/');
  const container = cut < 0 ? path : path.slice(0, cut);
  if (!container) throw new StorageUrlError(`${what} has no container`);
  const key = cut < 0 ? '' : path.slice(cut + 1);
  return { kind: 'azure', account, container: checkedName(checkContainer, container, what), key: checkedPath(key, what) };
}

/** Parses either form, by its scheme. */
export function parseStorageUrl(url: string): StorageLocation {
  if (typeof url === 'string' && url.startsWith('s3://')) return parseS3Url(url);
  if (typeof url === 'string' && url.startsWith('az://')) return parseAzureUrl(url);
  throw new StorageUrlError(`not a storage URL (it must start with s3:// or az://): ${JSON.stringify(url)}`);
}
