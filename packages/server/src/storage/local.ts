import { randomBytes } from 'node:crypto';
import { constants, createWriteStream, realpathSync, statSync, type Dirent } from 'node:fs';
import { lstat, mkdir, open, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { quoted } from '../errors/quoted.js';
import { BeneathError, inDirBeneath, listBeneath, lstatBeneath, openBeneath, removeBeneath, resolveBeneath } from './beneath.js';
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
  /** Its path below the bucket's directory, links resolved. */
  real: string;
}

/** Links in a bucket are followed while they stay inside it (a pipeline publishes results as links into its work directory). */
const LINKS_INSIDE = { links: 'inside' } as const;

/**
 * The embedded blob store: buckets are directories under the storage root, keys are paths below them (`/`
 * separated). Every path is built from checked keys with path.resolve and checked to stay inside its bucket with a
 * separator-aware test; the bucket's directory is checked after realpath to lie in the storage directory, and below
 * it every name is opened without following links (beneath.ts), so that a link a job planted cannot lead outside
 * the bucket, even if swapped in between a check and a use. Writes go to a temporary file in the target directory, are synced and then renamed over the target, so readers see
 * the old or the new object. A folder exists while it holds something (deleting its last object removes it), as
 * in S3; symbolic links inside a bucket are followed only when they stay inside it, resolved by the store one name at a
 * time (others are not listed and cannot be read; they are refused as leading outside, dangling or not).
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

  /**
   * The bucket's directory as the tasks name it (the storage root's path, not its real path), once realBucket has
   * checked it; null when it does not exist. Paths below it are used through beneath.ts, whose links may name the
   * bucket by either path.
   */
  private async bucketRoot(bucket: string): Promise<string | null> {
    return (await this.realBucket(bucket)) && this.bucketDir(bucket);
  }

  private async requireBucket(bucket: string): Promise<string> {
    const root = await this.bucketRoot(bucket);
    if (!root) throw new BlobNotFoundError(bucket);
    return root;
  }

  /** A checked key as a path below its bucket's directory (for beneath.ts). */
  private relOf(bucket: string, key: string): string {
    this.pathOf(bucket, key);
    return key.split('/').filter(Boolean).join('/');
  }

  /** What a refusal of beneath.ts means to a caller of the store. */
  private blobError(e: unknown, bucket: string, key: string): never {
    if (!(e instanceof BeneathError)) throw e;
    if (e.reason === 'missing' || e.reason === 'special') throw new BlobNotFoundError(bucket, key);
    if (e.reason === 'not-directory') throw new BlobKeyError(`key ${quoted(key)} lies below a file, not a folder`);
    throw new BlobKeyError(`key ${quoted(key)} leads outside its bucket`);
  }

  /** A checked key as its bucket's directory and its path below it (for beneath.ts); BlobNotFoundError without the bucket. */
  private async located(bucket: string, key: string): Promise<{ root: string; rel: string }> {
    checkKey(key);
    const rel = this.relOf(bucket, key);
    const root = await this.bucketRoot(bucket);
    if (!root) throw new BlobNotFoundError(bucket, key);
    return { root, rel };
  }

  /** The key's regular file, opened below the bucket (links followed only inside it): the handle is what was checked. */
  private async openFile(bucket: string, key: string): Promise<FileHandle> {
    const { root, rel } = await this.located(bucket, key);
    return openBeneath(root, rel, 'read', LINKS_INSIDE).catch((e: unknown) => this.blobError(e, bucket, key));
  }

  async localPath(bucket: string, key: string): Promise<string> {
    checkKey(key);
    const target = this.pathOf(bucket, key);
    const root = await this.bucketRoot(bucket);
    // Refused when a link on the way leads out of the bucket, dangling or not; what does not exist yet is no error.
    if (root)
      await resolveBeneath(root, this.relOf(bucket, key), LINKS_INSIDE).catch((e: unknown) => {
        if (e instanceof BeneathError && e.reason === 'outside') this.blobError(e, bucket, key);
      });
    return target;
  }

  async holdLocal(bucket: string, key: string): Promise<{ path: string; handle: FileHandle }> {
    const { root, rel } = await this.located(bucket, key);
    // The path as tasks name it (localPath's), the handle what the walk below the bucket reached.
    const named = this.pathOf(bucket, key);
    try {
      return { path: named, handle: await openBeneath(root, rel, 'read', LINKS_INSIDE) };
    } catch (e) {
      if (!(e instanceof BeneathError) || e.reason !== 'special') this.blobError(e, bucket, key);
    }
    // Not a regular file: a folder, opened again through the magic link of the handle that reached it (never by its path).
    const handle = await inDirBeneath(root, rel, (dir) => open(dir, constants.O_RDONLY | constants.O_DIRECTORY), LINKS_INSIDE).catch(
      (e: unknown) => this.blobError(e, bucket, key),
    );
    return { path: named, handle };
  }

  // ---- reading -----------------------------------------------------------------------------------------------

  async get(bucket: string, key: string, range?: ByteRange): Promise<Readable> {
    const handle = await this.openFile(bucket, key);
    return handle.createReadStream(range ? { start: range.start, ...(range.end !== undefined && { end: range.end }) } : {});
  }

  async stat(bucket: string, key: string): Promise<BlobStat | null> {
    let handle: FileHandle;
    try {
      handle = await this.openFile(bucket, key);
    } catch (e) {
      if (e instanceof BlobNotFoundError || isMissing(e)) return null;
      throw e;
    }
    try {
      const st = await handle.stat();
      return { size: st.size, lastModified: st.mtime };
    } finally {
      await handle.close();
    }
  }

  async list(bucket: string, prefix: string, options?: ListOptions): Promise<ListPage> {
    const folder = checkPrefix(prefix);
    const { delimiter, limit, cursor } = checkListOptions(options);
    const after = cursor === undefined ? undefined : decodeKeyCursor(cursor, folder);
    const bucketRoot = await this.bucketRoot(bucket);
    if (!bucketRoot) return { entries: [] };
    const folderRel = folder ? this.relOf(bucket, folder) : '';
    let dirRel: string;
    try {
      const found = await resolveBeneath(bucketRoot, folderRel, LINKS_INSIDE);
      if (!found.stats.isDirectory()) return { entries: [] };
      dirRel = found.rel;
    } catch (e) {
      if (e instanceof BeneathError && (e.reason === 'missing' || e.reason === 'not-directory' || e.reason === 'special'))
        return { entries: [] };
      return this.blobError(e, bucket, folder);
    }

    const found: Found[] = [];
    const max = limit ?? Infinity;
    if (delimiter) {
      for (const child of await this.children(bucketRoot, dirRel, folder)) {
        if (after !== undefined && compareKeys(child.key, after) <= 0) continue;
        found.push(child);
        if (found.length > max) break;
      }
    } else {
      for await (const file of this.walk(bucketRoot, dirRel, folder, after, new Set())) {
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
        // Described, never followed: changed into anything but a file since it was listed, it is left out.
        const st = await lstatBeneath(bucketRoot, f.real).catch(() => null);
        if (st?.isFile()) entries.push({ key: f.key, name: nameOf(f.key), isDir: false, size: st.size, lastModified: st.mtime });
      }
    }
    return more ? { entries, cursor: encodeKeyCursor(page[page.length - 1].key) } : { entries };
  }

  /**
   * The files and folders directly in a directory of the bucket (its path below it), in key order (a folder `x`
   * sorts as `x/`). Temporary files and anything that is neither a file nor a folder are left out, and so are
   * symbolic links that lead outside the bucket or nowhere.
   */
  private async children(bucketRoot: string, dirRel: string, keyPrefix: string): Promise<Found[]> {
    let dirents: Dirent[];
    try {
      dirents = await listBeneath(bucketRoot, dirRel, LINKS_INSIDE);
    } catch (e) {
      if (isMissing(e) || e instanceof BeneathError) return [];
      throw e;
    }
    const out: Found[] = [];
    for (const d of dirents) {
      if (d.name.startsWith(TMP_SEGMENT_PREFIX)) continue;
      let real = dirRel ? `${dirRel}/${d.name}` : d.name;
      let isDir = d.isDirectory();
      if (d.isSymbolicLink()) {
        const target = await resolveBeneath(bucketRoot, real, LINKS_INSIDE).catch(() => null);
        if (!target || !(target.stats.isFile() || target.stats.isDirectory())) continue;
        [real, isDir] = [target.rel, target.stats.isDirectory()];
      } else if (!d.isFile() && !isDir) {
        continue;
      }
      out.push({ key: keyPrefix + d.name + (isDir ? '/' : ''), isDir, real });
    }
    return out.sort((a, b) => compareKeys(a.key, b.key));
  }

  /**
   * Every file below a directory of the bucket, in key order, after the key `after`. A linked folder is walked under
   * each of its names, except when it is one of the folders being walked (a link to an ancestor), which would never end.
   */
  private async *walk(
    bucketRoot: string,
    dirRel: string,
    keyPrefix: string,
    after: string | undefined,
    ancestors: Set<string>,
  ): AsyncGenerator<Found> {
    if (ancestors.has(dirRel)) return;
    const chain = new Set(ancestors).add(dirRel);
    for (const child of await this.children(bucketRoot, dirRel, keyPrefix)) {
      if (child.isDir) {
        if (after !== undefined && compareKeys(child.key, after) < 0 && !after.startsWith(child.key)) continue;
        yield* this.walk(bucketRoot, child.real, child.key, after, chain);
      } else if (after === undefined || compareKeys(child.key, after) > 0) {
        yield child;
      }
    }
  }

  // ---- writing -----------------------------------------------------------------------------------------------

  /**
   * Writes a new object at a key: the folders of the key are made in the bucket, one at a time and never through a
   * link (beneath.ts), `fill` writes a temporary file in the last of them, and the file is renamed over the target.
   */
  private async writeAtomically(bucket: string, key: string, fill: (tmp: string) => Promise<number>): Promise<{ size: number }> {
    checkKey(key);
    const rel = this.relOf(bucket, key);
    const bucketRoot = await this.requireBucket(bucket);
    const parentRel = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    const name = path.posix.basename(rel);
    for (let attempt = 1; ; attempt++) {
      try {
        return await inDirBeneath(
          bucketRoot,
          parentRel,
          async (dir) => {
            const existing = await lstat(`${dir}/${name}`).catch(() => null);
            if (existing?.isDirectory()) throw new BlobKeyError(`key ${quoted(key)} is a folder in the local store`);
            const tmp = `${dir}/${TMP_SEGMENT_PREFIX}${randomBytes(8).toString('hex')}`;
            let size: number;
            try {
              size = await fill(tmp);
              await rename(tmp, `${dir}/${name}`);
            } catch (e) {
              await unlink(tmp).catch(() => undefined);
              if (['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes((e as NodeJS.ErrnoException).code ?? '')) {
                throw new BlobKeyError(`key ${quoted(key)} is a folder in the local store`);
              }
              throw e;
            }
            return { size };
          },
          { create: true },
        );
      } catch (e) {
        // The folder removed again meanwhile (an empty folder pruned by a concurrent delete): try again.
        if (isMissing(e) && attempt < 3) continue;
        if (e instanceof BeneathError) return this.blobError(e, bucket, key);
        throw e;
      }
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
    const source = await this.openFile(bucket, fromKey);
    try {
      await this.writeAtomically(toBucket, toKey, async (tmp) => {
        // Its size as written (not a stat of the name, which a task writing in the bucket could swap meanwhile).
        const out = createWriteStream(tmp, { flags: 'wx', mode: 0o644 });
        await pipeline(source.createReadStream({ start: 0, autoClose: false }), out);
        return out.bytesWritten;
      });
    } finally {
      await source.close();
    }
  }

  async delete(bucket: string, key: string): Promise<void> {
    checkKey(key);
    const rel = this.relOf(bucket, key);
    const bucketRoot = await this.bucketRoot(bucket);
    if (!bucketRoot) return;
    const parentRel = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    // The folder holding the key must really be inside the bucket; the key itself may be a link (it is removed, not its target).
    try {
      await inDirBeneath(
        bucketRoot,
        parentRel,
        async (dir) => {
          const entry = `${dir}/${path.posix.basename(rel)}`;
          const st = await lstat(entry).catch((e: unknown) => (isMissing(e) ? null : Promise.reject(e)));
          if (!st || st.isDirectory()) return;
          await unlink(entry).catch((e: unknown) => (isMissing(e) ? undefined : Promise.reject(e)));
        },
        LINKS_INSIDE,
      );
    } catch (e) {
      if (e instanceof BeneathError && (e.reason === 'missing' || e.reason === 'not-directory')) return;
      return this.blobError(e, bucket, key);
    }
    await this.pruneEmpty(bucketRoot, parentRel);
  }

  async deletePrefix(bucket: string, prefix: string): Promise<number> {
    const folder = checkPrefix(prefix);
    if (!folder) throw new BlobKeyError('deletePrefix needs a non-empty prefix');
    const rel = this.relOf(bucket, folder);
    const bucketRoot = await this.bucketRoot(bucket);
    if (!bucketRoot) return 0;
    const parentRel = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    let count = 0;
    try {
      // The folder's own directory, never through a link: what is below it is removed with beneath.ts, which follows none.
      const parentResolved = await resolveBeneath(bucketRoot, parentRel, LINKS_INSIDE);
      const target = parentResolved.rel ? `${parentResolved.rel}/${path.posix.basename(rel)}` : path.posix.basename(rel);
      const st = await lstatBeneath(bucketRoot, target);
      if (!st || !(st.isDirectory() || st.isSymbolicLink())) return 0;
      count = st.isDirectory() ? await countObjects(bucketRoot, target) : 1;
      await removeBeneath(bucketRoot, target);
      await this.pruneEmpty(bucketRoot, parentResolved.rel);
    } catch (e) {
      if (e instanceof BeneathError && (e.reason === 'missing' || e.reason === 'not-directory' || e.reason === 'special')) return 0;
      return this.blobError(e, bucket, folder);
    }
    return count;
  }

  /** Removes empty folders from `dirRel` up to (not including) the bucket's directory. */
  private async pruneEmpty(bucketRoot: string, dirRel: string): Promise<void> {
    for (let d = dirRel; d && d !== '.'; d = path.posix.dirname(d)) {
      const parent = path.posix.dirname(d) === '.' ? '' : path.posix.dirname(d);
      try {
        await inDirBeneath(bucketRoot, parent, (dir) => rmdir(`${dir}/${path.posix.basename(d)}`));
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

/** How many objects (anything but directories, links included, temporary files not) lie below a folder of the bucket, without following links. */
async function countObjects(bucketRoot: string, dirRel: string): Promise<number> {
  let count = 0;
  const dirents = await listBeneath(bucketRoot, dirRel).catch((e: unknown) =>
    e instanceof BeneathError || isMissing(e) ? [] : Promise.reject(e),
  );
  for (const d of dirents) {
    if (d.isDirectory()) count += await countObjects(bucketRoot, `${dirRel}/${d.name}`);
    else if (!d.name.startsWith(TMP_SEGMENT_PREFIX)) count += 1;
  }
  return count;
}
