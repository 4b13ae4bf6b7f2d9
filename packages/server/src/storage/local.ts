import { randomBytes } from 'node:crypto';
import { constants as fsConstants, realpathSync, statSync, type Dirent } from 'node:fs';
import { copyFile, lstat, mkdir, open, readdir, realpath, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { quoted } from '../errors/quoted.js';
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
import {
  checkBucket,
  checkKey,
  checkListOptions,
  checkPrefix,
  compareKeys,
  decodeKeyCursor,
  encodeKeyCursor,
  nameOf,
  TMP_SEGMENT_PREFIX,
} from './keys.js';

/** The directory of the local store: `<dataDir>/storage`, one sub-directory per bucket. */
export function localStorageRoot(dataDir: string): string {
  return path.join(path.resolve(dataDir), 'storage');
}

/**
 * True when `target` is `parent` or lies below it. Separator-aware: `/data/ws10` is not inside `/data/ws1`. Both
 * paths must be absolute and normalised (path.resolve or realpath).
 */
export function isPathInside(parent: string, target: string): boolean {
  if (target === parent) return true;
  const base = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return target.startsWith(base);
}

const isMissing = (e: unknown) => ['ENOENT', 'ENOTDIR'].includes((e as NodeJS.ErrnoException).code ?? '');

interface Found {
  key: string;
  isDir: boolean;
  /** Real path of the file or folder. */
  real: string;
}

/**
 * The embedded blob store: buckets are directories under the storage root, keys are paths below them (`/`
 * separated). Every path is built from checked keys with path.resolve, checked to stay inside its bucket with a
 * separator-aware test, and checked again after realpath so that a symbolic link cannot lead outside the bucket.
 * Writes go to a temporary file in the target directory, are synced and then renamed over the target, so readers see
 * the old or the new object. A folder exists while it holds something (deleting its last object removes it), as
 * in S3; symbolic links inside a bucket are followed only when they stay inside it (others are not listed and
 * cannot be read).
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  readonly root: string;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  // ---- paths -------------------------------------------------------------------------------------------------

  private bucketDir(bucket: string): string {
    const dir = path.resolve(this.root, checkBucket(bucket));
    if (dir === this.root || !isPathInside(this.root, dir))
      throw new BlobKeyError(`bucket name ${quoted(bucket)} leaves the storage directory`);
    return dir;
  }

  /** The (not yet real) path of a checked key in its bucket. */
  private pathOf(bucket: string, key: string): string {
    const dir = this.bucketDir(bucket);
    const target = path.resolve(dir, ...key.split('/').filter(Boolean));
    if (target === dir || !isPathInside(dir, target)) throw new BlobKeyError(`key ${quoted(key)} leaves its bucket`);
    return target;
  }

  /**
   * The real path of the bucket's directory, or null when it does not exist. The path checks are
   * synchronous: each is a metadata call of microseconds, while a call through the thread pool
   * costs a round trip that waits for a CPU on a loaded machine (a job's start made five in a row).
   */
  private async realBucket(bucket: string): Promise<string | null> {
    const dir = this.bucketDir(bucket);
    let real: string;
    try {
      real = realpathSync.native(dir);
      if (!statSync(real).isDirectory()) return null;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    const root = realpathSync.native(this.root);
    if (real === root || !isPathInside(root, real)) throw new BlobKeyError(`bucket ${quoted(bucket)} leads outside the storage directory`);
    return real;
  }

  private async requireBucket(bucket: string): Promise<string> {
    const real = await this.realBucket(bucket);
    if (!real) throw new BlobNotFoundError(bucket);
    return real;
  }

  /**
   * realpath of a path, refused when it leads outside the bucket; null when it does not exist. A path that does not
   * exist is refused too when its deepest existing ancestor leads outside (so that answers never tell what exists
   * beyond a link).
   */
  private async confined(target: string, bucketReal: string, what: string): Promise<string | null> {
    for (let p = target; ; p = path.dirname(p)) {
      let real: string;
      try {
        real = realpathSync.native(p);
      } catch (e) {
        if (isMissing(e) && path.dirname(p) !== p) continue;
        throw e;
      }
      if (!isPathInside(bucketReal, real)) throw new BlobKeyError(`${what} leads outside its bucket`);
      return p === target ? real : null;
    }
  }

  /** The real path of an existing regular file at a key, or a BlobNotFoundError. */
  private async existingFile(bucket: string, key: string): Promise<string> {
    checkKey(key);
    const target = this.pathOf(bucket, key);
    const bucketReal = await this.realBucket(bucket);
    const real = bucketReal && (await this.confined(target, bucketReal, `key ${quoted(key)}`));
    if (!real || !(await stat(real)).isFile()) throw new BlobNotFoundError(bucket, key);
    return real;
  }

  async localPath(bucket: string, key: string): Promise<string> {
    checkKey(key);
    const target = this.pathOf(bucket, key);
    const bucketReal = await this.realBucket(bucket);
    if (bucketReal) await this.confined(target, bucketReal, `key ${quoted(key)}`);
    return target;
  }

  // ---- reading -----------------------------------------------------------------------------------------------

  async get(bucket: string, key: string, range?: ByteRange): Promise<Readable> {
    const real = await this.existingFile(bucket, key);
    const handle = await open(real, 'r');
    try {
      if (!(await handle.stat()).isFile()) throw new BlobNotFoundError(bucket, key);
    } catch (e) {
      await handle.close();
      throw e;
    }
    return handle.createReadStream(range ? { start: range.start, ...(range.end !== undefined && { end: range.end }) } : {});
  }

  async stat(bucket: string, key: string): Promise<BlobStat | null> {
    try {
      const real = await this.existingFile(bucket, key);
      const st = await stat(real);
      return { size: st.size, lastModified: st.mtime };
    } catch (e) {
      if (e instanceof BlobNotFoundError || isMissing(e)) return null;
      throw e;
    }
  }

  async list(bucket: string, prefix: string, options?: ListOptions): Promise<ListPage> {
    const folder = checkPrefix(prefix);
    const { delimiter, limit, cursor } = checkListOptions(options);
    const after = cursor === undefined ? undefined : decodeKeyCursor(cursor, folder);
    const bucketReal = await this.realBucket(bucket);
    if (!bucketReal) return { entries: [] };
    const dir = folder ? this.pathOf(bucket, folder) : this.bucketDir(bucket);
    const dirReal = await this.confined(dir, bucketReal, `prefix ${quoted(folder)}`);
    if (!dirReal || !(await stat(dirReal)).isDirectory()) return { entries: [] };

    const found: Found[] = [];
    const max = limit ?? Infinity;
    if (delimiter) {
      for (const child of await this.children(dirReal, folder, bucketReal)) {
        if (after !== undefined && compareKeys(child.key, after) <= 0) continue;
        found.push(child);
        if (found.length > max) break;
      }
    } else {
      for await (const file of this.walk(dirReal, folder, bucketReal, after, new Set())) {
        found.push(file);
        if (found.length > max) break;
      }
    }
    const more = found.length > max;
    const page = more ? found.slice(0, max) : found;
    const entries: BlobEntry[] = [];
    for (const f of page) {
      if (f.isDir) {
        entries.push({ key: f.key, name: nameOf(f.key), isDir: true, size: 0, lastModified: null });
      } else {
        const st = await stat(f.real).catch((e: unknown) => (isMissing(e) ? null : Promise.reject(e)));
        if (st) entries.push({ key: f.key, name: nameOf(f.key), isDir: false, size: st.size, lastModified: st.mtime });
      }
    }
    return more ? { entries, cursor: encodeKeyCursor(page[page.length - 1].key) } : { entries };
  }

  /**
   * The files and folders directly in a real directory, in key order (a folder `x` sorts as `x/`). Temporary files
   * and anything that is neither a file nor a folder are left out, and so are symbolic links that lead outside the
   * bucket or nowhere.
   */
  private async children(dirReal: string, keyPrefix: string, bucketReal: string): Promise<Found[]> {
    let dirents: Dirent[];
    try {
      dirents = await readdir(dirReal, { withFileTypes: true });
    } catch (e) {
      if (isMissing(e)) return [];
      throw e;
    }
    const out: Found[] = [];
    for (const d of dirents) {
      if (d.name.startsWith(TMP_SEGMENT_PREFIX)) continue;
      let real = path.join(dirReal, d.name);
      let isDir = d.isDirectory();
      if (d.isSymbolicLink()) {
        const target = await realpath(real).catch(() => null);
        if (!target || !isPathInside(bucketReal, target)) continue;
        const st = await stat(target).catch(() => null);
        if (!st || !(st.isFile() || st.isDirectory())) continue;
        [real, isDir] = [target, st.isDirectory()];
      } else if (!d.isFile() && !isDir) {
        continue;
      }
      out.push({ key: keyPrefix + d.name + (isDir ? '/' : ''), isDir, real });
    }
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  /**
   * Every file below a real directory, in key order, after the key `after`. A linked folder is walked under each
   * of its names, except when it is one of the folders being walked (a link to an ancestor), which would never end.
   */
  private async *walk(
    dirReal: string,
    keyPrefix: string,
    bucketReal: string,
    after: string | undefined,
    ancestors: Set<string>,
  ): AsyncGenerator<Found> {
    if (ancestors.has(dirReal)) return;
    const chain = new Set(ancestors).add(dirReal);
    for (const child of await this.children(dirReal, keyPrefix, bucketReal)) {
      if (child.isDir) {
        if (after !== undefined && compareKeys(child.key, after) < 0 && !after.startsWith(child.key)) continue;
        yield* this.walk(child.real, child.key, bucketReal, after, chain);
      } else if (after === undefined || compareKeys(child.key, after) > 0) {
        yield child;
      }
    }
  }

  // ---- writing -----------------------------------------------------------------------------------------------

  /**
   * Writes a new object at a key: the target's directory is created inside the bucket (checked before and after,
   * through realpath), `fill` writes a temporary file there, and the file is renamed over the target.
   */
  private async writeAtomically(bucket: string, key: string, fill: (tmp: string) => Promise<number>): Promise<{ size: number }> {
    checkKey(key);
    const target = this.pathOf(bucket, key);
    const bucketReal = await this.requireBucket(bucket);
    const parent = path.dirname(target);
    for (let attempt = 1; ; attempt++) {
      await this.confined(parent, bucketReal, `key ${quoted(key)}`);
      await mkdir(parent, { recursive: true });
      const parentReal = await this.confined(parent, bucketReal, `key ${quoted(key)}`);
      if (!parentReal) {
        // Removed again meanwhile (an empty folder pruned by a concurrent delete): try again.
        if (attempt < 3) continue;
        throw new Error(`could not create the folder of key "${key}"`);
      }
      const existing = await lstat(path.join(parentReal, path.basename(target))).catch(() => null);
      if (existing?.isDirectory()) throw new BlobKeyError(`key ${quoted(key)} is a folder in the local store`);
      const tmp = path.join(parentReal, `${TMP_SEGMENT_PREFIX}${randomBytes(8).toString('hex')}`);
      let size: number;
      try {
        size = await fill(tmp);
      } catch (e) {
        await unlink(tmp).catch(() => undefined);
        if (isMissing(e) && attempt < 3) continue;
        throw e;
      }
      try {
        await rename(tmp, path.join(parentReal, path.basename(target)));
      } catch (e) {
        await unlink(tmp).catch(() => undefined);
        if (['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) {
          throw new BlobKeyError(`key ${quoted(key)} is a folder in the local store`);
        }
        throw e;
      }
      return { size };
    }
  }

  async put(bucket: string, key: string, body: Buffer | Readable, _options?: PutOptions): Promise<{ size: number }> {
    checkBucket(bucket);
    checkKey(key);
    return this.writeAtomically(bucket, key, async (tmp) => {
      const handle = await open(tmp, 'wx', 0o644);
      let size = 0;
      try {
        const chunks: Iterable<unknown> | AsyncIterable<unknown> = Buffer.isBuffer(body) ? [body] : body;
        for await (const chunk of chunks) {
          const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
          for (let offset = 0; offset < buf.length;) {
            const { bytesWritten } = await handle.write(buf, offset, buf.length - offset);
            offset += bytesWritten;
          }
          size += buf.length;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      return size;
    });
  }

  async copy(bucket: string, fromKey: string, toBucket: string, toKey: string): Promise<void> {
    checkBucket(bucket);
    checkKey(fromKey);
    checkBucket(toBucket);
    checkKey(toKey);
    const source = await this.existingFile(bucket, fromKey);
    await this.writeAtomically(toBucket, toKey, async (tmp) => {
      await copyFile(source, tmp, fsConstants.COPYFILE_EXCL);
      return (await stat(tmp)).size;
    });
  }

  async delete(bucket: string, key: string): Promise<void> {
    checkKey(key);
    const target = this.pathOf(bucket, key);
    const bucketReal = await this.realBucket(bucket);
    if (!bucketReal) return;
    // The directory holding the key must really be inside the bucket; the key itself may be a link (it is removed, not its target).
    const parentReal = await this.confined(path.dirname(target), bucketReal, `key ${quoted(key)}`);
    if (!parentReal) return;
    const entry = path.join(parentReal, path.basename(target));
    const st = await lstat(entry).catch((e: unknown) => (isMissing(e) ? null : Promise.reject(e)));
    if (!st || st.isDirectory()) return;
    await unlink(entry).catch((e: unknown) => (isMissing(e) ? undefined : Promise.reject(e)));
    await this.pruneEmpty(parentReal, bucketReal);
  }

  async deletePrefix(bucket: string, prefix: string): Promise<number> {
    const folder = checkPrefix(prefix);
    if (!folder) throw new BlobKeyError('deletePrefix needs a non-empty prefix');
    const target = this.pathOf(bucket, folder);
    const bucketReal = await this.realBucket(bucket);
    if (!bucketReal) return 0;
    const parentReal = await this.confined(path.dirname(target), bucketReal, `prefix ${quoted(folder)}`);
    if (!parentReal) return 0;
    const entry = path.join(parentReal, path.basename(target));
    const st = await lstat(entry).catch((e: unknown) => (isMissing(e) ? null : Promise.reject(e)));
    if (!st || !(st.isDirectory() || st.isSymbolicLink())) return 0;
    const count = st.isDirectory() ? await countObjects(entry) : 1;
    // rm never follows symbolic links: a link is removed, not what it points to.
    await rm(entry, { recursive: true, force: true });
    await this.pruneEmpty(parentReal, bucketReal);
    return count;
  }

  /** Removes empty directories from `dir` up to (not including) the bucket's directory. */
  private async pruneEmpty(dir: string, bucketReal: string): Promise<void> {
    for (let d = dir; d !== bucketReal && isPathInside(bucketReal, d); d = path.dirname(d)) {
      try {
        await rmdir(d);
      } catch {
        return;
      }
    }
  }

  async ensureBucket(bucket: string): Promise<void> {
    const dir = this.bucketDir(bucket);
    await mkdir(dir, { recursive: true });
    if (!(await this.realBucket(bucket))) throw new BlobKeyError(`bucket ${quoted(bucket)} is not a directory in the local store`);
  }
}

/** How many objects (anything but directories, links included, temporary files not) lie below a directory, without following links. */
async function countObjects(dir: string): Promise<number> {
  let count = 0;
  const dirents = await readdir(dir, { withFileTypes: true }).catch((e: unknown) => (isMissing(e) ? [] : Promise.reject(e)));
  for (const d of dirents) {
    if (d.isDirectory()) count += await countObjects(path.join(dir, d.name));
    else if (!d.name.startsWith(TMP_SEGMENT_PREFIX)) count += 1;
  }
  return count;
}
