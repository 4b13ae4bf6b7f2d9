#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp } from './app.js';
import { bindServer, ListenError } from './http/bound-server.js';
import { chooseLogFormat, logStreamFor } from './log-format.js';
import { ConfigError, databaseUrlOf, loadConfig, platformUrlOf, sessionsUrlOf, type Config } from './config.js';
import { createInitialAdmin, writeInitialAdminFile } from './services/bootstrap.js';
import { openStore, type Store } from './store/database.js';
import { newThreadTurnsBuffer } from './store/thread-turns.js';
import { makePrivateDir } from './store/private-files.js';
import { createExecutors } from './executors/registry.js';
import { containerRuntimeOf, probeContainerRuntime } from './engines/container-runtime.js';
import { hostNetworkWarning, taskUserNote, UNCONFINED_WARNING } from './executors/sandbox/sandbox.js';
import { leftOutNote, withUsableTaskPath } from './executors/sandbox/task-path.js';
import { queuesOnHostNetwork } from './services/queues.js';
import { nativeSpawnNote } from './executors/spawner/native-spawn.js';
import { migrateToLatest } from './store/migrate.js';
import { startBackgroundWork } from './background/background-work.js';
import { lowerApiThreadPriority } from './background/api-thread-priority.js';
import { startBackgroundThread, type BackgroundThread } from './background/background-thread-handle.js';
import { VERSION } from './version.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  config: Config;
  /** The scheduler and deletion worker's thread (role `all`; none for role `api`). */
  background: BackgroundThread | undefined;
  close(): Promise<void>;
}

/** Which WDL driver new engine servers get (a workspace's own may differ: runyard admin workspace set-engine). */
function wdlEngineLine(config: Config): string {
  const url =
    config.wdlEngine !== 'cromwell'
      ? ''
      : config.cromwellUrl
        ? ` at ${config.cromwellUrl}`
        : config.cromwellJar
          ? ` (a server per workspace that Runyard runs from ${config.cromwellJar})`
          : ' (no RUNYARD_CROMWELL_URL or RUNYARD_CROMWELL_JAR set)';
  return `WDL engine: ${config.wdlEngine}${url} for new workspaces (RUNYARD_WDL_ENGINE; one workspace's: runyard admin workspace set-engine)`;
}

function urlOf(config: Config, server: Server): string {
  return platformUrlOf(config, (server.address() as AddressInfo).port);
}

/**
 * Loads the configuration, binds the port, then (and only then: a port in use leaves no trace)
 * creates the data directory, opens and migrates the database, serves, and on first start creates the admin.
 */
export async function startServer(env: NodeJS.ProcessEnv = process.env, out: (line: string) => void = console.log): Promise<RunningServer> {
  // A task PATH's folders whose programs cannot work in the sandbox are left out of it (executors/sandbox/task-path.ts).
  const { config, leftOut } = withUsableTaskPath(loadConfig(env));
  if (config.role === 'scheduler') throw new ConfigError(['RUNYARD_ROLE=scheduler serves no API: start it with startSchedulerProcess().']);
  // Before anything else: without the configured sandbox or container runtime the server does not start at all.
  createExecutors(config);
  containerRuntimeOf(config);
  await probeContainerRuntime(config);
  const bound = await bindServer(config);
  let store: Store | undefined;
  try {
    makePrivateDir(config.dataDir);
    // Role all on SQLite: the API's thread and the background thread take turns at the file (thread-turns.ts).
    const turns = config.role === 'all' ? newThreadTurnsBuffer() : undefined;
    store = openStore(databaseUrlOf(config), turns ? { threadTurns: { buffer: turns, slot: 0 } } : {});
    await migrateToLatest(store.db);
    const logFormat = chooseLogFormat(config.logFormat, Boolean(process.stdout.isTTY));
    // Started after serving (a failed start starts no jobs); until then a wake-up has nothing to wake.
    let background: BackgroundThread | undefined;
    const app = await buildApp(config, {
      store,
      scheduler: { wake: () => background?.wakeScheduler() },
      deletionWorker: { wake: () => background?.wakeDeletion() },
      logStream: logStreamFor(logFormat),
      serverFactory: bound.serverFactory,
    });
    await app.ready();
    bound.serve();
    const url = urlOf(config, bound.server);
    out(`Runyard ${VERSION} is listening on ${url} (database: ${store.kind})`);
    const sessionsUrl = sessionsUrlOf(config, url);
    if (sessionsUrl) out(`Interactive sessions' web UIs are served at ${sessionsUrl} (RUNYARD_SESSIONS_URL)`);
    out(wdlEngineLine(config));
    if (config.sandbox === 'none') out(UNCONFINED_WARNING);
    const taskUser = taskUserNote(env, config);
    if (taskUser) out(taskUser);
    const pathNote = leftOutNote(leftOut, 'Note');
    if (pathNote) out(pathNote);
    const hostNetwork = hostNetworkWarning(config.taskNetwork, await queuesOnHostNetwork(store.db));
    if (hostNetwork) out(hostNetwork);
    // The local executor runs in this process's scheduler (role all) only.
    const spawnNote = config.role === 'all' ? nativeSpawnNote(config.nativeSpawn) : null;
    if (spawnNote) out(spawnNote);
    const admin = await createInitialAdmin(store.db);
    if (admin) {
      const file = writeInitialAdminFile(config.dataDir, url, admin);
      out('First start: created the admin user, a workspace and an API key. The key is shown once; it is also in');
      out(`${file} (readable by you only).`);
      out(`  URL:          ${url}`);
      out(`  Workspace id: ${admin.workspaceId}`);
      out(`  API key:      ${admin.apikey}`);
    }
    // The scheduler reattaches to what still runs from the last life. It runs on a thread of its own,
    // so that request handling never starves it. An API-only process runs none: schedulers of other
    // processes see its submissions at their poll.
    let restorePriority: () => void = () => undefined;
    if (config.role === 'all') {
      background = await startBackgroundThread(env, logFormat, app.log, turns && { buffer: turns, slot: 1 });
      // libuv's thread pool (files, DNS), shared by both threads, is made by its first use: before, so it
      // keeps the normal priority.
      await access(config.dataDir);
      restorePriority = lowerApiThreadPriority(config.apiThreadNice);
    } else out(`Role api: this process runs no job; a scheduler process (--role scheduler) on the same database does.`);
    const opened = store;
    let closing: Promise<void> | undefined;
    // Running tasks are left running: the next start reattaches to them.
    const close = () =>
      (closing ??= Promise.resolve(background?.stop())
        .then(() => app.close())
        .then(() => bound.close())
        .then(() => restorePriority())
        .then(() => opened.close()));
    return { app, url, config, background, close };
  } catch (e) {
    await bound.close();
    await store?.close();
    throw e;
  }
}

/**
 * RUNYARD_ROLE=scheduler: opens and migrates the database, then runs the scheduler and the
 * deletion worker, and serves nothing. Any number of these share a database with API processes.
 */
export async function startSchedulerProcess(
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = console.log,
): Promise<{ schedulerId: string; close(): Promise<void> }> {
  const { config, leftOut } = withUsableTaskPath(loadConfig(env));
  createExecutors(config);
  containerRuntimeOf(config);
  await probeContainerRuntime(config);
  makePrivateDir(config.dataDir);
  const store = openStore(databaseUrlOf(config));
  let hostQueues: string[];
  try {
    await migrateToLatest(store.db);
    hostQueues = await queuesOnHostNetwork(store.db);
  } finally {
    await store.close();
  }
  const log = pino({ level: config.logLevel }, logStreamFor(chooseLogFormat(config.logFormat, Boolean(process.stdout.isTTY))));
  // Nothing else runs on this process's event loop: the work runs on it directly.
  const work = startBackgroundWork(config, log);
  out(`Runyard ${VERSION} scheduler ${work.schedulerId} is running (database: ${work.databaseKind}); role scheduler serves no API.`);
  if (config.sandbox === 'none') out(UNCONFINED_WARNING);
  const taskUser = taskUserNote(env, config);
  if (taskUser) out(taskUser);
  const pathNote = leftOutNote(leftOut, 'Note');
  if (pathNote) out(pathNote);
  const hostNetwork = hostNetworkWarning(config.taskNetwork, hostQueues);
  if (hostNetwork) out(hostNetwork);
  const spawnNote = nativeSpawnNote(config.nativeSpawn);
  if (spawnNote) out(spawnNote);
  return { schedulerId: work.schedulerId, close: () => work.stop() };
}

/** Runs until SIGTERM or SIGINT, then stops taking requests, finishes those in flight, and exits. */
export async function runUntilSignalled(env: NodeJS.ProcessEnv = process.env, out: (line: string) => void = console.log): Promise<void> {
  const start = async (): Promise<{ close(): Promise<void> }> =>
    loadConfig(env).role === 'scheduler' ? startSchedulerProcess(env, out) : startServer(env, out);
  const starting = start().catch((e: Error) => {
    console.error(e instanceof ConfigError || e instanceof ListenError ? e.message : `Runyard could not start: ${e.message}`);
    process.exit(1);
  });
  // Handled from the first moment: a signal while the server starts stops it once it has started.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // The terminal has just echoed ^C with no line break.
      if (signal === 'SIGINT' && process.stdout.isTTY) out('');
      out(`Runyard is shutting down (${signal}): finishing the requests in flight; running jobs keep running...`);
      starting
        .then((server) => server.close())
        .then(
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
  await starting;
}

const invokedDirectly = process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) void runUntilSignalled();
