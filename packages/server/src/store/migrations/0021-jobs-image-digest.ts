import type { Kysely } from 'kysely';

/**
 * The digest of the image a container job runs in (images/image-cache.ts), set when its image is
 * pulled: the image cache evicts no image that a job still initializing or running uses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('image_digest', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('image_digest').execute();
}
