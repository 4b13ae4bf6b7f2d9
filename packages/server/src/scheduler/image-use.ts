import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** The statuses of a job whose task is (or is about to be) in its image: the cache keeps that image. */
export const IMAGE_USING_STATUSES = ['initializing', 'running', 'aborting'] as const;

/**
 * How many jobs use each image digest now (jobs.image_digest, recorded before the pull looks in the
 * cache: scheduler/image-pull.ts), for the image cache's eviction and its list.
 */
export async function imagesInUse(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select((eb) => ['image_digest', eb.fn.countAll<number | string>().as('jobs')])
    .where('status', 'in', IMAGE_USING_STATUSES)
    .where('image_digest', 'is not', null)
    .groupBy('image_digest')
    .execute();
  return new Map(rows.map((r) => [r.image_digest!, Number(r.jobs)]));
}

/** Bytes of the configured cache limit (imageCacheLimitGiB). */
export const imageCacheLimitBytes = (gib: number): number => Math.floor(gib * 1024 ** 3);
