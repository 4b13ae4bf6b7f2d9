import { createExecutors } from '../../src/executors/registry.js';
import { SessionRunner } from '../../src/scheduler/session-runner.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { waitFor } from '../scheduler/helpers.js';
import { sessionWorld, type SessionWorld } from './world.js';

/** A session world whose sessions really run: listening on a loopback port (the proxy), with a session runner. */
export interface RunningSessionWorld extends SessionWorld {
  /** http://127.0.0.1:<port> */
  url: string;
  runner: SessionRunner;
  /** Stops every session still running (as a forced pause), then the runner and the server. */
  close(): Promise<void>;
}

const RUNNING = ['initializing', 'setup', 'ready'];

export async function runningSessionWorld(env: NodeJS.ProcessEnv = {}): Promise<RunningSessionWorld> {
  const w = await sessionWorld({ RUNYARD_ABORT_GRACE_MS: '3000', ...env });
  // The proxy is reached over real HTTP and WebSocket.
  const url = await w.s.app.listen({ host: '127.0.0.1', port: 0 });
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
  return {
    ...w,
    url,
    runner,
    async close() {
      for (const id of await active(RUNNING)) await w.abort(id, { uploadOnClose: false, forceAbort: true });
      await waitFor('every session to stop', async () => (await active([...RUNNING, 'aborting'])).length === 0, 60_000);
      await runner.stop();
      await w.close();
    },
  };
}
