import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { computeCostCents, costLimitExceeded, hourlyPriceCents } from '../../src/scheduler/cost.js';
import { assertLegalHistory, insertJob, insertWorkflow, pathsOf, setup, testConfig, waitForStatus, type Env } from './helpers.js';

/** 3,600 cents per CPU-hour: one cent per CPU-second. */
const CENT_PER_CPU_SECOND = '3600';

/** Runs a job whose task ends when the test says, at least a second after it was reported running. */
async function runForASecond(env: Env, values: Parameters<typeof insertJob>[2]) {
  // The start time is when the scheduler reported the job running, which on a loaded machine can
  // be after a short task already ended: the task ends only when the test says, a second later,
  // with a file in its work directory (its working directory, which a sandboxed task sees too).
  const wf = await insertWorkflow(env, { default_command: 'while [ ! -e go ]; do sleep 0.05; done; true' });
  const id = await insertJob(env, wf, values);
  const running = await waitForStatus(env, id, ['running']);
  await sleep(Math.max(0, Date.parse(running.start_time!) + 1000 - Date.now()));
  writeFileSync(path.join(pathsOf(env, id).work, 'go'), '');
  const job = await waitForStatus(env, id, ['completed', 'failed']);
  assert.equal(job.status, 'completed', job.status_message ?? '');
  return job;
}

describe('scheduler: compute cost from the instance type', { timeout: 300_000 }, () => {
  let env: Env;
  before(async () => {
    env = await setup();
  });
  after(() => env.close());
  afterEach(() => env.stopSchedulers());

  it("the model: the instance type's hourly price x hours run; no type (or an unknown one) is priced as c5.xlarge", () => {
    const config = testConfig();
    const start = '2024-01-01T00:00:00.000Z';
    const hour = Date.parse(start) + 3_600_000;
    assert.equal(computeCostCents(config, { instance_type: 'c5.xlarge', resource_cpu: 1, start_time: start }, hour), 17);
    assert.equal(computeCostCents(config, { instance_type: 'm5.2xlarge', resource_cpu: 1, start_time: start }, hour), 38.4);
    assert.equal(computeCostCents(config, { instance_type: 'Standard_D4as_v4', resource_cpu: 1, start_time: start }, hour), 19.2);
    assert.equal(computeCostCents(config, { instance_type: null, resource_cpu: 8, start_time: start }, hour), 17);
    assert.equal(hourlyPriceCents(config, { instance_type: 'no.such-type', resource_cpu: 8 }), 17);
    // Per second: 36 seconds of c5.4xlarge (68 cents an hour).
    assert.equal(
      computeCostCents(config, { instance_type: 'c5.4xlarge', resource_cpu: 1, start_time: start }, Date.parse(start) + 36_000),
      0.68,
    );
    assert.equal(computeCostCents(config, { instance_type: 'c5.xlarge', resource_cpu: 1, start_time: null }, hour), 0);
  });

  it("the model of an array job: one task's price x its tasks' run times, summed (running ones counted on from the last reading)", () => {
    const config = testConfig();
    const start = '2024-01-01T00:00:00.000Z';
    const at = Date.parse(start) + 600_000;
    const job = (tasks: object | null) => ({
      instance_type: 'c5.xlarge',
      resource_cpu: 1,
      start_time: start,
      array_limit: 4,
      array_tasks_json: tasks && JSON.stringify(tasks),
    });
    // 4 at once: the hour of c5.xlarge (17 cents) is 68 cents for the job.
    assert.equal(hourlyPriceCents(config, job(null)), 68);
    // 1,800 task-seconds read at `at`, two tasks running since: 10 minutes later, 1,800 + 2 x 600 s = 50 minutes of one
    // task (17 x 50 / 60 cents, to 1/10,000 of a cent).
    const reading = { total: 10, queued: 2, running: 2, completed: 6, failed: 0, taskSeconds: 1800, at };
    assert.equal(computeCostCents(config, job(reading), at + 600_000), 14.1667);
    // Ended: no task runs, nothing more counts.
    const ended = { ...reading, running: 0, queued: 0, completed: 10, taskSeconds: 3600 };
    assert.equal(computeCostCents(config, job(ended), at + 7_200_000), 17);
    // Before its first reading: all it runs at once, for the time since it started.
    assert.equal(computeCostCents(config, job(null), Date.parse(start) + 3_600_000), 68);
  });

  it("a finished job's cost is its type's price x its recorded run time", async () => {
    env.scheduler().start();
    const job = await runForASecond(env, { instance_type: 'c5.4xlarge' });
    const expected = ((Date.parse(job.end_time!) - Date.parse(job.start_time!)) / 3_600_000) * 68;
    assert.ok(Math.abs(job.compute_cost_cents - expected) < 0.0002, `${job.compute_cost_cents} != ${expected}`);
    // At least a second at 68 cents an hour.
    assert.ok(job.compute_cost_cents >= 68 / 3600, `${job.compute_cost_cents}`);
  });

  it('a job on c5.xlarge with a cost limit of 0.001 USD is aborted once it costs more, with a message that says so', async () => {
    env.scheduler().start();
    const id = await insertJob(env, await insertWorkflow(env, { default_command: 'sleep 300' }), {
      instance_type: 'c5.xlarge',
      cost_limit: 0.001,
    });
    // 0.1 cent at 17 cents an hour: about 21 seconds of running.
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed'], 200_000);
    assert.equal(job.status, 'aborted');
    assert.match(job.status_message!, /^The job was aborted: its compute cost \(0\.001\d USD\) passed its cost limit of 0\.001 USD\.$/);
    assert.ok(job.compute_cost_cents > 0.1, `${job.compute_cost_cents}`);
    const ran = Date.parse(job.end_time!) - Date.parse(job.start_time!);
    assert.ok(ran >= 21_000 && ran < 300_000, `${ran}`);
    assert.deepEqual(
      (await assertLegalHistory(env, id)).map((c) => c.to),
      ['initializing', 'running', 'aborting', 'aborted'],
    );
  });

  it('a job with no cost limit (-1) is not aborted by its cost', async () => {
    env.scheduler().start();
    const job = await runForASecond(env, { instance_type: 'r5.24xlarge', cost_limit: -1 });
    assert.ok(job.compute_cost_cents > 0);
  });
});

describe('scheduler: compute cost with the operator price (RUNYARD_CPU_HOUR_COST_CENTS)', { timeout: 300_000 }, () => {
  let env: Env;
  before(async () => {
    env = await setup({ env: { RUNYARD_CPU_HOUR_COST_CENTS: CENT_PER_CPU_SECOND } });
  });
  after(() => env.close());
  afterEach(() => env.stopSchedulers());

  it('the model: requested CPUs x hours run x the price of a CPU-hour, whatever the instance type', () => {
    const start = '2024-01-01T00:00:00.000Z';
    assert.equal(
      computeCostCents(env.config, { instance_type: 'r5.24xlarge', resource_cpu: 2, start_time: start }, Date.parse(start) + 1500),
      3,
    );
    assert.equal(costLimitExceeded(101, 1), true);
    assert.equal(costLimitExceeded(100, 1), false);
    assert.equal(costLimitExceeded(1e9, -1), false);
  });

  it('a finished job records its cost', async () => {
    env.scheduler().start();
    const job = await runForASecond(env, { resource_cpu: 2 });
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
    assert.match(job.status_message!, /^The job was aborted: its compute cost \(0\.0\d{3} USD\) passed its cost limit of 0\.01 USD\.$/);
    assert.ok(job.compute_cost_cents > 1);
  });
});
