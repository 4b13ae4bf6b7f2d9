import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { ImageCache } from '../images/image-cache.js';
import { mirrorSettings } from '../images/mirror-settings.js';
import type { Database } from '../store/schema.js';
import { RUNNING_SESSION_STATUSES } from './session-state.js';

/** The statuses of a job whose task is (or is about to be) in its image: the cache keeps that image. */
export const IMAGE_USING_STATUSES = ['initializing', 'running', 'aborting'] as const;

/**
 * How many jobs and sessions use each image digest now (jobs.image_digest and
 * interactive_sessions.image_digest, recorded before the pull looks in the cache:
 * scheduler/image-pull.ts, session-image.ts), for the image cache's eviction and its list.
 */
export async function imagesInUse(db: Kysely<Database>): Promise<Map<string, number>> {
  const [jobs, sessions] = await Promise.all([
    db
      .selectFrom('jobs')
      .select((eb) => ['image_digest', eb.fn.countAll<number | string>().as('users')])
      .where('status', 'in', IMAGE_USING_STATUSES)
      .where('image_digest', 'is not', null)
      .groupBy('image_digest')
      .execute(),
    db
      .selectFrom('interactive_sessions')
      .select((eb) => ['image_digest', eb.fn.countAll<number | string>().as('users')])
      .where('status', 'in', RUNNING_SESSION_STATUSES)
      .where('image_digest', 'is not', null)
      .groupBy('image_digest')
      .execute(),
  ]);
  const inUse = new Map<string, number>();
  for (const r of [...jobs, ...sessions]) inUse.set(r.image_digest!, (inUse.get(r.image_digest!) ?? 0) + Number(r.users));
  return inUse;
}

/** Bytes of the configured cache limit (imageCacheLimitGiB). */
export const imageCacheLimitBytes = (gib: number): number => Math.floor(gib * 1024 ** 3);

/**
 * The server's image cache (imageCacheDir) with its settings: its limit, what the database says
 * jobs and sessions use, its insecure registries, how long a registry's answer is used. Every
 * process's scheduler, session runner and administration make theirs here, so they agree.
 */
export function serverImageCache(config: Config, db: Kysely<Database>): ImageCache {
  return new ImageCache({
    dataDir: config.dataDir,
    root: config.imageCacheDir,
    insecureRegistries: config.insecureRegistries,
    limitBytes: imageCacheLimitBytes(config.imageCacheLimitGiB),
    inUse: () => imagesInUse(db),
    recheckMs: config.imageRecheckSeconds * 1000,
    mirrors: mirrorSettings(config.registryMirrors, config.registryMirrorAuthFile),
  });
}
