import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/**
 * The database a test gets: a fresh SQLite file by default, or, when RUNYARD_TEST_DATABASE_URL
 * names a PostgreSQL server, a fresh schema on it (so test files can run in parallel).
 */
export async function freshDatabaseUrl(): Promise<string> {
  const base = process.env.RUNYARD_TEST_DATABASE_URL;
  if (!base) return `sqlite:${path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-db-')), 'runyard.db')}`;
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

export function usingPostgres(): boolean {
  return Boolean(process.env.RUNYARD_TEST_DATABASE_URL);
}
