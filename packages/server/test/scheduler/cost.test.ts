import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { computeCostCents, costLimitExceeded } from '../../src/scheduler/cost.js';
import { assertLegalHistory, insertJob, insertWorkflow, setup, testConfig, waitForStatus, type Env } from './helpers.js';

/** 3,600 cents per CPU-hour: one cent per CPU-second. */
const CENT_PER_CPU_SECOND = '3600';

describe('scheduler: compute cost', { timeout: 60_000 }, () => {
  let env: Env;
  before(async () => {
    env = await setup({ env: { RUNYARD_CPU_HOUR_COST_CENTS: CENT_PER_CPU_SECOND } });
  });
  after(() => env.close());
  afterEach(() => env.stopSchedulers());

  it('the model: requested CPUs x hours run x the price of a CPU-hour; nothing by default', () => {
    const start = '2024-01-01T00:00:00.000Z';
    assert.equal(computeCostCents(env.config, 2, start, Date.parse(start) + 1500), 3);
    assert.equal(computeCostCents(testConfig(), 2, start, Date.parse(start) + 3_600_000), 0);
    assert.equal(computeCostCents(env.config, 2, null, Date.now()), 0);
    assert.equal(costLimitExceeded(101, 1), true);
    assert.equal(costLimitExceeded(100, 1), false);
    assert.equal(costLimitExceeded(1e9, -1), false);
  });

  it('a finished job records its cost', async () => {
    env.scheduler().start();
    const id = await insertJob(env, await insertWorkflow(env, { default_command: 'sleep 0.5' }), { resource_cpu: 2 });
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed');
    const expected = ((Date.parse(job.end_time!) - Date.parse(job.start_time!)) * 2) / 1000;
    assert.ok(Math.abs(job.compute_cost_cents - expected) < 0.01, `${job.compute_cost_cents} != ${expected}`);
    assert.ok(job.compute_cost_cents >= 1);
  });

  it('a job whose cost passes its computeCostLimit is aborted, with a message that says why', async () => {
    env.scheduler().start();
    const started = Date.now();
    const id = await insertJob(env, await insertWorkflow(env, { default_command: 'sleep 30' }), { cost_limit: 0.01 });
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
    assert.equal(job.status, 'aborted');
    assert.ok(Date.now() - started < 10_000);
    assert.match(job.status_message!, /^The job was aborted: its compute cost \(0\.\d\d USD\) passed its limit of 0\.01 USD\.$/);
    assert.ok(job.compute_cost_cents > 1);
    assert.deepEqual(
      (await assertLegalHistory(env, id)).map((c) => c.to),
      ['scheduled', 'initializing', 'running', 'aborting', 'aborted'],
    );
  });
});
