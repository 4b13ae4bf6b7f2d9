import type { ImageCacheListing, ImagePruneBody, ImagePruneReply } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { ImageCacheError } from '../images/cache-error.js';
import type { PruneScope } from '../images/cache-inventory.js';
import type { ImageCache } from '../images/image-cache.js';
import { serverImageCache } from '../scheduler/image-use.js';
import type { Database } from '../store/schema.js';

/**
 * The image cache of container jobs as the administration sees it: this server's cache directory
 * (imageCacheDir), which the schedulers on this host pull into, and the jobs that use its images
 * now, from the database. Pulls and prunes of other processes wait for each other through the
 * cache's lock files.
 */
function cacheOf(db: Kysely<Database>, config: Config): ImageCache {
  return serverImageCache(config, db);
}

export function listCachedImages(db: Kysely<Database>, config: Config): Promise<ImageCacheListing> {
  return cacheOf(db, config).list();
}

/** Unused images beyond the limit (no key), all unused images (`all`), or one digest (refused while a job uses it). */
export async function pruneCachedImages(db: Kysely<Database>, config: Config, body: ImagePruneBody): Promise<ImagePruneReply> {
  if (body.all && body.digest) throw new AppError('VALIDATION_FAILED', 'Give "all" or "digest", not both.');
  const scope: PruneScope = body.digest ? { kind: 'digest', digest: body.digest } : body.all ? { kind: 'all' } : { kind: 'beyond-limit' };
  try {
    return await cacheOf(db, config).prune(scope);
  } catch (error) {
    if (error instanceof ImageCacheError)
      throw new AppError(error.kind === 'in-use' ? 'IMAGE_IN_USE' : 'IMAGE_NOT_CACHED', `${capitalized(error.message)}.`);
    throw error;
  }
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
