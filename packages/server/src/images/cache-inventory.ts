import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ImageCacheError } from './cache-error.js';
import { DIGEST_NAME, digestOfName, nameOfDigest, type CachePaths } from './cache-paths.js';
import { readImageMeta, usedAs, writeImageMeta, type ImageMeta } from './image-meta.js';
import { removeTree } from './remove-tree.js';
import { runTool } from './run-tool.js';
import type { SharedLock } from './shared-lock.js';
import { treeBytes } from './tree-size.js';

/** How many jobs use each image digest now (initializing, running or aborting): the caller asks its database. */
export type ImagesInUse = () => Promise<ReadonlyMap<string, number>>;

export interface CachedImage extends ImageMeta {
  /** Jobs that use it now: it cannot be removed while any does. */
  jobs: number;
}

export interface CacheListing {
  /** Least recently used first: the order eviction removes them in. */
  images: CachedImage[];
  totalBytes: number;
  limitBytes: number;
}

/** Which unused images a prune removes: the least recently used until the cache is under its limit, all, or one. */
export type PruneScope = { kind: 'beyond-limit' } | { kind: 'all' } | { kind: 'digest'; digest: string };

export interface PruneResult extends CacheListing {
  removed: ImageMeta[];
}

export interface InventoryOptions {
  paths: CachePaths;
  /** The layout's lock (copies, tags, garbage collection) and the unpacked images' lock (use and removal). */
  layoutLock: SharedLock;
  rootfsLock: SharedLock;
  limitBytes: number;
  inUse: ImagesInUse;
  umoci: string;
}

const TRASH_PREFIX = '.removing-';

/**
 * The unpacked images of the cache, what is known of each (image-meta.ts), and their removal.
 *
 * A pull decides that an image is there to use, and an eviction decides what to remove, each
 * under the rootfs lock; a pull records its job's use of the digest (onResolved) before it looks.
 * So an eviction either sees that use, or renames the image away before the pull looks, which
 * then pulls it again: a job is never handed an image being removed.
 */
export class CacheInventory {
  constructor(private readonly o: InventoryOptions) {}

  get limitBytes(): number {
    return this.o.limitBytes;
  }

  /** Whether the image is unpacked here; if it is, its use as `reference` now is recorded. */
  useIfCached(digest: string, reference: string): Promise<boolean> {
    return this.o.rootfsLock.run(async () => {
      if (!existsSync(this.o.paths.rootfsOf(digest))) return false;
      writeImageMeta(this.o.paths.metaFileOf(digest), usedAs(this.metaOf(digest), reference, new Date()));
      return true;
    });
  }

  /** The meta of an image just unpacked at `partial`, written before it is renamed into place. */
  recordPulled(digest: string, reference: string, partial: string): void {
    const now = new Date().toISOString();
    const meta = { digest, references: [reference], pulledAt: now, lastUsedAt: now, sizeBytes: treeBytes(partial) };
    writeImageMeta(this.o.paths.metaFileOf(digest), meta);
  }

  list(): Promise<CacheListing> {
    return this.o.rootfsLock.run(async () => this.listing(await this.o.inUse()));
  }

  /**
   * Removes the unused images the scope names (never `keep`: the image a pull is for), then the
   * blobs no image in the layout uses any more. A digest that is not cached, or that a job uses, is
   * refused (ImageCacheError).
   */
  async prune(scope: PruneScope, keep?: string): Promise<PruneResult> {
    const { victims, trash } = await this.o.rootfsLock.run(async () => {
      const listing = this.listing(await this.o.inUse());
      const chosen = this.choose(listing, scope, keep);
      const moved = chosen.map((image) => this.moveAway(image.digest));
      return { victims: chosen, trash: moved };
    });
    if (victims.length || this.trashLeft().length) await this.collect(victims, trash);
    const after = await this.list();
    return { ...after, removed: victims.map(({ jobs: _jobs, ...meta }) => meta) };
  }

  private choose(listing: CacheListing, scope: PruneScope, keep?: string): CachedImage[] {
    if (scope.kind === 'digest') {
      const image = listing.images.find((i) => i.digest === scope.digest);
      if (!image) throw new ImageCacheError('not-cached', `the image ${scope.digest} is not in the cache`);
      if (image.jobs > 0)
        throw new ImageCacheError(
          'in-use',
          `the image ${scope.digest} is used by ${image.jobs} job(s) now; it can be removed once they end`,
        );
      return [image];
    }
    const unused = listing.images.filter((i) => i.jobs === 0 && i.digest !== keep);
    if (scope.kind === 'all') return unused;
    const chosen: CachedImage[] = [];
    let total = listing.totalBytes;
    for (const image of unused) {
      if (total <= listing.limitBytes) break;
      chosen.push(image);
      total -= image.sizeBytes;
    }
    return chosen;
  }

  /** Out of the pulls' sight at once (a rename), with its config and meta; its tree is removed later, under the layout's lock. */
  private moveAway(digest: string): string {
    const trash = path.join(this.o.paths.rootfsDir, `${TRASH_PREFIX}${nameOfDigest(digest)}-${randomBytes(4).toString('hex')}`);
    renameSync(this.o.paths.rootfsOf(digest), trash);
    rmSync(this.o.paths.configFileOf(digest), { force: true });
    rmSync(this.o.paths.metaFileOf(digest), { force: true });
    return trash;
  }

  /** Untags the removed images (unless pulled again meanwhile), collects the blobs no tag uses, removes the trees. */
  private collect(victims: readonly ImageMeta[], trash: readonly string[]): Promise<void> {
    const { paths, umoci } = this.o;
    const env = { PATH: process.env.PATH };
    return this.o.layoutLock.run(async () => {
      if (existsSync(paths.layout)) {
        for (const { digest } of victims) {
          if (existsSync(paths.rootfsOf(digest))) continue;
          const untagged = await runTool(umoci, ['rm', `--image=${paths.layout}:${nameOfDigest(digest)}`], env);
          if (untagged.code !== 0) throw new Error(`umoci could not remove the tag of ${digest}: ${untagged.stderr.trim()}`);
        }
        const collected = await runTool(umoci, ['gc', `--layout=${paths.layout}`], env);
        if (collected.code !== 0) throw new Error(`umoci could not collect the unused blobs: ${collected.stderr.trim()}`);
      }
      // This prune's trees, and any another process left when it stopped mid-removal.
      for (const dir of new Set([...trash, ...this.trashLeft()])) await removeTree(dir);
    });
  }

  /** Trees being removed, or left by a process that stopped while removing them. */
  private trashLeft(): string[] {
    const dir = this.o.paths.rootfsDir;
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((name) => name.startsWith(TRASH_PREFIX))
      .map((name) => path.join(dir, name));
  }

  private listing(uses: ReadonlyMap<string, number>): CacheListing {
    const images = this.digests()
      .map((digest) => ({ ...this.metaOf(digest), jobs: uses.get(digest) ?? 0 }))
      .sort((a, b) => a.lastUsedAt.localeCompare(b.lastUsedAt) || a.digest.localeCompare(b.digest));
    const totalBytes = images.reduce((sum, i) => sum + i.sizeBytes, 0);
    return { images, totalBytes, limitBytes: this.o.limitBytes };
  }

  /** The unpacked images: folders named by a digest (entries that are not folders, links among them, are not images). */
  private digests(): string[] {
    if (!existsSync(this.o.paths.rootfsDir)) return [];
    return readdirSync(this.o.paths.rootfsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && DIGEST_NAME.test(entry.name))
      .map((entry) => digestOfName(entry.name));
  }

  /** Its meta; for an image unpacked before metas were kept, made from its tree (pulled and last used: when it was unpacked). */
  private metaOf(digest: string): ImageMeta {
    const file = this.o.paths.metaFileOf(digest);
    const kept = readImageMeta(file);
    if (kept) return kept;
    const rootfs = this.o.paths.rootfsOf(digest);
    const unpackedAt = lstatSync(rootfs).mtime.toISOString();
    const meta = { digest, references: [], pulledAt: unpackedAt, lastUsedAt: unpackedAt, sizeBytes: treeBytes(rootfs) };
    writeImageMeta(file, meta);
    return meta;
  }
}
