// Downloads from the workspace's storage (`GET /api/runyard/storage/object`, with Range): one object,
// or every object under a folder, into local files; a partial file is resumed, a whole one skipped.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ApiError, RunyardValueError } from '../errors.js';
import type { CloudMeta, CloudName } from '../job-data/types.js';
import type { Transport } from '../transport.js';
import { listObjects, STORAGE_OBJECT_ROUTE, type StoredObject } from './list-objects.js';

export { listObjects, storageObjectPath, type StoredObject } from './list-objects.js';

export interface DownloadOptions {
  /** Called as bytes arrive: the object, its bytes on disk so far (a resumed part included), its size. */
  onProgress?: (object: StoredObject, received: number) => void;
  signal?: AbortSignal;
}

export interface Downloaded {
  object: StoredObject;
  file: string;
  /** skipped: the file was there whole; resumed: a partial download (`<file>.part`) was continued. */
  how: 'downloaded' | 'resumed' | 'skipped';
}

async function sizeOf(file: string): Promise<number | null> {
  const s = await stat(file).catch(() => null);
  if (!s) return null;
  if (!s.isFile()) throw new RunyardValueError(`"${file}" exists and is not a file.`);
  return s.size;
}

/**
 * Downloads one object to `file`: skipped when `file` already has the object's size; otherwise
 * written to `<file>.part` (continued from its end with a Range request when it exists) and renamed
 * once whole.
 */
export async function downloadObject(
  t: Transport,
  workspaceId: string,
  object: StoredObject,
  file: string,
  options: DownloadOptions = {},
): Promise<Downloaded> {
  if ((await sizeOf(file)) === object.size) {
    options.onProgress?.(object, object.size);
    return { object, file, how: 'skipped' };
  }
  await mkdir(path.dirname(file), { recursive: true });
  const part = `${file}.part`;
  let offset = (await sizeOf(part)) ?? 0;
  if (offset > object.size) {
    await truncate(part, 0);
    offset = 0;
  }
  const resumed = offset > 0;
  if (offset < object.size || object.size === 0) {
    const query = { bucket: object.bucket, key: object.key, teamId: workspaceId };
    let res;
    try {
      res = await t.stream(STORAGE_OBJECT_ROUTE, {
        query,
        signal: options.signal,
        ...(offset > 0 && { headers: { range: `bytes=${offset}-` } }),
      });
    } catch (e) {
      // The object shrank since it was listed: start again.
      if (!(e instanceof ApiError && e.status === 416)) throw e;
      offset = 0;
      res = await t.stream(STORAGE_OBJECT_ROUTE, { query, signal: options.signal });
    }
    // 200: the whole object (the server served no range): written from the start.
    if (res.statusCode !== 206) offset = 0;
    let received = offset;
    res.on('data', (c: Buffer) => {
      received += c.length;
      options.onProgress?.(object, received);
    });
    await pipeline(res, createWriteStream(part, { flags: offset > 0 ? 'r+' : 'w', start: offset }));
  }
  const size = await sizeOf(part);
  if (size !== object.size)
    throw new RunyardValueError(`The download of ${object.key} ended at ${size} of ${object.size} bytes; run it again to resume.`);
  await rename(part, file);
  return { object, file, how: resumed ? 'resumed' : 'downloaded' };
}

/** `dir`/`relative` (a `/`-separated path), refused when it would leave dir. */
export function pathInside(dir: string, relative: string): string {
  const target = path.resolve(dir, ...relative.split('/'));
  if (!target.startsWith(path.resolve(dir) + path.sep)) throw new RunyardValueError(`"${relative}" would be written outside ${dir}.`);
  return target;
}

/** Downloads every object under `prefix` into `dir`, keeping their paths below prefix; one at a time. */
export async function downloadFolder(
  t: Transport,
  workspaceId: string,
  cloud: { name: CloudName; meta?: CloudMeta | null },
  bucket: string,
  prefix: string,
  dir: string,
  options: DownloadOptions & { onListed?: (objects: StoredObject[]) => void } = {},
): Promise<Downloaded[]> {
  const objects = await listObjects(t, workspaceId, cloud, bucket, prefix);
  options.onListed?.(objects);
  const done: Downloaded[] = [];
  for (const o of objects) done.push(await downloadObject(t, workspaceId, o, pathInside(dir, o.relative), options));
  return done;
}
