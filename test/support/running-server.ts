import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Scheduler } from '@runyard/server';
import { startTestServer, type TestServer } from './server.js';

/** test/fixtures/bin: the fixture `nextflow` (follows the real command's contract) that tasks find first on their PATH. */
export const FIXTURE_BIN = fileURLToPath(new URL('../fixtures/bin', import.meta.url));

export interface RunningServer extends TestServer {
  scheduler: Scheduler;
}

/**
 * A listening test server that also runs jobs: a scheduler on its database polling every 50 ms,
 * and tasks that find the fixture nextflow first on their PATH (the same code path as a real one).
 */
export async function startRunningServer(env: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const s = await startTestServer({
    listen: true,
    env: {
      RUNYARD_SCHEDULER_POLL_MS: '50',
      RUNYARD_ABORT_GRACE_MS: '1000',
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
      PATH: process.env.PATH,
      ...env,
    },
  });
  const scheduler = new Scheduler({ store: s.store, config: s.config });
  scheduler.start();
  const close = s.close;
  return Object.assign(s, {
    scheduler,
    async close() {
      await scheduler.stop();
      await close();
    },
  });
}
