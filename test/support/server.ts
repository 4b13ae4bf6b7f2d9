import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import {
  buildApp,
  createApiKey,
  createInitialAdmin,
  createUser,
  createWorkspace,
  loadConfig,
  migrateToLatest,
  openStore,
  type Config,
  type Store,
} from '@runyard/server';
import { TEST_CAPACITY } from './capacity.js';
import { TEST_JOB_IMAGES } from './job-images.js';
import { freshDatabaseUrl } from './database.js';
import { nextflowHomeEnv } from './nextflow-home.js';

export interface Tenant {
  userId: string;
  workspaceId: string;
  apikey: string;
}

export interface TestServer {
  app: FastifyInstance;
  store: Store;
  config: Config;
  /** Base URL of the listening server (only when started with listen: true). */
  url: string;
  admin: Tenant;
  /** Every log line the server wrote. */
  logs: string[];
  /** A new user with a workspace of their own and a key: another tenant. */
  newTenant(name: string): Promise<Tenant>;
  close(): Promise<void>;
}

/** A real server on a fresh database (SQLite, or PostgreSQL in CI), with the first admin created, and room for many jobs (TEST_CAPACITY). */
export async function startTestServer(options: { listen?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-data-'));
  const config = loadConfig({
    RUNYARD_DATA_DIR: dataDir,
    RUNYARD_PORT: '0',
    RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
    RUNYARD_LOG_LEVEL: 'info',
    // The Nextflow versions jobs ask for are installed (a job asking for another is refused).
    ...nextflowHomeEnv(),
    ...TEST_CAPACITY,
    ...TEST_JOB_IMAGES,
    ...options.env,
  });
  const store = openStore(config.databaseUrl);
  await migrateToLatest(store.db);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp(config, { store, logStream });
  const first = await createInitialAdmin(store.db);
  if (!first) throw new Error('fresh database already had a user');
  const adminUser = await store.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
  let url = '';
  if (options.listen) {
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  } else {
    await app.ready();
  }
  return {
    app,
    store,
    config,
    url,
    logs,
    admin: { userId: adminUser.id, workspaceId: first.workspaceId, apikey: first.apikey },
    async newTenant(name: string) {
      const user = await createUser(store.db, { username: name, email: `${name}@example.org`, name, surname: 'Tester' });
      const ws = await createWorkspace(store.db, `${name} workspace`, user.id);
      const key = await createApiKey(store.db, user.id, `${name} key`);
      return { userId: user.id, workspaceId: ws.id, apikey: key.apikey };
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}
