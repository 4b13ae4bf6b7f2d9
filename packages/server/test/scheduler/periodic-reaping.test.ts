import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getJob, insertJob, insertWorkflow, setup, waitFor, waitForStatus, type Env } from './helpers.js';

const PAST = '2000-01-01T00:00:00.000Z';

/**
 * Leases and cost limits change with time, not with submissions: the scheduler looks for expired
 * leases once a poll interval, not at every wake (under load every submission wakes it, and each
 * look is a query over the active jobs). B2 measures what this saves; this test fails without it.
 */
describe('scheduler: expired leases are reaped once a poll interval, not at every wake', { timeout: 120_000 }, () => {
  let env: Env;
  before(async () => {
    // A minute between periodic passes: every pass this test causes within it is a wake.
    env = await setup({ env: { RUNYARD_SCHEDULER_POLL_MS: '60000' } });
  });
  after(() => env.close());

  it('a wake claims new jobs without reaping; the next periodic pass reaps', async () => {
    const wf = await insertWorkflow(env, { default_command: 'true' });
    const s = env.scheduler();
    s.start();
    // The first pass is periodic; a job that it or a wake claims tells it is done.
    const first = await insertJob(env, wf);
    s.wake();
    await waitForStatus(env, first, ['completed'], 60_000);

    // A job claimed by a scheduler that died, its lease long expired.
    const orphan = await insertJob(env, wf);
    await env.store.db
      .updateTable('jobs')
      .set({ status: 'initializing', attempt: 1, lease_owner: 'dead-scheduler', lease_expires_at: PAST })
      .where('id', '=', orphan)
      .execute();
    // Wakes (as submissions make) each run a pass that claims: none may look for expired leases.
    for (let i = 0; i < 3; i++) {
      const next = await insertJob(env, wf);
      s.wake();
      await waitForStatus(env, next, ['completed'], 60_000);
    }
    const untouched = await getJob(env, orphan);
    assert.equal(untouched.lease_owner, 'dead-scheduler', 'a wake reaped an expired lease');
    assert.equal(untouched.status, 'initializing');

    // A scheduler whose poll interval has passed (a new one: its first pass is periodic) reaps it.
    await s.stop({ releaseLeases: false });
    const next = env.scheduler();
    next.start();
    await waitFor(
      'the expired lease to be reaped',
      async () => ((await getJob(env, orphan)).lease_owner !== 'dead-scheduler' ? true : undefined),
      60_000,
    );
  });
});
