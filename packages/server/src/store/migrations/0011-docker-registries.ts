import type { Kysely } from 'kysely';

/**
 * Docker registry accounts that users link (their password sealed with the server's key, see
 * store/secret-box.ts), and whether a job logs in with its user's account before it pulls its image.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('docker_registries')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull())
    .addColumn('registry', 'varchar(255)', (c) => c.notNull())
    .addColumn('username', 'varchar(255)', (c) => c.notNull())
    .addColumn('password_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('docker_registries_user_registry', ['user_id', 'registry'])
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('docker_login', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('docker_login').execute();
  await db.schema.dropTable('docker_registries').execute();
}
