import type { Kysely } from 'kysely';

/**
 * The WDL engine server of each workspace (CloudOS's Cromwell server): made on first use, its
 * lifecycle (Stopped, Starting, Running, Stopping) kept across restarts, its driver (toil,
 * cromwell, miniwdl) and Cromwell URL, and its engine token: the SHA-256 (hex) finds the row of a
 * Bearer token, the token itself is sealed with the server's key (store/secret-box.ts) so that an
 * admin can show it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('engine_servers')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().unique())
    .addColumn('driver', 'varchar(16)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('process_json', 'text')
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('token_sealed', 'text', (c) => c.notNull())
    .addColumn('status_message', 'text')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('engine_servers_token_hash').on('engine_servers').column('token_hash').unique().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('engine_servers').execute();
}
