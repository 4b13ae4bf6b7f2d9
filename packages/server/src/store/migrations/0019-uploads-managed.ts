import { sql, type Kysely } from 'kysely';

/**
 * Files uploaded to a workspace (its default bucket, under `<workspace>/files/`) are managed by
 * Runyard: deleting the last item that points to one deletes the object too, and the item says so
 * (isManagedByLifebit, which the public client reads before it deletes). Earlier uploads said false.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update files set is_managed = 1
    where bucket = ${'runyard-'} || workspace_id and storage_key like workspace_id || ${'/files/%'}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update files set is_managed = 0
    where bucket = ${'runyard-'} || workspace_id and storage_key like workspace_id || ${'/files/%'}`.execute(db);
}
