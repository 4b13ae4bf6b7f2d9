// get_storage_contents (seed contract §4.6, wire reference §2.6): one level of a bucket or an Azure container.
import { pathSegments } from '../datasets/paths.js';
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import type { CloudMeta, CloudName, StorageContent } from './types.js';

/**
 * AWS: `GET /api/v1/data-access/s3/bucket-contents?bucket=&path=&teamId=`. Azure:
 * `GET /api/v1/data-access/azure/container-contents?containerName=&path=<path>/&storageAccountName=&teamId=`,
 * the account taken from `cloudMeta.storage.storageAccount` (the reply of `GET /api/v1/cloud/azure`).
 * Returns the reply's `contents`: entries with `name`, `path` (the key), `isDir`, `size`, `lastModified`.
 * A path with a `.` or `..` segment (in any encoding) is refused before anything is sent (T9).
 */
export async function getStorageContents(
  t: ApiTransport,
  cloudName: CloudName,
  cloudMeta: CloudMeta | null | undefined,
  container: string,
  path: string,
  workspaceId: string,
): Promise<StorageContent[]> {
  if (!container) throw new RunyardValueError('A bucket or container name is required.');
  pathSegments(path);
  let reply: { contents?: StorageContent[] };
  if (cloudName === 'aws') {
    reply = await t.request('GET', '/api/v1/data-access/s3/bucket-contents', { query: { bucket: container, path, teamId: workspaceId } });
  } else if (cloudName === 'azure') {
    const account = cloudMeta?.storage?.storageAccount;
    if (!account) throw new RunyardValueError('Azure storage needs cloudMeta.storage.storageAccount (from GET /api/v1/cloud/azure).');
    reply = await t.request('GET', '/api/v1/data-access/azure/container-contents', {
      query: { containerName: container, path: `${path}/`, storageAccountName: account, teamId: workspaceId },
    });
  } else {
    throw new RunyardValueError(`Unknown cloud "${String(cloudName)}": use aws or azure.`);
  }
  if (!reply || !Array.isArray(reply.contents)) throw new RunyardValueError('The storage listing has no "contents".');
  return reply.contents;
}
