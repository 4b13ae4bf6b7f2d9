import type { Kysely } from 'kysely';

/**
 * The image an interactive session runs in (Runyard's `interactiveSessionConfiguration.image`, as
 * given), and the digest its current run was pulled as: the image cache keeps an image while a
 * session that runs in it does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('interactive_sessions').addColumn('image', 'text').execute();
  await db.schema.alterTable('interactive_sessions').addColumn('image_digest', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('interactive_sessions').dropColumn('image_digest').execute();
  await db.schema.alterTable('interactive_sessions').dropColumn('image').execute();
}
