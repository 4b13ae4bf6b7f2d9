import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { engineFor } from '../../src/engines/registry.js';
import { groupMembers } from '../../src/executors/proc.js';
import { recordFileOf } from '../../src/executors/wrapper.js';
import { groupRunning } from '../executors/group.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import { assertLegalHistory, getJob, insertJob, insertWorkflow, pathsOf, setup, stdoutOf, waitForStatus, type Env } from './helpers.js';

describe('scheduler: abort', { timeout: 300_000 }, () => {
  let env: Env;
  let scheduler: Scheduler;
  before(async () => {
    env = await setup();
    scheduler = env.scheduler();
    scheduler.start();
  });
  after(() => env.close());

  /** What the job service does on PUT /api/v2/jobs/{id}/abort for a started job: aborting, then wake(). */
  async function requestAbort(id: string, force: boolean, s: Scheduler = scheduler): Promise<void> {
    await env.store.db
      .updateTable('jobs')
      .set({ status: 'aborting', abort_force: force ? 1 : 0 })
      .where('id', '=', id)
      .where('status', 'in', ['initializing', 'running'])
      .execute();
    s.wake();
  }

  async function runningJob(command: string): Promise<{ id: string; pid: number }> {
    const id = await insertJob(env, await insertWorkflow(env, { default_command: command }));
    const job = await waitForStatus(env, id, ['running']);
    const { pid } = JSON.parse(job.external_id!) as { pid: number };
    // Both sleeps run, so the task's trap is set: a signal before it would end the task too early.
    for (let i = 0; i < 500 && groupRunning(pid, 'sleep') < 2; i++) await sleep(10);
    return { id, pid };
  }

  it('a graceful abort sends SIGTERM to the process group; the task cleans up; aborted with an end time', async () => {
    const { id, pid } = await runningJob('trap "echo got TERM; exit 0" TERM; sleep 30 & sleep 30 & wait');
    await requestAbort(id, false);
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
    assert.equal(job.status, 'aborted');
    assert.ok(job.end_time);
    assert.match(stdoutOf(env, id), /got TERM/);
    assert.deepEqual(groupMembers(pid), [], 'a process of the job is left');
    assert.deepEqual(
      (await assertLegalHistory(env, id)).map((c) => c.to),
      ['initializing', 'running', 'aborting', 'aborted'],
    );
  });

  it('a graceful abort of a task that ignores SIGTERM ends it with SIGKILL after the grace period, children included', async () => {
    const { id, pid } = await runningJob('trap "" TERM; sleep 30 & sleep 30');
    const started = Date.now();
    await requestAbort(id, false);
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
    assert.equal(job.status, 'aborted');
    assert.ok(Date.now() - started >= env.config.abortGraceMs - 50, 'killed before the grace period');
    assert.deepEqual(groupMembers(pid), []);
    await assertLegalHistory(env, id);
  });

  it('a forced abort kills the process group at once', async () => {
    // A grace period far longer than a loaded machine's delays: a forced abort that waited for it shows.
    await scheduler.stop();
    const abortGraceMs = 60_000;
    scheduler = env.scheduler({ config: { ...env.config, abortGraceMs } });
    scheduler.start();
    const { id, pid } = await runningJob('trap "" TERM; sleep 30 & sleep 30');
    const started = Date.now();
    await requestAbort(id, true);
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
    assert.equal(job.status, 'aborted');
    assert.ok(Date.now() - started < abortGraceMs, 'a forced abort waited for the grace period');
    assert.deepEqual(groupMembers(pid), []);
    await assertLegalHistory(env, id);
    await scheduler.stop();
    scheduler = env.scheduler();
    scheduler.start();
  });

  it('a queued job aborted by the service is never run', async () => {
    await scheduler.stop();
    const id = await insertJob(env, await insertWorkflow(env, { default_command: 'echo ran' }));
    await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', '=', id).execute();
    scheduler = env.scheduler();
    scheduler.start();
    await sleep(300);
    const job = await getJob(env, id);
    assert.equal(job.status, 'aborted');
    assert.equal(job.attempt, 0);
    assert.equal(stdoutOf(env, id), '');
  });

  /** A scheduler whose engine waits at prepare until released: the window between claim and launch. */
  function gatedScheduler(): { s: Scheduler; entered: Promise<void>; release: () => void } {
    let release!: () => void;
    let enter!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const entered = new Promise<void>((r) => (enter = r));
    const s = env.scheduler({
      engineFor: (type) => ({
        async prepare(...args) {
          enter();
          await gate;
          return engineFor(type).prepare(...args);
        },
      }),
    });
    return { s, entered, release };
  }

  for (const how of ['aborting', 'aborted'] as const) {
    it(`a job ${how === 'aborting' ? 'asked to abort' : 'aborted outright'} while it is initializing is never launched`, async () => {
      await scheduler.stop();
      const { s, entered, release } = gatedScheduler();
      s.start();
      const id = await insertJob(env, await insertWorkflow(env, { default_command: 'echo ran' }));
      await entered;
      assert.equal((await getJob(env, id)).status, 'initializing');
      if (how === 'aborting') await requestAbort(id, false, s);
      else await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', '=', id).execute();
      release();
      const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
      assert.equal(job.status, 'aborted');
      await sleep(200);
      assert.equal((await getJob(env, id)).status, 'aborted');
      assert.ok(!existsSync(recordFileOf({ dir: pathsOf(env, id).control, attempt: 1 })), 'the task was launched');
      await assertLegalHistory(env, id);
      await s.stop();
      scheduler = env.scheduler();
      scheduler.start();
    });
  }

  it('an aborting job whose scheduler died is stopped and aborted by the next scheduler', async () => {
    const { id, pid } = await runningJob('sleep 30 & sleep 30');
    await scheduler.stop({ releaseLeases: false });
    await env.store.db.updateTable('jobs').set({ status: 'aborting', abort_force: 1 }).where('id', '=', id).execute();
    scheduler = env.scheduler();
    scheduler.start();
    const job = await waitForStatus(env, id, ['aborted', 'completed', 'failed']);
    assert.equal(job.status, 'aborted');
    assert.deepEqual(groupMembers(pid), []);
    await assertLegalHistory(env, id);
  });
});
