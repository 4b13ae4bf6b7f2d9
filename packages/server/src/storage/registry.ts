import type { Config } from '../config.js';
import { AzureBlobStore } from './azure.js';
import type { BlobStore } from './blob-store.js';
import { LocalBlobStore, localStorageRoot } from './local.js';
import { S3BlobStore } from './s3.js';

/** The configuration keys a blob store is built from. */
export type StorageConfig = Pick<
  Config,
  | 'dataDir'
  | 'storageBackend'
  | 's3Endpoint'
  | 's3Region'
  | 's3AccessKeyId'
  | 's3SecretAccessKey'
  | 's3ForcePathStyle'
  | 'azureConnectionString'
  | 'azureAccountName'
  | 'azureAccountKey'
  | 'azureBlobEndpoint'
>;

/** The blob store the configuration chooses (RUNYARD_STORAGE_BACKEND): local (the default), s3 or azure. */
export function createBlobStore(config: StorageConfig): BlobStore {
  switch (config.storageBackend) {
    case 'local':
      return new LocalBlobStore(localStorageRoot(config.dataDir));
    case 's3':
      return new S3BlobStore({
        endpoint: config.s3Endpoint,
        region: config.s3Region,
        accessKeyId: config.s3AccessKeyId,
        secretAccessKey: config.s3SecretAccessKey,
        forcePathStyle: config.s3ForcePathStyle,
      });
    case 'azure':
      return new AzureBlobStore({
        connectionString: config.azureConnectionString,
        accountName: config.azureAccountName,
        accountKey: config.azureAccountKey,
        endpoint: config.azureBlobEndpoint,
      });
    default:
      throw new Error(`unknown storage backend ${JSON.stringify(config.storageBackend)}`);
  }
}
