import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { usingPostgres } from '../../../../test/support/database.js';
import type { TestServer } from '../../../../test/support/server.js';

/** Tables that hold workspace state; a test fails if the database grows one that is not listed. */
export const STATE_TABLES = [
  'users',
  'workspaces',
  'memberships',
  'api_keys',
  'projects',
  'workflows',
  'queues',
  'jobs',
  'datasets',
  'folders',
  'files',
  'hpc_clusters',
  'docker_registries',
  'engine_servers',
  'interactive_sessions',
  'session_mounts',
  'web_sessions',
] as const;

/** Written at most once a minute by authentication itself, whoever calls. */
const VOLATILE = new Set(['last_used_at']);

/** Every row of every state table and every file under the data directory, as one comparable string. */
export async function stateSnapshot(s: TestServer): Promise<string> {
  const tables: Record<string, unknown[]> = {};
  for (const table of STATE_TABLES) {
    const rows = (await s.store.db.selectFrom(table).selectAll().execute()) as Record<string, unknown>[];
    tables[table] = rows
      .map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !VOLATILE.has(k))))
      .map((row) => JSON.stringify(row))
      .sort();
  }
  return JSON.stringify({ tables, files: filesUnder(s.config.dataDir) });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile())
    .map((file) => `${file}:${statSync(file).size}`)
    .sort();
}

/** Names of the application's tables in this test's database (the migration bookkeeping aside). */
export async function databaseTables(s: TestServer): Promise<string[]> {
  // On PostgreSQL every test has its own schema of one database: only this one's tables count.
  const schema = usingPostgres()
    ? (await sql<{ name: string }>`select current_schema() as name`.execute(s.store.db)).rows[0].name
    : undefined;
  const tables = await s.store.db.introspection.getTables();
  return tables
    .filter((t) => t.schema === schema && !t.name.startsWith('runyard_migrations'))
    .map((t) => t.name)
    .sort();
}
