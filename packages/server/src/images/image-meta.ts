import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the cache keeps of each unpacked image, in `meta/sha256-<hex>.json` beside it (written by the server only). */
export interface ImageMeta {
  digest: string;
  /** The references it was pulled as (`registry/repository:tag`), most recent last. */
  references: string[];
  pulledAt: string;
  /** Its last pull, found in the cache or not: the least recently used go first. */
  lastUsedAt: string;
  /** The unpacked root filesystem on disk (tree-size.ts); its layers in the layout are not counted (shared with other images). */
  sizeBytes: number;
}

/** Enough references to say what an image is, not a list that grows with every tag ever pulled. */
const MAX_REFERENCES = 20;

/** The meta file, or null when it is missing or not a regular file of ours (a link is not followed). */
export function readImageMeta(file: string): ImageMeta | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    if (!fstatSync(fd).isFile()) return null;
    const meta = JSON.parse(readFileSync(fd, 'utf8')) as ImageMeta;
    const valid =
      typeof meta.digest === 'string' &&
      Array.isArray(meta.references) &&
      meta.references.every((r) => typeof r === 'string') &&
      typeof meta.pulledAt === 'string' &&
      typeof meta.lastUsedAt === 'string' &&
      Number.isFinite(meta.sizeBytes);
    return valid ? meta : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Writes the meta file whole (a temporary file renamed over it: a reader never sees half of one). */
export function writeImageMeta(file: string, meta: ImageMeta): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(partial, JSON.stringify(meta), { mode: 0o600, flag: 'wx' });
  renameSync(partial, file);
}

/** The meta after a pull as `reference` at `now`. */
export function usedAs(meta: ImageMeta, reference: string, now: Date): ImageMeta {
  const references = [...meta.references.filter((r) => r !== reference), reference].slice(-MAX_REFERENCES);
  return { ...meta, references, lastUsedAt: now.toISOString() };
}
