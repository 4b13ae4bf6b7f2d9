import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';
import type * as AzureSdk from '@azure/storage-blob';
import type {
  BlobServiceClient,
  ContainerClient,
  ContainerListBlobFlatSegmentResponse,
  StorageSharedKeyCredential,
} from '@azure/storage-blob';
import {
  type ByteRange,
  BlobKeyError,
  BlobNotFoundError,
  type BlobEntry,
  type BlobStat,
  type BlobStore,
  type ListOptions,
  type ListPage,
  type PutOptions,
} from './blob-store.js';
import { checkContainer, checkKey, checkListOptions, checkPrefix, compareKeys, nameOf } from './keys.js';

// The SDK is loaded when an Azure store is made, not with the server: it costs about 26 MB in each thread that loads it.
const requireSdk = createRequire(import.meta.url);
let sdk: typeof AzureSdk | undefined;
function azureSdk(): typeof AzureSdk {
  return (sdk ??= requireSdk('@azure/storage-blob') as typeof AzureSdk);
}

export interface AzureStoreOptions {
  /** A storage connection string; otherwise accountName and accountKey (and endpoint) are used. */
  connectionString?: string;
  accountName?: string;
  accountKey?: string;
  /** Blob service URL; empty: `https://<accountName>.blob.core.windows.net`. */
  endpoint?: string;
  /** Blobs listed, then deleted (several at a time), per round of deletePrefix. */
  deleteBatchSize?: number;
}

const AZURE_MAX_PAGE = 5000;
const DELETE_CONCURRENCY = 16;
const UPLOAD_BUFFER = 8 * 1024 * 1024;
const UPLOAD_CONCURRENCY = 4;

interface RestErrorLike {
  statusCode?: number;
  code?: string;
  details?: { errorCode?: string };
}
const statusOf = (e: unknown) => (e as RestErrorLike)?.statusCode;
const codeOf = (e: unknown) => (e as RestErrorLike)?.code ?? (e as RestErrorLike)?.details?.errorCode;
const isContainerMissing = (e: unknown) => statusOf(e) === 404 && codeOf(e) === 'ContainerNotFound';

function usableKey(key: string): boolean {
  try {
    checkKey(key);
    return true;
  } catch {
    return false;
  }
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Blob store on Azure Blob Storage (and Azurite): containers are buckets (Azure's stricter container names: no
 * dots, no `--`), block blobs are objects, listBlobsByHierarchy gives one level. The account key stays inside the
 * SDK's credential and is never logged or put in an error.
 */
export class AzureBlobStore implements BlobStore {
  readonly kind = 'azure' as const;
  private readonly service: BlobServiceClient;
  private readonly deleteBatchSize: number;
  /** The storage account's name (for az:// URLs). */
  readonly accountName: string;

  constructor(options: AzureStoreOptions) {
    this.deleteBatchSize = Math.min(AZURE_MAX_PAGE, Math.max(1, options.deleteBatchSize ?? 1000));
    if (options.connectionString) {
      try {
        this.service = azureSdk().BlobServiceClient.fromConnectionString(options.connectionString);
      } catch {
        // The SDK's message could quote the connection string, which holds the account key.
        throw new Error('Azure storage: the connection string is not valid') as Error;
      }
    } else {
      if (!options.accountName || !options.accountKey)
        throw new Error('Azure storage: give a connection string, or an account name and key');
      const endpoint = options.endpoint || `https://${options.accountName}.blob.core.windows.net`;
      let credential: StorageSharedKeyCredential;
      try {
        credential = new (azureSdk().StorageSharedKeyCredential)(options.accountName, options.accountKey);
      } catch {
        throw new Error('Azure storage: the account key is not valid (it must be base64)') as Error;
      }
      this.service = new (azureSdk().BlobServiceClient)(endpoint, credential);
    }
    this.accountName = this.service.accountName;
  }

  private container(bucket: string): ContainerClient {
    return this.service.getContainerClient(checkContainer(bucket));
  }

  async list(bucket: string, prefix: string, options?: ListOptions): Promise<ListPage> {
    const container = this.container(bucket);
    const folder = checkPrefix(prefix);
    const { delimiter, limit, cursor } = checkListOptions(options);
    const entries: BlobEntry[] = [];
    let token = cursor;
    do {
      const maxPageSize = limit === undefined ? AZURE_MAX_PAGE : Math.min(AZURE_MAX_PAGE, limit - entries.length);
      const pages = delimiter
        ? container.listBlobsByHierarchy('/', { prefix: folder || undefined }).byPage({ maxPageSize, continuationToken: token })
        : container.listBlobsFlat({ prefix: folder || undefined }).byPage({ maxPageSize, continuationToken: token });
      let page;
      try {
        page = (await pages.next()).value;
      } catch (e) {
        if (isContainerMissing(e)) return { entries: [] };
        if (token !== undefined && statusOf(e) === 400) throw new BlobKeyError('invalid list cursor');
        throw e;
      }
      if (!page) break;
      const found: BlobEntry[] = [];
      for (const b of page.segment.blobItems ?? []) {
        if (b.name.endsWith('/') || !usableKey(b.name)) continue;
        found.push({
          key: b.name,
          name: nameOf(b.name),
          isDir: false,
          size: b.properties.contentLength ?? 0,
          lastModified: b.properties.lastModified ?? new Date(0),
        });
      }
      const prefixes = 'blobPrefixes' in page.segment ? (page.segment.blobPrefixes ?? []) : [];
      for (const p of prefixes) {
        if (!p.name.endsWith('/') || !usableKey(p.name.slice(0, -1))) continue;
        found.push({ key: p.name, name: nameOf(p.name), isDir: true, size: 0, lastModified: null });
      }
      entries.push(...found.sort((a, b) => compareKeys(a.key, b.key)));
      token = page.continuationToken || undefined;
    } while (token && (limit === undefined || entries.length < limit));
    return token ? { entries, cursor: token } : { entries };
  }

  async put(bucket: string, key: string, body: Buffer | Readable, options?: PutOptions): Promise<{ size: number }> {
    const container = this.container(bucket);
    checkKey(key);
    const blob = container.getBlockBlobClient(key);
    const blobHTTPHeaders = options?.contentType ? { blobContentType: options.contentType } : undefined;
    try {
      if (Buffer.isBuffer(body)) {
        await blob.uploadData(body, { blobHTTPHeaders });
        return { size: body.length };
      }
      let size = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      // uploadStream stages blocks and commits them at the end: a failed upload leaves the old blob as it was.
      await Promise.all([pipeline(body, counted), blob.uploadStream(counted, UPLOAD_BUFFER, UPLOAD_CONCURRENCY, { blobHTTPHeaders })]);
      return { size };
    } catch (e) {
      if (isContainerMissing(e)) throw new BlobNotFoundError(bucket);
      throw e;
    }
  }

  async get(bucket: string, key: string, range?: ByteRange): Promise<Readable> {
    const container = this.container(bucket);
    checkKey(key);
    try {
      const out = await container
        .getBlobClient(key)
        .download(range?.start ?? 0, range?.end === undefined ? undefined : range.end - (range.start ?? 0) + 1);
      return (out.readableStreamBody as Readable | undefined) ?? Readable.from([]);
    } catch (e) {
      if (statusOf(e) === 404) throw new BlobNotFoundError(bucket, key);
      throw e;
    }
  }

  async stat(bucket: string, key: string): Promise<BlobStat | null> {
    const container = this.container(bucket);
    checkKey(key);
    try {
      const props = await container.getBlobClient(key).getProperties();
      return { size: props.contentLength ?? 0, lastModified: props.lastModified ?? new Date(0) };
    } catch (e) {
      if (statusOf(e) === 404) return null;
      throw e;
    }
  }

  async delete(bucket: string, key: string): Promise<void> {
    const container = this.container(bucket);
    checkKey(key);
    try {
      await container.getBlobClient(key).deleteIfExists({ deleteSnapshots: 'include' });
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
    }
  }

  async deletePrefix(bucket: string, prefix: string): Promise<number> {
    const container = this.container(bucket);
    const folder = checkPrefix(prefix);
    if (!folder) throw new BlobKeyError('deletePrefix needs a non-empty prefix');
    let count = 0;
    let token: string | undefined;
    for (;;) {
      let page: ContainerListBlobFlatSegmentResponse | undefined;
      try {
        page = (
          await container.listBlobsFlat({ prefix: folder }).byPage({ maxPageSize: this.deleteBatchSize, continuationToken: token }).next()
        ).value;
      } catch (e) {
        if (isContainerMissing(e)) return count;
        throw e;
      }
      if (!page) return count;
      // Every blob under the folder goes, including ones this interface would not hand out (written by other tools).
      const names = (page.segment.blobItems ?? []).map((b) => b.name);
      await eachLimited(names, DELETE_CONCURRENCY, async (name) => {
        const out = await container.getBlobClient(name).deleteIfExists({ deleteSnapshots: 'include' });
        if (out.succeeded) count += 1;
      });
      if (!page.continuationToken) return count;
      token = page.continuationToken;
    }
  }

  async copy(bucket: string, fromKey: string, toBucket: string, toKey: string): Promise<void> {
    const source = this.container(bucket);
    checkKey(fromKey);
    const target = this.container(toBucket);
    checkKey(toKey);
    const from = source.getBlobClient(fromKey);
    try {
      // Within one account the copy is authorised by the request's own shared key, so the source needs no SAS.
      const poller = await target.getBlobClient(toKey).beginCopyFromURL(from.url, { intervalInMs: 200 });
      const result = await poller.pollUntilDone();
      if (result.copyStatus && result.copyStatus !== 'success') throw new Error(`Azure copy of "${fromKey}" ended ${result.copyStatus}`);
    } catch (e) {
      if (statusOf(e) !== 404) throw e;
      if (isContainerMissing(e) && !(await target.exists())) throw new BlobNotFoundError(toBucket);
      throw new BlobNotFoundError(bucket, fromKey);
    }
  }

  async ensureBucket(bucket: string): Promise<void> {
    await this.container(bucket).createIfNotExists();
  }
}
