import type { Kysely } from 'kysely';

/**
 * The dashboard's sign-ins (services/web-sessions.ts): one row per session cookie, found by the
 * SHA-256 of the cookie's token (the token itself is never stored), with the API key it was
 * made with, so that revoking the key ends the session too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('web_sessions')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('api_key_id', 'varchar(24)', (c) => c.notNull().references('api_keys.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('expires_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_expires').on('web_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('web_sessions').execute();
}
