import { createWriteStream } from 'node:fs';
import { lutimes, mkdir, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BeneathError, inDirBeneath, lstatBeneath, openBeneath, walkFilesBeneath, type FoundFile } from './beneath.js';
import type { BlobStat, BlobStore } from './blob-store.js';
import { checkKey } from './keys.js';
import { isPathInside } from './local.js';

/**
 * Copies between a local directory and a folder of a blob store (S3, Azure), for tasks that run
 * on local copies: a job's logs, results and work directory are pushed to the store when it
 * settles (its logs also while it runs), and a resumed job's work folder is pulled first.
 * Only regular files travel: symbolic links and special files are skipped, and nothing is ever
 * deleted on the other side. A file is copied when the other side has none, or one of another
 * size, or (pushing) one older than the local file by the second.
 */

/** Files copied at the same time. */
const PARALLEL = 8;

export interface SyncResult {
  copied: number;
  /** Local files whose names the store cannot take (a control character, a backslash...): not copied. */
  skipped: string[];
}

async function inParallel<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
}

/** Every object under the folder `prefix`, by key. */
async function remoteObjects(blobs: BlobStore, bucket: string, prefix: string): Promise<Map<string, BlobStat>> {
  const out = new Map<string, BlobStat>();
  let cursor: string | undefined;
  do {
    const page = await blobs.list(bucket, prefix, { limit: 1000, ...(cursor && { cursor }) });
    for (const e of page.entries) if (!e.isDir) out.set(e.key, { size: e.size, lastModified: e.lastModified ?? new Date(0) });
    cursor = page.cursor;
  } while (cursor);
  return out;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * Uploads the regular files below `dir` to `bucket`/`prefix`/<relative path> (see the module comment
 * for which). A task writes `dir`: it is walked and each file opened beneath it (beneath.ts), and
 * what is uploaded is the descriptor that was checked, so a file swapped for a link during the
 * push is never followed.
 */
export async function pushDir(blobs: BlobStore, dir: string, bucket: string, prefix: string): Promise<SyncResult> {
  const files: FoundFile[] = [];
  for await (const file of walkFilesBeneath(dir)) files.push(file);
  const result: SyncResult = { copied: 0, skipped: [] };
  if (!files.length) return result;
  await blobs.ensureBucket(bucket);
  const remote = await remoteObjects(blobs, bucket, prefix);
  await inParallel(files, async (found) => {
    let key: string;
    try {
      key = checkKey(`${prefix}/${found.rel}`);
    } catch {
      result.skipped.push(found.rel);
      return;
    }
    let handle: FileHandle;
    try {
      handle = await openBeneath(dir, found.rel);
    } catch (e) {
      if (e instanceof BeneathError) return; // gone, or no longer a file, meanwhile
      throw e;
    }
    try {
      const local = await handle.stat();
      const there = remote.get(key);
      if (there && there.size === local.size && seconds(local.mtimeMs) <= seconds(there.lastModified.getTime())) return;
      await blobs.put(bucket, key, handle.createReadStream({ autoClose: false }));
      result.copied++;
    } finally {
      await handle.close();
    }
  });
  return result;
}

/**
 * Downloads every object under `bucket`/`prefix` to `dir`/<relative key>, unless a local file of
 * the same size is there. Each file is written beside its target and renamed over it, and gets
 * the object's time (so that pushing it back does not copy it again).
 */
export async function pullDir(blobs: BlobStore, bucket: string, prefix: string, dir: string): Promise<SyncResult> {
  const remote = await remoteObjects(blobs, bucket, prefix);
  const result: SyncResult = { copied: 0, skipped: [] };
  const root = path.resolve(dir);
  if (remote.size) await mkdir(root, { recursive: true });
  await inParallel([...remote], async ([key, object]) => {
    const rel = key.slice(prefix.length).replace(/^\/+/, '');
    const target = path.resolve(root, ...rel.split('/'));
    if (!rel || target === root || !isPathInside(root, target)) {
      result.skipped.push(key);
      return;
    }
    const existing = await lstatBeneath(root, rel).catch(() => null);
    if (existing?.isFile() && existing.size === object.size) return;
    await pullBeneath(blobs, bucket, key, root, rel, object.lastModified);
    result.copied++;
  });
  return result;
}

/**
 * One object to the file rel below root (a directory a task may have written: its folders are made
 * and entered without following links).
 */
async function pullBeneath(blobs: BlobStore, bucket: string, key: string, root: string, rel: string, time: Date): Promise<void> {
  const parent = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
  await inDirBeneath(root, parent, (dir) => download(blobs, bucket, key, dir, path.posix.basename(rel), time), { create: true });
}

/** One object to a local file of the server's (not a task's). */
export async function pullFile(blobs: BlobStore, bucket: string, key: string, target: string, time?: Date): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  await download(blobs, bucket, key, path.dirname(target), path.basename(target), time);
}

/** Writes the object beside `<dir>/<name>` and renames it over it (readers see the old file or the whole new one), with the object's time. */
async function download(blobs: BlobStore, bucket: string, key: string, dir: string, name: string, time?: Date): Promise<void> {
  const tmp = `${dir}/${name}.runyard-part-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    await pipeline(await blobs.get(bucket, key), createWriteStream(tmp, { flags: 'wx', mode: 0o644 }));
    // lutimes: a link a task swapped in for the part file has its own times set, never its target's.
    if (time) await lutimes(tmp, time, time);
    await rename(tmp, `${dir}/${name}`);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
