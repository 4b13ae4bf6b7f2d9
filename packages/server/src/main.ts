#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, databaseUrlOf, loadConfig, type Config } from './config.js';
import { createInitialAdmin, writeInitialAdminFile } from './services/bootstrap.js';
import { openStore, type Store } from './store/database.js';
import { Scheduler } from './scheduler/scheduler.js';
import { DeletionWorker } from './services/deletion-worker.js';
import { createBlobStore } from './storage/registry.js';
import { migrateToLatest } from './store/migrate.js';
import { VERSION } from './version.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  config: Config;
  scheduler: Scheduler;
  close(): Promise<void>;
}

function urlOf(config: Config, app: FastifyInstance): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const { port } = app.server.address() as AddressInfo;
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
  return `${config.tlsCertFile ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Loads the configuration, opens and migrates the database, listens, and on first start creates the admin. */
export async function startServer(env: NodeJS.ProcessEnv = process.env, out: (line: string) => void = console.log): Promise<RunningServer> {
  const config = loadConfig(env);
  const store: Store = openStore(databaseUrlOf(config));
  await migrateToLatest(store.db);
  const blobs = createBlobStore(config);
  const scheduler = new Scheduler({ store, config, blobs });
  const deletionWorker = new DeletionWorker({ db: store.db, blobs, pollMs: config.deletionPollMs });
  const app = await buildApp(config, { store, scheduler, blobs, deletionWorker });
  await app.listen({ host: config.host, port: config.port });
  const url = urlOf(config, app);
  out(`Runyard ${VERSION} is listening on ${url} (database: ${store.kind})`);
  const admin = await createInitialAdmin(store.db);
  if (admin) {
    const file = writeInitialAdminFile(config.dataDir, url, admin);
    out('First start: created the admin user, a workspace and an API key. The key is shown once; it is also in');
    out(`${file} (readable by you only).`);
    out(`  URL:          ${url}`);
    out(`  Workspace id: ${admin.workspaceId}`);
    out(`  API key:      ${admin.apikey}`);
  }
  // After listening, so a port conflict starts no jobs. It reattaches to what still runs from the last life.
  scheduler.start(app.log);
  deletionWorker.start(app.log);
  let closing: Promise<void> | undefined;
  // Running tasks are left running: the next start reattaches to them.
  const close = () =>
    (closing ??= Promise.all([scheduler.stop(), deletionWorker.stop()])
      .then(() => app.close())
      .then(() => store.close()));
  return { app, url, config, scheduler, close };
}

/** Runs until SIGTERM or SIGINT, then stops taking requests, finishes those in flight, and exits. */
export async function runUntilSignalled(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let server: RunningServer;
  try {
    server = await startServer(env);
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `Runyard could not start: ${(e as Error).message}`);
    process.exit(1);
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      server.app.log.info({ signal }, 'shutting down');
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

const invokedDirectly = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void runUntilSignalled();
