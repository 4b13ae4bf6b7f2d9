// `s3://bucket/prefix` and `az://<account>.blob.core.windows.net/container/prefix` as the arguments of
// get_storage_contents; a prefix with `.` or `..` segments (in any encoding) is refused (T9).
import { pathSegments } from '../datasets/paths.js';
import { RunyardValueError } from '../errors.js';
import type { CloudMeta, CloudName } from './types.js';

export interface StorageAddress {
  cloudName: CloudName;
  /** The bucket or container. */
  container: string;
  /** The prefix inside it, without leading or trailing slash ('' for the top). */
  path: string;
  /** For Azure: `{storage: {storageAccount}}`, as get_storage_contents takes it. */
  cloudMeta: CloudMeta;
}

const AZURE_SUFFIX = '.blob.core.windows.net';

/** Parses a storage URL; anything but `s3://bucket[/prefix]` or `az://<account>.blob.core.windows.net/<container>[/prefix]` is a RunyardValueError. */
export function parseStorageAddress(url: string): StorageAddress {
  const m = /^(s3|az):\/\/([^/]*)(?:\/(.*))?$/.exec(url ?? '');
  if (!m)
    throw new RunyardValueError(
      `Invalid storage URL '${url}': use s3://bucket/prefix or az://<account>${AZURE_SUFFIX}/<container>/prefix.`,
    );
  const [, scheme, host, rest = ''] = m;
  if (scheme === 's3') {
    if (!host) throw new RunyardValueError(`Invalid S3 URL '${url}': it names no bucket.`);
    return { cloudName: 'aws', container: host, path: pathSegments(rest).join('/'), cloudMeta: {} };
  }
  if (!host.endsWith(AZURE_SUFFIX) || host.length === AZURE_SUFFIX.length) {
    throw new RunyardValueError(`Invalid Azure URL '${url}': the host must be <account>${AZURE_SUFFIX}.`);
  }
  const [container, ...prefix] = pathSegments(rest);
  if (!container) throw new RunyardValueError(`Invalid Azure URL '${url}': it names no container.`);
  return {
    cloudName: 'azure',
    container,
    path: prefix.join('/'),
    cloudMeta: { storage: { storageAccount: host.slice(0, -AZURE_SUFFIX.length) } },
  };
}
