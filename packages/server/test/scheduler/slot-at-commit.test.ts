import assert from 'node:assert/strict';
import { fdatasync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openStore, type Store } from '../../src/store/database.js';
import { usingPostgres } from '../../../../test/support/database.js';
import { getJob, insertJob, insertWorkflow, setup, waitFor, waitForStatus, type Env } from './helpers.js';

/**
 * On SQLite a settle frees its job's slot when its UPDATE commits: the next job is claimed while
 * that commit's sync is still under way (the claim is synced after it: one WAL), not once the
 * settle is answered. The syncs of the scheduler's store are held here, and the scheduler polls
 * only once a minute: only the settle's commit can wake the pass that claims the second job.
 */
describe(
  'scheduler: a settle frees its slot at its commit, before its sync',
  { timeout: 60_000, skip: usingPostgres() && 'SQLite only' },
  () => {
    let env: Env;
    let store: Store;
    let holding = false;
    const held: (() => void)[] = [];

    before(async () => {
      env = await setup({ concurrency: 1, env: { RUNYARD_SCHEDULER_POLL_MS: '60000' } });
      store = openStore(env.databaseUrl, {
        syncData: (fd, done) => {
          if (holding) held.push(() => fdatasync(fd, done));
          else fdatasync(fd, done);
        },
      });
    });
    after(async () => {
      holding = false;
      held.splice(0).forEach((release) => release());
      await env.close();
      await store.close();
    });

    it("claims the queue's next job while the settle of the one before is not yet synced", async () => {
      const go = path.join(env.scratch, 'go');
      const script = path.join(env.scratch, 'wait-for-go.sh');
      writeFileSync(script, `while [ ! -e ${go} ]; do sleep 0.02; done\n`);
      const first = await insertJob(env, await insertWorkflow(env, { default_command: `bash ${script}` }));
      const second = await insertJob(env, await insertWorkflow(env, { default_command: 'true' }));
      env.scheduler({ store, runningMarkDelayMs: 0 }).start();
      await waitForStatus(env, first, ['running']);
      assert.equal((await getJob(env, second)).status, 'queued', 'one slot: the second job waits');
      holding = true;
      writeFileSync(go, '');
      // The first job's outcome is committed (another connection reads it), its sync held...
      await waitForStatus(env, first, ['completed']);
      // ...and meanwhile its slot went to the second job.
      await waitFor('the second job to be claimed', async () => (await getJob(env, second)).status !== 'queued');
      assert.ok(held.length > 0, "the first job's settle is not synced yet");
      holding = false;
      held.splice(0).forEach((release) => release());
      assert.equal((await waitForStatus(env, second, ['completed', 'failed'])).status, 'completed');
    });
  },
);
