import type { Kysely } from 'kysely';

/**
 * The folders and files linked into interactive sessions (wire-api §2.12): one row per mount name
 * of a session, with where the item is (resolved and checked when it was linked), how it was
 * given, and its status as the session's runner applied it (mounting, mounted, failed with a
 * message, unmounted while the session is paused). The items given at creation or resume
 * (interactive_sessions.data_items_json, fuse_file_systems_json) get their rows when a run starts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('session_mounts')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('session_id', 'varchar(24)', (c) => c.notNull().references('interactive_sessions.id'))
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('item_kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('storage_provider', 'varchar(16)', (c) => c.notNull())
    .addColumn('item_id', 'varchar(24)')
    .addColumn('bucket', 'varchar(255)', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('account', 'varchar(255)')
    .addColumn('given_json', 'text', (c) => c.notNull())
    .addColumn('source', 'varchar(16)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('error_message', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_mounts_name').on('session_mounts').columns(['session_id', 'name']).unique().execute();
  await db.schema.createIndex('session_mounts_status').on('session_mounts').columns(['status', 'session_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('session_mounts').execute();
}
