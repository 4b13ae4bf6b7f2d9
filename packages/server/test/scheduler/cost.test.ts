import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { computeCostCents, costLimitExceeded } from '../../src/scheduler/cost.js';
import { assertLegalHistory, insertJob, insertWorkflow, setup, testConfig, waitForStatus, type Env } from './helpers.js';

/** 3,600 cents per CPU-hour: one cent per CPU-second. */
const CENT_PER_CPU_SECOND = '3600';

describe('scheduler: compute cost', { timeout: 300_000 }, () => {
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
    // The start time is when the scheduler reported the job running, which on a loaded machine can
    // be after a short task already ended: the task ends only when the test says, a second later.
    const go = path.join(env.scratch, 'cost-go');
    // The parameter is also appended to the command, as for every bash job: `true` takes it.
    const wf = await insertWorkflow(env, { default_command: 'while [ ! -e "$RUNYARD_PARAM_GO" ]; do sleep 0.05; done; true' });
    const id = await insertJob(env, wf, { resource_cpu: 2, parameters: [{ name: 'go', textValue: go }] });
    const running = await waitForStatus(env, id, ['running']);
    await sleep(Math.max(0, Date.parse(running.start_time!) + 1000 - Date.now()));
    writeFileSync(go, '');
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed');
    const expected = ((Date.parse(job.end_time!) - Date.parse(job.start_time!)) * 2) / 1000;
    assert.ok(Math.abs(job.compute_cost_cents - expected) < 0.01, `${job.compute_cost_cents} != ${expected}`);
    // At least a second on 2 CPUs at one cent per CPU-second.
    assert.ok(job.compute_cost_cents >= 2, `${job.compute_cost_cents}`);
  });

  it('a job whose cost passes its computeCostLimit is aborted, with a message that says why', async () => {
    env.scheduler().start();
    const id = await insertJob(env, await insertWorkflow(env, { default_command: 'sleep 30' }), { cost_limit: 0.01 });
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
    assert.equal(job.status, 'aborted');
    // Stopped by the limit, long before its sleep would have ended (however slow the machine).
    assert.ok(Date.parse(job.end_time!) - Date.parse(job.start_time!) < 30_000);
    assert.match(job.status_message!, /^The job was aborted: its compute cost \(0\.\d\d USD\) passed its limit of 0\.01 USD\.$/);
    assert.ok(job.compute_cost_cents > 1);
    assert.deepEqual(
      (await assertLegalHistory(env, id)).map((c) => c.to),
      ['scheduled', 'initializing', 'running', 'aborting', 'aborted'],
    );
  });
});
