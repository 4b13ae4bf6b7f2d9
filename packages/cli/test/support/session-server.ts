import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RunyardClient } from '@runyard/client';
import { TEST_CAPACITY } from '../../../../test/support/capacity.js';
import { TEST_JOB_IMAGES } from '../../../../test/support/job-images.js';
import { freshDatabaseUrl, usingPostgres } from '../../../../test/support/database.js';
import { waitForOutput } from './child-output.js';
import { connectionArgs } from './connection-args.js';
import { spawnCli } from './run-cli.js';

// `runyard server start` for the tests of the interactive-session and link commands: its background
// work runs jobs and sessions (real Jupyter in the task sandbox).

/** Whether `jupyter` is on the PATH (the session tests are skipped without it). */
export const JUPYTER = (process.env.PATH ?? '').split(path.delimiter).some((d) => d && existsSync(path.join(d, 'jupyter')));

/** Polls fn until it returns something (not undefined), or fails after ms. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 240_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Where nothing listens: a command that reached for the server would fail with "Is the server running?". */
export const NOWHERE = connectionArgs('http://127.0.0.1:1', 'ry_unused_key', '6630f0aa11223344556677ff');

export interface SessionServer {
  url: string;
  ws: string;
  apikey: string;
  /** The admin's connection flags for the CLI. */
  conn: string[];
  /** A client with the admin key, for setting up and checking. */
  client: RunyardClient;
  /** Stops every session still active, then the server. */
  close(): Promise<void>;
}

/** `runyard server start` on a fresh data directory (and database), with a project "demo". */
export async function startSessionServer(): Promise<SessionServer> {
  // Jupyter's kernel sockets live under the data directory, whose path must be short (docs/sessions.md).
  const base = os.tmpdir().length <= 16 ? os.tmpdir() : '/tmp';
  const dataDir = mkdtempSync(path.join(base, 'rys-'));
  const env: Record<string, string> = {
    RUNYARD_LOG_LEVEL: 'warn',
    RUNYARD_ABORT_GRACE_MS: '3000',
    ...TEST_CAPACITY,
    ...TEST_JOB_IMAGES,
    ...(usingPostgres() && { RUNYARD_DATABASE_URL: await freshDatabaseUrl() }),
  };
  const server: ChildProcess = spawnCli(['server', 'start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { env });
  server.stdin!.end();
  server.stderr!.resume();
  const stop = async () => {
    if (server.exitCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  let client: RunyardClient | undefined;
  try {
    const [, url, ws, apikey] = await waitForOutput(
      server,
      /URL: +(\S+)\n {2}Workspace id: +([0-9a-f]{24})\n {2}API key: +(\S+)\n/,
      120_000,
    );
    server.stdout!.resume();
    client = new RunyardClient({ platformUrl: url, apikey });
    await client.createProject(ws, 'demo');
    const admin = client;
    return {
      url,
      ws,
      apikey,
      conn: connectionArgs(url, apikey, ws),
      client: admin,
      async close() {
        // Sessions still running are stopped at once (a runner that stops leaves its sessions running).
        const active = async () =>
          (await admin.getInteractiveSessionList(ws, { limit: 100, status: ['scheduled', 'provisioning', 'running', 'aborting'] }))
            .sessions;
        try {
          for (const s of await active()) {
            if (s.status !== 'aborting') await admin.abortInteractiveSession(s._id, ws, false, true).catch(() => undefined);
          }
          await until('every session to stop', async () => ((await active()).length === 0 ? true : undefined), 60_000);
        } catch {
          // The server is stopped below anyway.
        }
        admin.close();
        await stop();
      },
    };
  } catch (e) {
    client?.close();
    await stop();
    throw e;
  }
}

/** `interactive-session create` of a Jupyter session named `name` in project "demo", then `extra`. */
export function createJupyterArgs(name: string, extra: string[] = []): string[] {
  return ['interactive-session', 'create', '--project-name', 'demo', '--name', name, '--session-type', 'jupyter', ...extra];
}
