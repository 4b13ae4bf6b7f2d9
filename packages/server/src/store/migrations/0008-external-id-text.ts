import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * A task's external id (JSON) holds the argv that stop it and probe it (a container runtime's path,
 * its name): longer than the 200 characters first given. SQLite does not enforce the length.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`alter table jobs alter column external_id type text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter)
    await sql`alter table jobs alter column external_id type varchar(200)`.execute(db);
}
