import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';

/**
 * One interface over the blob stores (a local directory, S3 and S3-compatible stores, Azure Blob).
 *
 * Keys use `/` between segments and are checked by ./keys.ts before any I/O: an invalid key or
 * bucket is a BlobKeyError, whichever store is behind. A *prefix* always names a folder: `''` is
 * the bucket's root and `a/b` means the folder `a/b/` (a trailing slash may be given or not), so
 * `ws1` never matches the keys of `ws10`.
 */
export type BlobStoreKind = 'local' | 's3' | 'azure';

export interface BlobEntry {
  /** The full key relative to the bucket; a folder's key ends with `/` (`a/b/`). */
  key: string;
  /** The last segment of the key, without a trailing slash. */
  name: string;
  isDir: boolean;
  /** Bytes; 0 for folders. */
  size: number;
  /** When the object was last written; null for folders. */
  lastModified: Date | null;
}

export interface ListOptions {
  /** One level only: objects directly in the folder, and its sub-folders as folder entries. Otherwise every object under the folder. */
  delimiter?: boolean;
  /** At most this many entries in this call, with a cursor when more remain. Without a limit every entry is returned. */
  limit?: number;
  /** The cursor of the previous page (opaque; valid only for the same store, bucket, prefix and delimiter). */
  cursor?: string;
}

export interface ListPage {
  /** In key order (bytewise, as S3 orders keys), folders and objects mixed. */
  entries: BlobEntry[];
  /** Present when more entries remain; pass it back in ListOptions.cursor. */
  cursor?: string;
}

export interface PutOptions {
  contentType?: string;
}

export interface BlobStat {
  size: number;
  lastModified: Date;
}

/** Bytes `start` to `end` (included; to the end of the object when absent), counted from 0. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStore {
  readonly kind: BlobStoreKind;
  /** Entries under the folder `prefix`, in key order. A bucket or folder that does not exist lists as empty. */
  list(bucket: string, prefix: string, options?: ListOptions): Promise<ListPage>;
  /** Writes an object, replacing any object at that key; readers see the old or the new object, never a part. BlobNotFoundError when the bucket does not exist. */
  put(bucket: string, key: string, body: Buffer | Readable, options?: PutOptions): Promise<{ size: number }>;
  /**
   * The object's bytes (with a range: from byte `start`, to byte `end` included when given).
   * BlobNotFoundError when there is no object at that key (or no bucket).
   */
  get(bucket: string, key: string, range?: ByteRange): Promise<Readable>;
  /** Size and time of the object, or null when there is none. */
  stat(bucket: string, key: string): Promise<BlobStat | null>;
  /** Removes the object; removing an object that does not exist is not an error. */
  delete(bucket: string, key: string): Promise<void>;
  /** Removes every object under the folder `prefix` (which must not be empty), in batches; resolves to how many were removed. */
  deletePrefix(bucket: string, prefix: string): Promise<number>;
  /** Copies one object; BlobNotFoundError when the source object or the target bucket does not exist. */
  copy(bucket: string, fromKey: string, toBucket: string, toKey: string): Promise<void>;
  /** Creates the bucket (container) when it does not exist. */
  ensureBucket(bucket: string): Promise<void>;
  /**
   * Only the local store: the real path of a key (a file or a folder, existing or not), checked to stay inside its
   * bucket, so that the local executor can write a job's files in place.
   */
  localPath?(bucket: string, key: string): Promise<string>;
  /**
   * Only the local store: the key's file or folder, opened below its bucket (links followed only inside it), for a
   * task's sandbox to bind from the handle rather than by a path that a running task could change meanwhile
   * (staging/inputs.ts), and its path as localPath gives it. BlobNotFoundError when it does not exist; a key whose
   * links lead out of its bucket is refused. The caller closes the handle.
   */
  holdLocal?(bucket: string, key: string): Promise<{ path: string; handle: FileHandle }>;
}

/** Base class of the errors a blob store throws on purpose; anything else (network, permissions) bubbles as it came. */
export class BlobStoreError extends Error {}

/** No object at that key, or no such bucket. */
export class BlobNotFoundError extends BlobStoreError {
  constructor(
    readonly bucket: string,
    readonly key?: string,
  ) {
    super(key === undefined ? `bucket "${bucket}" does not exist` : `no object "${key}" in bucket "${bucket}"`);
    this.name = 'BlobNotFoundError';
  }
}

/** An invalid bucket name, key, prefix or cursor; refused before any I/O (or, in the local store, a path that would leave its bucket). */
export class BlobKeyError extends BlobStoreError {
  constructor(message: string) {
    super(message);
    this.name = 'BlobKeyError';
  }
}
