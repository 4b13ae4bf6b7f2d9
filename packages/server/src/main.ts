#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { bindServer, ListenError } from './http/bound-server.js';
import { chooseLogFormat, logStreamFor } from './log-format.js';
import { ConfigError, databaseUrlOf, loadConfig, type Config } from './config.js';
import { createInitialAdmin, writeInitialAdminFile } from './services/bootstrap.js';
import { openStore, type Store } from './store/database.js';
import { makePrivateDir } from './store/private-files.js';
import { Scheduler } from './scheduler/scheduler.js';
import { createExecutors } from './executors/registry.js';
import { containerRuntimeOf } from './engines/container-runtime.js';
import { UNCONFINED_WARNING } from './executors/sandbox/sandbox.js';
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

function urlOf(config: Config, server: Server): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const { port } = server.address() as AddressInfo;
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
  return `${config.tlsCertFile ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Loads the configuration, binds the port, then (and only then: a port in use leaves no trace)
 * creates the data directory, opens and migrates the database, serves, and on first start creates the admin.
 */
export async function startServer(env: NodeJS.ProcessEnv = process.env, out: (line: string) => void = console.log): Promise<RunningServer> {
  const config = loadConfig(env);
  // Before anything else: without the configured sandbox or container runtime the server does not start at all.
  const executors = createExecutors(config);
  containerRuntimeOf(config);
  const bound = await bindServer(config);
  let store: Store | undefined;
  try {
    makePrivateDir(config.dataDir);
    store = openStore(databaseUrlOf(config));
    await migrateToLatest(store.db);
    const blobs = createBlobStore(config);
    const scheduler = new Scheduler({ store, config, blobs, executors });
    const deletionWorker = new DeletionWorker({ db: store.db, blobs, pollMs: config.deletionPollMs });
    const logStream = logStreamFor(chooseLogFormat(config.logFormat, Boolean(process.stdout.isTTY)));
    const app = await buildApp(config, { store, scheduler, blobs, deletionWorker, logStream, serverFactory: bound.serverFactory });
    await app.ready();
    bound.serve();
    const url = urlOf(config, bound.server);
    out(`Runyard ${VERSION} is listening on ${url} (database: ${store.kind})`);
    if (config.sandbox === 'none') out(UNCONFINED_WARNING);
    const admin = await createInitialAdmin(store.db);
    if (admin) {
      const file = writeInitialAdminFile(config.dataDir, url, admin);
      out('First start: created the admin user, a workspace and an API key. The key is shown once; it is also in');
      out(`${file} (readable by you only).`);
      out(`  URL:          ${url}`);
      out(`  Workspace id: ${admin.workspaceId}`);
      out(`  API key:      ${admin.apikey}`);
    }
    // After serving, so a failed start starts no jobs. It reattaches to what still runs from the last life.
    scheduler.start(app.log);
    deletionWorker.start(app.log);
    const opened = store;
    let closing: Promise<void> | undefined;
    // Running tasks are left running: the next start reattaches to them.
    const close = () =>
      (closing ??= Promise.all([scheduler.stop(), deletionWorker.stop()])
        .then(() => app.close())
        .then(() => bound.close())
        .then(() => opened.close()));
    return { app, url, config, scheduler, close };
  } catch (e) {
    await bound.close();
    await store?.close();
    throw e;
  }
}

/** Runs until SIGTERM or SIGINT, then stops taking requests, finishes those in flight, and exits. */
export async function runUntilSignalled(env: NodeJS.ProcessEnv = process.env, out: (line: string) => void = console.log): Promise<void> {
  let server: RunningServer;
  try {
    server = await startServer(env, out);
  } catch (e) {
    console.error(e instanceof ConfigError || e instanceof ListenError ? e.message : `Runyard could not start: ${(e as Error).message}`);
    process.exit(1);
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // The terminal has just echoed ^C with no line break.
      if (signal === 'SIGINT' && process.stdout.isTTY) out('');
      out(`Runyard is shutting down (${signal}): finishing the requests in flight; running jobs keep running...`);
      server.close().then(
        () => {
          out('Runyard stopped.');
          process.exit(0);
        },
        (e: Error) => {
          console.error(`Runyard did not stop cleanly: ${e.message}`);
          process.exit(1);
        },
      );
    });
  }
}

const invokedDirectly = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void runUntilSignalled();
