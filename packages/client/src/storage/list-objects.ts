// Objects of the workspace's storage as a page or a download finds them (browser-safe): every object
// under a folder, and the address of one object for a download link.
import { encodeQuery, joinPath, type ApiTransport } from '../api-transport.js';
import { getStorageContents } from '../job-data/storage-contents.js';
import type { CloudMeta, CloudName } from '../job-data/types.js';

/** An object to download: where it is, and its size (from a listing). */
export interface StoredObject {
  bucket: string;
  key: string;
  size: number;
}

/** The route that streams one object (`Range` for a part). */
export const STORAGE_OBJECT_ROUTE = '/api/runyard/storage/object';

/**
 * The path and query of `GET /api/runyard/storage/object` for an object of the workspace, below
 * `basePath`: what a page gives `<a href download>` (the reply is an attachment named as the object).
 */
export function storageObjectPath(basePath: string, workspaceId: string, object: Pick<StoredObject, 'bucket' | 'key'>): string {
  return joinPath(basePath, STORAGE_OBJECT_ROUTE) + encodeQuery({ bucket: object.bucket, key: object.key, teamId: workspaceId });
}

/** Every object under `prefix` (through the one-level storage listings), with its path below prefix. */
export async function listObjects(
  t: ApiTransport,
  workspaceId: string,
  cloud: { name: CloudName; meta?: CloudMeta | null },
  bucket: string,
  prefix: string,
): Promise<Array<StoredObject & { relative: string }>> {
  const out: Array<StoredObject & { relative: string }> = [];
  const base = prefix.replace(/\/+$/, '');
  const visit = async (folder: string): Promise<void> => {
    for (const entry of await getStorageContents(t, cloud.name, cloud.meta, bucket, folder, workspaceId)) {
      const key = entry.path.replace(/\/+$/, '');
      if (entry.isDir) await visit(key);
      else out.push({ bucket, key, size: Number(entry.size ?? 0), relative: key.slice(base.length + 1) });
    }
  };
  await visit(base);
  return out;
}
