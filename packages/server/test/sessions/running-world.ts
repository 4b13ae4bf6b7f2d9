import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createExecutors } from '../../src/executors/registry.js';
import { existsSync, readFileSync } from 'node:fs';
import { SessionRunner, sessionDirsOf } from '../../src/scheduler/session-runner.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { waitFor } from '../scheduler/helpers.js';
import { execute, openChannels } from '../sessions-runtime/kernel.js';
import { cookieOf, request } from '../sessions-runtime/proxy-app.js';
import { call } from '../wire.js';
import { sessionWorld, type SessionWorld } from './world.js';

/** A session world whose sessions really run: listening on a loopback port (the proxy), with a session runner. */
export interface RunningSessionWorld extends SessionWorld {
  /** The platform: http://127.0.0.1:<port> */
  url: string;
  /** Where sessions' web UIs are served (their own origin, the loopback default): http://localhost:<port> */
  sessionsUrl: string;
  runner: SessionRunner;
  /** The session's document once its status is one of `statuses` (failing when it stopped otherwise). */
  until(id: string, statuses: string[]): Promise<Record<string, any>>;
  /** Opens the session's UI as a person would: a launch link, exchanged for the proxy's cookie. */
  open(id: string, apikey?: string): Promise<{ cookie: string; base: string }>;
  /** Runs code in a new kernel of the session, through the proxy. */
  runCell(id: string, code: string): Promise<{ stdout: string; result: string | null; status: string }>;
  /** Stops every session still running (as a forced pause), then the runner and the server. */
  close(): Promise<void>;
}

const RUNNING = ['initializing', 'setup', 'ready'];

export async function runningSessionWorld(env: NodeJS.ProcessEnv = {}): Promise<RunningSessionWorld> {
  const w = await sessionWorld({ RUNYARD_ABORT_GRACE_MS: '3000', ...env });
  // The proxy is reached over real HTTP and WebSocket.
  const url = await w.s.app.listen({ host: '127.0.0.1', port: 0 });
  const sessionsUrl = url.replace('//127.0.0.1:', '//localhost:');
  const runner = new SessionRunner({
    db: w.s.store.db,
    config: w.s.config,
    blobs: createBlobStore(w.s.config),
    executor: createExecutors(w.s.config).local!,
    pollMs: 100,
  });
  runner.start();
  const active = async (statuses: string[]) =>
    (await w.s.store.db.selectFrom('interactive_sessions').select('id').where('status', 'in', statuses).execute()).map((r) => r.id);
  const until = (id: string, statuses: string[]) =>
    waitFor(
      `session ${id} to be ${statuses.join(' or ')}`,
      async () => {
        const r = await w.getSession(id);
        assert.equal(r.statusCode, 200, r.body);
        const doc = r.json();
        if (!statuses.includes(doc.status) && ['aborted', 'terminated'].includes(doc.status))
          assert.fail(`session ${id} is ${doc.status}: ${doc.statusMessage ?? ''}`);
        return statuses.includes(doc.status) ? (doc as Record<string, any>) : undefined;
      },
      240_000,
    );
  const open = async (id: string, apikey = w.s.admin.apikey) => {
    const link = await call(w.s, 'POST', `/api/runyard/interactive-sessions/${id}/ui-link?teamId=${w.ws}`, undefined, apikey);
    assert.equal(link.statusCode, 200, link.body);
    const launch: string = link.json().url;
    assert.match(launch, new RegExp(`^${sessionsUrl}/api/runyard/interactive-sessions/${id}/ui/\\?token=`));
    const launched = await request(launch);
    assert.equal(launched.status, 200, `${launched.body}${await diagnose(id)}`);
    return { cookie: cookieOf(launched), base: `/api/runyard/interactive-sessions/${id}/ui/` };
  };
  // What the proxy and the session's server said, for an answer that was not the one expected.
  const diagnose = async (id: string) => {
    const proxy = w.s.logs.filter((line) => line.includes('did not answer') || line.includes(id)).slice(-10);
    const logFile = sessionDirsOf(w.s.config, id).logFile;
    const tail = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n') : '(no session log)';
    const row = await w.s.store.db.selectFrom('interactive_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    return `\nsession row: ${JSON.stringify({ status: row?.status, attempt: row?.attempt, ui: row?.ui_address, ext: row?.external_id })}\nserver log:\n${proxy.join('\n')}\nsession log tail:\n${tail}`;
  };
  const runCell = async (id: string, code: string) => {
    const { cookie, base } = await open(id);
    const headers = { cookie, origin: sessionsUrl };
    const created = await request(`${sessionsUrl}${base}api/kernels`, {
      method: 'POST',
      body: JSON.stringify({ name: 'python3' }),
      headers: { ...headers, 'content-type': 'application/json' },
    });
    assert.equal(created.status, 201, `${created.body}${await diagnose(id)}`);
    const kernel = JSON.parse(created.body) as { id: string };
    const ws = await openChannels(
      `${sessionsUrl.replace(/^http/, 'ws')}${base}api/kernels/${kernel.id}/channels?session_id=${randomUUID()}`,
      headers,
    );
    try {
      return await execute(ws, code, 180_000);
    } finally {
      ws.close();
    }
  };
  return {
    ...w,
    url,
    sessionsUrl,
    runner,
    until,
    open,
    runCell,
    async close() {
      for (const id of await active(RUNNING)) await w.abort(id, { uploadOnClose: false, forceAbort: true });
      await waitFor('every session to stop', async () => (await active([...RUNNING, 'aborting'])).length === 0, 60_000);
      await runner.stop();
      await w.close();
    },
  };
}
