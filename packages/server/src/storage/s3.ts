import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { createRequire } from 'node:module';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { BucketLocationConstraint, CompletedPart, ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';
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
import { checkBucket, checkKey, checkListOptions, checkPrefix, compareKeys, decodeKeyCursor, encodeKeyCursor, nameOf } from './keys.js';

// The SDK is loaded when an S3 store is made, not with the server: it costs about 24 MB in each thread that loads it.
const requireSdk = createRequire(import.meta.url);
let sdk: typeof S3Sdk | undefined;
function s3Sdk(): typeof S3Sdk {
  return (sdk ??= requireSdk('@aws-sdk/client-s3') as typeof S3Sdk);
}

export interface S3StoreOptions {
  /** Empty or absent: AWS's own endpoint for the region. Otherwise the URL of an S3-compatible store. */
  endpoint?: string;
  region: string;
  /** Both or neither; neither: the AWS SDK's default credential chain (instance roles, AWS_* variables, ~/.aws). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Bucket in the path (`https://host/bucket/key`) rather than in the host name; most S3-compatible stores want it. */
  forcePathStyle?: boolean;
  /** First part size of multipart uploads of streams, in bytes (at least 5 MiB; doubled every 1000 parts). */
  partSize?: number;
  /** Keys per DeleteObjects request (1 to 1000). */
  deleteBatchSize?: number;
}

const MIB = 1024 * 1024;
const S3_MAX_PAGE = 1000;

interface AwsError {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}
const errorName = (e: unknown) => (e as AwsError)?.name ?? (e as AwsError)?.Code;
const statusOf = (e: unknown) => (e as AwsError)?.$metadata?.httpStatusCode;
const isNotFound = (e: unknown) => statusOf(e) === 404 || ['NoSuchKey', 'NotFound', 'NoSuchBucket'].includes(errorName(e) ?? '');
const isNoSuchBucket = (e: unknown) => errorName(e) === 'NoSuchBucket';

/** The key is usable through this interface (objects written by other tools may not be); folder markers (`a/`) are not objects. */
function usableKey(key: string): boolean {
  try {
    checkKey(key);
    return true;
  } catch {
    return false;
  }
}

/**
 * StartAfter for a cursor: after a folder `a/b/`, also after every key inside it (U+10FFFF is the greatest code
 * point, so its UTF-8 bytes sort after those of any key's next character).
 */
const startAfter = (key: string) => (key.endsWith('/') ? `${key}\u{10FFFF}` : key);

/** CopySource: `bucket/key`, URL-encoded segment by segment. */
const copySource = (bucket: string, key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/** Buffers of `size` bytes (the last one shorter) from a stream; `size` is read before each part, so it may grow. */
async function* parts(body: Readable, size: () => number): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    const buf: Buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    held.push(buf);
    length += buf.length;
    while (length >= size()) {
      const all = Buffer.concat(held, length);
      const want = size();
      yield all.subarray(0, want);
      held = [all.subarray(want)];
      length -= want;
    }
  }
  if (length > 0) yield Buffer.concat(held, length);
}

/**
 * Blob store on S3 or an S3-compatible server (AWS SDK v3). Checksums are computed and validated only where the
 * API requires them, and DeleteObjects also carries Content-MD5, so stores that do not know S3's newer checksums
 * work. Streams are uploaded in parts (one part in memory at a time); a failed upload is aborted, leaving any older
 * object in place. Credentials live only inside the SDK client: they are never logged or put in an error.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly sdk = s3Sdk();
  private readonly client: S3Sdk.S3Client;
  private readonly region: string;
  private readonly partSize: number;
  private readonly deleteBatchSize: number;

  constructor(options: S3StoreOptions) {
    if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
      throw new Error('S3 storage: give both the access key id and the secret access key, or neither');
    }
    this.region = options.region || 'us-east-1';
    this.partSize = Math.max(5 * MIB, options.partSize ?? 8 * MIB);
    this.deleteBatchSize = Math.min(S3_MAX_PAGE, Math.max(1, options.deleteBatchSize ?? S3_MAX_PAGE));
    this.client = new this.sdk.S3Client({
      region: this.region,
      endpoint: options.endpoint || undefined,
      forcePathStyle: Boolean(options.forcePathStyle),
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  /** Closes the SDK's connections. */
  destroy(): void {
    this.client.destroy();
  }

  /**
   * Pages with StartAfter (the last key returned) rather than continuation tokens, so that a page can end at exactly
   * `limit` entries whatever the server counts in MaxKeys (S3 counts folders, some compatible servers do not), and
   * the cursor is the same kind as the local store's.
   */
  async list(bucket: string, prefix: string, options?: ListOptions): Promise<ListPage> {
    checkBucket(bucket);
    const folder = checkPrefix(prefix);
    const { delimiter, limit, cursor } = checkListOptions(options);
    let after = cursor === undefined ? undefined : decodeKeyCursor(cursor, folder);
    const entries: BlobEntry[] = [];
    for (;;) {
      const want = limit === undefined ? S3_MAX_PAGE : Math.min(S3_MAX_PAGE, limit - entries.length);
      let out: ListObjectsV2CommandOutput;
      try {
        out = await this.client.send(
          new this.sdk.ListObjectsV2Command({
            Bucket: bucket,
            Prefix: folder || undefined,
            Delimiter: delimiter ? '/' : undefined,
            MaxKeys: want,
            StartAfter: after === undefined ? undefined : startAfter(after),
          }),
        );
      } catch (e) {
        if (isNoSuchBucket(e)) return { entries: [] };
        throw e;
      }
      // Objects and folders of this page in key order; `raw` also counts what is skipped, to move past it.
      const raw: { key: string; entry: BlobEntry | null }[] = [];
      for (const o of out.Contents ?? []) {
        if (!o.Key) continue;
        const usable = !o.Key.endsWith('/') && usableKey(o.Key);
        raw.push({
          key: o.Key,
          entry: usable
            ? { key: o.Key, name: nameOf(o.Key), isDir: false, size: o.Size ?? 0, lastModified: o.LastModified ?? new Date(0) }
            : null,
        });
      }
      for (const p of out.CommonPrefixes ?? []) {
        if (!p.Prefix) continue;
        const usable = p.Prefix.endsWith('/') && usableKey(p.Prefix.slice(0, -1));
        raw.push({
          key: p.Prefix,
          entry: usable ? { key: p.Prefix, name: nameOf(p.Prefix), isDir: true, size: 0, lastModified: null } : null,
        });
      }
      raw.sort((a, b) => compareKeys(a.key, b.key));
      const before = after;
      let truncatedHere = false;
      for (const r of raw) {
        if (limit !== undefined && entries.length >= limit) {
          truncatedHere = true;
          break;
        }
        if (r.entry) entries.push(r.entry);
        after = r.key;
      }
      const more = truncatedHere || Boolean(out.IsTruncated);
      if (!more || raw.length === 0) return { entries };
      if (limit !== undefined && entries.length >= limit) return { entries, cursor: encodeKeyCursor(after!) };
      if (before !== undefined && compareKeys(after!, before) <= 0)
        throw new Error(`S3 listing of "${bucket}" does not move past "${before}"`);
    }
  }

  async put(bucket: string, key: string, body: Buffer | Readable, options?: PutOptions): Promise<{ size: number }> {
    checkBucket(bucket);
    checkKey(key);
    try {
      if (Buffer.isBuffer(body)) {
        await this.client.send(new this.sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: options?.contentType }));
        return { size: body.length };
      }
      return await this.putStream(bucket, key, body, options?.contentType);
    } catch (e) {
      if (isNoSuchBucket(e)) throw new BlobNotFoundError(bucket);
      throw e;
    }
  }

  /** One PutObject when the stream fits in one part, otherwise a multipart upload (aborted when anything fails). */
  private async putStream(bucket: string, key: string, body: Readable, contentType?: string): Promise<{ size: number }> {
    let partSize = this.partSize;
    const source = parts(body, () => partSize);
    const first = await source.next();
    const second = first.done ? first : await source.next();
    if (second.done) {
      const only = first.done ? Buffer.alloc(0) : first.value;
      await this.client.send(new this.sdk.PutObjectCommand({ Bucket: bucket, Key: key, Body: only, ContentType: contentType }));
      return { size: only.length };
    }
    const { UploadId } = await this.client.send(
      new this.sdk.CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }),
    );
    const completed: CompletedPart[] = [];
    let size = 0;
    try {
      const upload = async (buf: Buffer) => {
        const PartNumber = completed.length + 1;
        const { ETag } = await this.client.send(
          new this.sdk.UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber, Body: buf }),
        );
        completed.push({ ETag, PartNumber });
        size += buf.length;
        if (PartNumber % 1000 === 0) partSize *= 2; // S3 allows 10,000 parts: larger parts as the upload grows
      };
      await upload(first.value as Buffer);
      await upload(second.value);
      for await (const buf of source) await upload(buf);
      await this.client.send(
        new this.sdk.CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: completed } }),
      );
      return { size };
    } catch (e) {
      await this.client.send(new this.sdk.AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => undefined);
      body.destroy();
      throw e;
    }
  }

  async get(bucket: string, key: string, range?: ByteRange): Promise<Readable> {
    checkBucket(bucket);
    checkKey(key);
    try {
      const out = await this.client.send(
        new this.sdk.GetObjectCommand({ Bucket: bucket, Key: key, ...(range && { Range: `bytes=${range.start}-${range.end ?? ''}` }) }),
      );
      return (out.Body as Readable | undefined) ?? Readable.from([]);
    } catch (e) {
      if (isNotFound(e)) throw new BlobNotFoundError(bucket, key);
      throw e;
    }
  }

  async stat(bucket: string, key: string): Promise<BlobStat | null> {
    checkBucket(bucket);
    checkKey(key);
    try {
      const out = await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0) };
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  async delete(bucket: string, key: string): Promise<void> {
    checkBucket(bucket);
    checkKey(key);
    try {
      await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: bucket, Key: key }));
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  async deletePrefix(bucket: string, prefix: string): Promise<number> {
    checkBucket(bucket);
    const folder = checkPrefix(prefix);
    if (!folder) throw new BlobKeyError('deletePrefix needs a non-empty prefix');
    let count = 0;
    let after: string | undefined;
    for (;;) {
      let out: ListObjectsV2CommandOutput;
      try {
        out = await this.client.send(
          new this.sdk.ListObjectsV2Command({ Bucket: bucket, Prefix: folder, MaxKeys: this.deleteBatchSize, StartAfter: after }),
        );
      } catch (e) {
        if (isNoSuchBucket(e)) return count;
        throw e;
      }
      // Every key under the folder goes, including ones this interface would not hand out (written by other tools).
      const keys = (out.Contents ?? []).map((o) => o.Key).filter((k): k is string => Boolean(k));
      if (!keys.length) return count;
      count += await this.deleteBatch(bucket, keys);
      if (!out.IsTruncated) return count;
      after = keys.reduce((a, b) => (compareKeys(a, b) < 0 ? b : a));
    }
  }

  /** One DeleteObjects request (with Content-MD5, which older S3-compatible stores require); throws on any key that failed. */
  private async deleteBatch(bucket: string, keys: string[]): Promise<number> {
    const command = new this.sdk.DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } });
    command.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body?: unknown; headers?: Record<string, string> };
        if (request.headers && (typeof request.body === 'string' || Buffer.isBuffer(request.body))) {
          request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
        }
        return next(args);
      },
      { step: 'build', name: 'runyardContentMd5' },
    );
    const out = await this.client.send(command);
    const errors = out.Errors ?? [];
    if (errors.length) {
      const first = errors[0];
      throw new Error(
        `S3 could not delete ${errors.length} of ${keys.length} objects in "${bucket}"; first: "${first.Key}": ${first.Code} ${first.Message ?? ''}`.trim(),
      );
    }
    return keys.length;
  }

  async copy(bucket: string, fromKey: string, toBucket: string, toKey: string): Promise<void> {
    checkBucket(bucket);
    checkKey(fromKey);
    checkBucket(toBucket);
    checkKey(toKey);
    try {
      await this.client.send(new this.sdk.CopyObjectCommand({ Bucket: toBucket, Key: toKey, CopySource: copySource(bucket, fromKey) }));
    } catch (e) {
      if (!isNotFound(e)) throw e;
      if (isNoSuchBucket(e) && !(await this.bucketExists(toBucket))) throw new BlobNotFoundError(toBucket);
      throw new BlobNotFoundError(bucket, fromKey);
    }
  }

  private async bucketExists(bucket: string): Promise<boolean> {
    try {
      await this.client.send(new this.sdk.HeadBucketCommand({ Bucket: bucket }));
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      throw e;
    }
  }

  async ensureBucket(bucket: string): Promise<void> {
    checkBucket(bucket);
    if (await this.bucketExists(bucket)) return;
    try {
      await this.client.send(
        new this.sdk.CreateBucketCommand({
          Bucket: bucket,
          CreateBucketConfiguration:
            this.region === 'us-east-1' ? undefined : { LocationConstraint: this.region as BucketLocationConstraint },
        }),
      );
    } catch (e) {
      if (errorName(e) !== 'BucketAlreadyOwnedByYou') throw e;
    }
  }
}
