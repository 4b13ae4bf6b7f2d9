import type { BlobStore } from './blob-store.js';

/** How the workspace's storage is addressed: the folder type of job folders, and the Azure account. */
export interface StorageKind {
  kind: 'local' | 's3' | 'azure';
  azureAccount: string | null;
}

export interface StorageDeps {
  blobs: BlobStore;
  /** The Azure storage account, when the blob store is Azure. */
  azureAccount: string | null;
}

/** The blob store with its Azure account, if any (for az:// URLs and the Azure wire keys). */
export function storageDepsOf(blobs: BlobStore): StorageDeps {
  const account = (blobs as { accountName?: unknown }).accountName;
  return { blobs, azureAccount: blobs.kind === 'azure' && typeof account === 'string' ? account : null };
}

/** The default bucket (container) of a workspace, in whichever blob store the server uses. */
export function defaultBucketOf(workspaceId: string): string {
  return `runyard-${workspaceId}`;
}
