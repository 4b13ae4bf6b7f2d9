import type { RunyardApi } from '../../api/client';

export interface StorageEntry {
  name: string;
  /** The key relative to the bucket (a folder's without its trailing slash). */
  path: string;
  isDir: boolean;
  size: number;
  lastModified: string | null;
}

/**
 * The bucket (or Azure container) that holds a workspace's data: the server names it
 * `runyard-<workspace id>` (storage/storage-deps.ts defaultBucketOf), with the workspace's own area `<id>/` in it.
 */
export const workspaceBucket = (teamId: string) => `runyard-${teamId}`;

/** The Azure storage account when the server keeps data in Azure (`GET /api/v1/cloud/azure`), else null. */
export async function azureAccountOf(api: RunyardApi, teamId: string): Promise<string | null> {
  const reply = await api.request<{ storage?: { storageAccount?: string } }>('GET', '/api/v1/cloud/azure', { query: { teamId } });
  return reply?.storage?.storageAccount ?? null;
}

/** One level of a bucket, as `runyard storage ls s3://bucket/prefix` (or az://) lists it. */
export async function listStorage(
  api: RunyardApi,
  teamId: string,
  bucket: string,
  prefix: string,
  azureAccount: string | null,
): Promise<StorageEntry[]> {
  const reply = azureAccount
    ? await api.request<{ contents: StorageEntry[] }>('GET', '/api/v1/data-access/azure/container-contents', {
        query: { containerName: bucket, storageAccountName: azureAccount, path: prefix ? `${prefix}/` : '', teamId },
      })
    : await api.request<{ contents: StorageEntry[] }>('GET', '/api/v1/data-access/s3/bucket-contents', {
        query: { bucket, path: prefix, teamId },
      });
  const entries = reply?.contents ?? [];
  return [...entries.filter((e) => e.isDir), ...entries.filter((e) => !e.isDir)];
}
