import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { engineFor } from '../../src/engines/registry.js';
import { groupMembers } from '../../src/executors/proc.js';
import { readExitFile, readPidFile } from '../../src/executors/wrapper.js';
import { SILENT_LOG, type SchedulerContext } from '../../src/scheduler/context.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { settle } from '../../src/scheduler/settle.js';
import { serverImageCache } from '../../src/scheduler/image-use.js';
import {
  assertLegalHistory,
  getJob,
  insertJob,
  insertWorkflow,
  pathsOf,
  setup,
  stdoutOf,
  testExecutor,
  waitFor,
  waitForStatus,
  type Env,
} from './helpers.js';

/** Lines the job's task appended to its marker file: how often it ran. */
function runs(mark: string): string[] {
  return existsSync(mark) ? readFileSync(mark, 'utf8').trim().split('\n') : [];
}

const PAST = '2000-01-01T00:00:00.000Z';

describe('scheduler: restart, reattach, re-run', { timeout: 300_000 }, () => {
  let env: Env;
  let n = 0;
  before(async () => {
    env = await setup();
  });
  after(() => env.close());
  afterEach(() => env.stopSchedulers());

  /** A job whose task appends a line to a marker file each time it runs, then runs `rest`. */
  async function markedJob(rest: string): Promise<{ id: string; mark: string }> {
    const mark = path.join(env.scratch, `mark-${++n}`);
    const wf = await insertWorkflow(env, { default_command: `echo run >> "$RUNYARD_PARAM_MARK"; ${rest}; true` });
    const id = await insertJob(env, wf, { parameters: [{ name: 'mark', textValue: mark }] });
    return { id, mark };
  }

  /** The job as a scheduler that died left it: claimed (attempt 1; scheduled as earlier schedulers wrote it), its lease long expired. */
  async function claimedByDeadScheduler(id: string, status: 'scheduled' | 'initializing'): Promise<void> {
    await env.store.db
      .updateTable('jobs')
      .set({ status, attempt: 1, lease_owner: 'dead-scheduler', lease_expires_at: PAST })
      .where('id', '=', id)
      .execute();
  }

  it('a scheduler that dies leaves its task running; the next one (new id) takes over after the lease and reattaches to the same pid', async () => {
    const s1 = env.scheduler();
    s1.start();
    const { id, mark } = await markedJob('sleep 2; echo done');
    const running = await waitForStatus(env, id, ['running']);
    assert.equal(running.lease_owner, s1.id);
    await s1.stop({ releaseLeases: false });
    const expires = Date.parse((await getJob(env, id)).lease_expires_at!);
    const s2 = env.scheduler();
    assert.notEqual(s2.id, s1.id);
    s2.start();
    // Whatever the machine's speed: every look that ended before the lease ran out still sees s1.
    await waitFor('the next scheduler to take the job over', async () => {
      const { lease_owner } = await getJob(env, id);
      if (Date.now() < expires) assert.equal(lease_owner, s1.id, 'taken over before the lease ran out');
      return lease_owner !== s1.id;
    });
    const done = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(done.status, 'completed');
    assert.equal(done.external_id, running.external_id, 'not the same task');
    assert.equal(done.attempt, 1);
    assert.deepEqual(runs(mark), ['run']);
    assert.match(stdoutOf(env, id), /done\n$/);
    const history = await assertLegalHistory(env, id);
    assert.equal(history.filter((c) => c.to === 'running').length, 1);
  });

  for (const code of [0, 4]) {
    it(`a task that ended (exit ${code}) while no scheduler ran is settled from its recorded exit status, without running again`, async () => {
      const s1 = env.scheduler();
      s1.start();
      const { id, mark } = await markedJob(`sleep 0.5; exit ${code}`);
      await waitForStatus(env, id, ['running']);
      await s1.stop({ releaseLeases: false });
      const control = { dir: pathsOf(env, id).control, attempt: 1 };
      // The wrapper records the exit status once the task ended.
      assert.equal(await waitFor('the recorded exit status', async () => (await readExitFile(control)) ?? undefined), code);
      assert.equal((await getJob(env, id)).status, 'running');
      env.scheduler().start();
      const job = await waitForStatus(env, id, ['completed', 'failed']);
      assert.equal(job.status, code ? 'failed' : 'completed');
      assert.equal(job.exit_code, code);
      assert.equal(job.attempt, 1);
      assert.deepEqual(runs(mark), ['run']);
      await assertLegalHistory(env, id);
    });
  }

  for (const status of ['scheduled', 'initializing'] as const) {
    it(`a job ${status} by a scheduler that died before launching goes back to queued and runs once`, async () => {
      const { id, mark } = await markedJob('true');
      await claimedByDeadScheduler(id, status);
      env.scheduler().start();
      const job = await waitForStatus(env, id, ['completed', 'failed']);
      assert.equal(job.status, 'completed');
      assert.equal(job.attempt, 2);
      assert.deepEqual(runs(mark), ['run']);
      const history = await assertLegalHistory(env, id);
      assert.deepEqual(history.slice(1, 3), [
        { from: status, to: 'queued', attempt: 1 },
        { from: 'queued', to: 'initializing', attempt: 2 },
      ]);
    });
  }

  it('a task launched before its id was stored is found by its pid file and reattached, not launched again', async () => {
    const { id, mark } = await markedJob('sleep 1');
    const job = await getJob(env, id);
    const workflow = await env.store.db.selectFrom('workflows').selectAll().where('id', '=', job.workflow_id).executeTakeFirstOrThrow();
    const paths = pathsOf(env, id);
    const task = await engineFor('docker').prepare({ ...job, attempt: 1 }, workflow, paths, env.config);
    const launched = await testExecutor(env.config, env.scratch).launch(task, { dir: paths.control, attempt: 1 });
    // Launched: its wrapper has claimed the attempt and written its pid file (on a loaded machine that can come after
    // launch answers; a wrapper not started yet is fenced by the reaper and the job runs anew, another case).
    await waitFor('the pid file', async () => (await readPidFile({ dir: paths.control, attempt: 1 })) ?? undefined, 30_000);
    await claimedByDeadScheduler(id, 'initializing');
    env.scheduler().start();
    const running = await waitForStatus(env, id, ['running', 'completed']);
    assert.equal(JSON.parse(running.external_id!).pid, launched.pid);
    const done = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(done.status, 'completed');
    assert.equal(done.attempt, 1);
    assert.deepEqual(runs(mark), ['run']);
    await assertLegalHistory(env, id);
  });

  const twice = 'if [ -e "$RUNYARD_PARAM_MARK.first" ]; then echo second; else touch "$RUNYARD_PARAM_MARK.first"; sleep 30; fi';

  it('a task killed with SIGKILL while the job runs (no exit file) is re-run as attempt 2, with one recorded outcome', async () => {
    const s = env.scheduler();
    s.start();
    const { id, mark } = await markedJob(twice);
    const running = await waitForStatus(env, id, ['running']);
    const { pid } = JSON.parse(running.external_id!) as { pid: number };
    await waitFor('the task to start', () => existsSync(`${mark}.first`));
    process.kill(-pid, 'SIGKILL');
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed');
    assert.equal(job.attempt, 2);
    assert.notEqual(JSON.parse(job.external_id!).pid, pid);
    assert.deepEqual(runs(mark), ['run', 'run']);
    assert.match(stdoutOf(env, id), /Runyard: attempt 2 \(the previous attempt's task was lost\)\.\n/);
    const history = await assertLegalHistory(env, id);
    assert.ok(history.some((c) => c.from === 'running' && c.to === 'queued' && c.attempt === 1));
    // The first attempt's result is refused now.
    const ctx: SchedulerContext = {
      db: env.store.db,
      kind: env.store.kind,
      config: env.config,
      owner: s.id,
      executors: {},
      engineFor,
      blobs: createBlobStore(env.config),
      images: serverImageCache(env.config, env.store.db),
      log: SILENT_LOG,
      signal: new AbortController().signal,
    };
    assert.equal(await settle(ctx, { id, attempt: 1, owner: s.id }, { status: 'failed', message: 'stale' }), false);
    assert.equal((await getJob(env, id)).status, 'completed');
  });

  it('a task killed while no scheduler ran is found lost by the next one and re-run as attempt 2', async () => {
    const s1 = env.scheduler();
    s1.start();
    const { id, mark } = await markedJob(twice);
    const running = await waitForStatus(env, id, ['running']);
    await waitFor('the task to start', () => existsSync(`${mark}.first`));
    await s1.stop({ releaseLeases: false });
    const { pid } = JSON.parse(running.external_id!) as { pid: number };
    process.kill(-pid, 'SIGKILL');
    await waitFor('the task to end', () => groupMembers(pid).length === 0);
    env.scheduler().start();
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed');
    assert.equal(job.attempt, 2);
    assert.deepEqual(runs(mark), ['run', 'run']);
    await assertLegalHistory(env, id);
  });

  it('a task lost more often than RUNYARD_JOB_MAX_ATTEMPTS allows fails the job', async () => {
    env.scheduler({ config: { ...env.config, jobMaxAttempts: 1 } }).start();
    const { id, mark } = await markedJob('sleep 30');
    const running = await waitForStatus(env, id, ['running']);
    await waitFor('the task to start', () => runs(mark).length === 1);
    process.kill(-(JSON.parse(running.external_id!) as { pid: number }).pid, 'SIGKILL');
    const job = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(job.status, 'failed');
    assert.match(
      job.status_message!,
      /^The job's task was lost 1 times \(last: the task's process \(pid \d+\) ended without recording an exit code\)\.$/,
    );
    await assertLegalHistory(env, id);
  });

  it('a result from an attempt that is not the current one, or from a scheduler that does not hold the lease, is refused', async () => {
    const s = env.scheduler();
    s.start();
    const { id } = await markedJob('sleep 30');
    await waitForStatus(env, id, ['running']);
    const ctx = (owner: string): SchedulerContext => ({
      db: env.store.db,
      kind: env.store.kind,
      config: env.config,
      owner,
      executors: {},
      engineFor,
      blobs: createBlobStore(env.config),
      images: serverImageCache(env.config, env.store.db),
      log: SILENT_LOG,
      signal: new AbortController().signal,
    });
    assert.equal(await settle(ctx(s.id), { id, attempt: 2, owner: s.id }, { status: 'completed' }), false);
    assert.equal(await settle(ctx('other'), { id, attempt: 1, owner: 'other' }, { status: 'completed' }), false);
    assert.equal((await getJob(env, id)).status, 'running');
    await env.store.db.updateTable('jobs').set({ status: 'aborting', abort_force: 1 }).where('id', '=', id).execute();
    s.wake();
    assert.equal((await waitForStatus(env, id, ['aborted'])).status, 'aborted');
  });

  it('T1: the server process killed with SIGKILL while the job runs: the next scheduler reattaches to the same pid', async () => {
    const { id, mark } = await markedJob('sleep 2; echo done');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'scheduler-process.ts'), env.databaseUrl, JSON.stringify(env.config), env.scratch],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      const running = await waitForStatus(env, id, ['running'], 30_000);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      env.scheduler().start();
      const done = await waitForStatus(env, id, ['completed', 'failed']);
      assert.equal(done.status, 'completed');
      assert.equal(done.external_id, running.external_id);
      assert.equal(done.attempt, 1);
      assert.deepEqual(runs(mark), ['run']);
      await assertLegalHistory(env, id);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
