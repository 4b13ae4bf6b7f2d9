import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { groupMembers } from '../../src/executors/proc.js';
import { recordFileOf } from '../../src/executors/wrapper.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import { groupRunning } from '../executors/group.js';
import {
  assertLegalHistory,
  getJob,
  insertJob,
  insertWorkflow,
  pathsOf,
  setup,
  stdoutOf,
  waitFor,
  waitForStatus,
  type Env,
} from './helpers.js';

/**
 * A task that ends within the running-mark delay (AttemptRunner) is settled in one UPDATE that
 * stores its id and start time with its outcome; one that runs longer is reported running, with its
 * launch as start time. Each side is made certain by the delay the scheduler is given.
 */
describe('scheduler: a job is reported running unless its task ended within the running-mark delay', { timeout: 120_000 }, () => {
  describe('with a delay longer than the task', () => {
    let env: Env;
    let scheduler: Scheduler;
    before(async () => {
      env = await setup();
      scheduler = env.scheduler({ runningMarkDelayMs: 60_000 });
      scheduler.start();
    });
    after(() => env.close());

    it('a task that completed goes from initializing to completed, with its start time, id and cost', async () => {
      const id = await insertJob(env, await insertWorkflow(env, { default_command: 'true' }));
      const job = await waitForStatus(env, id, ['completed', 'failed']);
      assert.equal(job.status, 'completed', job.status_message ?? '');
      assert.deepEqual(
        (await assertLegalHistory(env, id)).map((c) => c.to),
        ['initializing', 'completed'],
      );
      assert.equal(job.exit_code, 0);
      assert.ok(job.start_time && job.end_time && job.start_time <= job.end_time, `${job.start_time} ${job.end_time}`);
      const external = JSON.parse(job.external_id!) as { backend: string; pid: number };
      assert.equal(external.backend, 'local');
      assert.ok(Number.isInteger(external.pid) && external.pid > 0, job.external_id!);
      // Priced as c5.xlarge (17 cents an hour) for the time from its launch to its end.
      const hours = (Date.parse(job.end_time!) - Date.parse(job.start_time!)) / 3_600_000;
      assert.ok(Math.abs(job.compute_cost_cents - hours * 17) < 0.0002, `${job.compute_cost_cents}`);
    });

    it('a task that failed goes from initializing to failed, with its exit code and start time', async () => {
      const id = await insertJob(env, await insertWorkflow(env, { default_command: 'exit 3' }));
      const job = await waitForStatus(env, id, ['completed', 'failed']);
      assert.equal(job.status, 'failed');
      assert.equal(job.exit_code, 3);
      assert.equal(job.status_message, 'The task exited with code 3.');
      assert.ok(job.start_time && job.end_time && job.start_time <= job.end_time);
      assert.deepEqual(
        (await assertLegalHistory(env, id)).map((c) => c.to),
        ['initializing', 'failed'],
      );
    });

    it('an abort within the delay stops the task, which is recorded aborted with its start time', async () => {
      const id = await insertJob(env, await insertWorkflow(env, { default_command: 'sleep 30' }));
      // Launched (the wrapper's record is written; its id is not stored yet): the job is initializing while it runs.
      const record = recordFileOf({ dir: pathsOf(env, id).control, attempt: 1 });
      const pid = await waitFor('the task to be launched', () => existsSync(record) && Number(readFileSync(record, 'utf8').split(' ')[0]));
      await waitFor('its sleep to run', () => groupRunning(pid, 'sleep') > 0);
      assert.equal((await getJob(env, id)).status, 'initializing');
      await env.store.db.updateTable('jobs').set({ status: 'aborting', abort_force: 1 }).where('id', '=', id).execute();
      scheduler.wake();
      const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
      assert.equal(job.status, 'aborted');
      assert.ok(job.start_time && job.end_time && job.start_time <= job.end_time);
      assert.equal(JSON.parse(job.external_id!).backend, 'local');
      assert.deepEqual(
        (await assertLegalHistory(env, id)).map((c) => c.to),
        ['initializing', 'aborting', 'aborted'],
      );
      assert.equal(JSON.parse(job.external_id!).pid, pid);
      assert.deepEqual(groupMembers(pid), [], 'a process of the job is left');
    });
  });

  describe('with a delay shorter than the task', () => {
    const DELAY_MS = 1500;
    let env: Env;
    before(async () => {
      env = await setup();
      env.scheduler({ runningMarkDelayMs: DELAY_MS }).start();
    });
    after(() => env.close());

    it('the job is reported running after the delay, with its launch as its start time', async () => {
      // Runs until the test lets it end (a file in its working directory): seen running however slow the machine.
      const id = await insertJob(env, await insertWorkflow(env, { default_command: 'until [ -e release ]; do sleep 0.05; done; true' }));
      const running = await waitForStatus(env, id, ['running', 'completed', 'failed']);
      const seenAt = Date.now();
      assert.equal(running.status, 'running', `${running.status_message ?? ''} ${stdoutOf(env, id)}`);
      // Stamped at the launch, DELAY_MS before the job could be reported running (not when it was).
      assert.ok(Date.parse(running.start_time!) <= seenAt - DELAY_MS, `${running.start_time} seen at ${new Date(seenAt).toISOString()}`);
      writeFileSync(path.join(pathsOf(env, id).work, 'release'), '');
      const job = await waitForStatus(env, id, ['completed', 'failed']);
      assert.equal(job.status, 'completed', job.status_message ?? '');
      assert.equal(job.start_time, running.start_time);
      assert.deepEqual(
        (await assertLegalHistory(env, id)).map((c) => c.to),
        ['initializing', 'running', 'completed'],
      );
    });
  });
});
