// find_cloud (wire reference §2.5): which cloud a job's data is in, told by its `logs` location;
// and the link-ready URLs of keys in it.
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { NoCloudForWorkspaceError } from './errors.js';
import type { CloudMeta, CloudName, CloudStorageKeys, StorageLocation } from './types.js';

export interface FoundCloud {
  cloudName: CloudName;
  /** `{}` for AWS; the reply of `GET /api/v1/cloud/azure` (with `storage.storageAccount`) for Azure. */
  cloudMeta: CloudMeta;
  keys: CloudStorageKeys;
}

const AWS_KEYS: CloudStorageKeys = { container: 's3BucketName', prefix: 's3Prefix', scheme: 's3' };
const AZURE_KEYS: CloudStorageKeys = { container: 'blobContainerName', prefix: 'blobPrefix', scheme: 'az' };

/**
 * A location holding `s3BucketName` is AWS (S3 or an S3-like store) and costs no request; anything
 * else asks `GET /api/v1/cloud/azure?teamId=W`, whose non-empty answer means Azure. An empty answer
 * is a NoCloudForWorkspaceError.
 */
export async function findCloud(t: ApiTransport, workspaceId: string, location: StorageLocation | null | undefined): Promise<FoundCloud> {
  if (location && typeof location === 'object' && 's3BucketName' in location) return { cloudName: 'aws', cloudMeta: {}, keys: AWS_KEYS };
  const meta = await t.request<CloudMeta | null>('GET', '/api/v1/cloud/azure', { query: { teamId: workspaceId } });
  if (meta && typeof meta === 'object' && Object.keys(meta).length > 0) return { cloudName: 'azure', cloudMeta: meta, keys: AZURE_KEYS };
  throw new NoCloudForWorkspaceError(workspaceId);
}

/** The Azure host of a storage account: `<account>.blob.core.windows.net`. */
export const azureHost = (account: string) => `${account}.blob.core.windows.net`;

/**
 * A link-ready URL of a key: `s3://bucket/key`, or `az://<account>.blob.core.windows.net/container/key`.
 * (The public client puts the workspace id where the account goes for logs and results; Runyard
 * uses the storage account that `GET /api/v1/cloud/azure` names, so that the URL can be used as it is.)
 */
export function storageUrl(found: FoundCloud, container: string, key: string, workspaceId: string): string {
  if (found.keys.scheme === 's3') return `s3://${container}/${key}`;
  const account = found.cloudMeta.storage?.storageAccount || workspaceId;
  return `az://${azureHost(account)}/${container}/${key}`;
}

/** The container and prefix of a job's `logs` or `results` for the cloud found; missing keys are a RunyardValueError. */
export function containerAndPrefix(found: FoundCloud, location: StorageLocation, what: string): { container: string; prefix: string } {
  const container = location[found.keys.container];
  const prefix = location[found.keys.prefix];
  if (typeof container !== 'string' || typeof prefix !== 'string' || !container) {
    throw new RunyardValueError(`The job's ${what} location has no ${found.keys.container} and ${found.keys.prefix}.`);
  }
  return { container, prefix };
}
