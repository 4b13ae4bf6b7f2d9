import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { containerEngine } from '../../src/engines/container.js';
import { containerNameOf } from '../../src/engines/container-runtime.js';
import { LocalExecutor, type LocalId } from '../../src/executors/local.js';
import { groupHasLiveMembers } from '../../src/executors/proc.js';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import { getJob, insertJob, insertWorkflow, setup, stdoutOf, waitFor, waitForStatus, type Env } from '../scheduler/helpers.js';
import { fakeRuntime, type Container, type FakeRuntime } from './fake-runtime.js';
import { confineAsTheAttemptRunner, jobRow, pathsFor, workflowRow } from './rows.js';

// The fake runtime's containers live outside the task's process tree, as a daemon's do. The runtime's
// CLI runs outside the executor's sandbox (the container confines the job: TaskSpec.confinement),
// with the default sandbox on, so that a container outliving its CLI is what these tests see.

/** Generous: the machine is loaded; what is asserted is that the container goes, not how fast. */
const WITHIN_MS = 60_000;

function isStop(call: string[], name: string): boolean {
  return call.join(' ') === `rm -f ${name}`;
}

describe('container tasks are stopped, not only their CLI', { timeout: 300_000 }, () => {
  const config = loadConfig({ RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-cfg-')), PATH: process.env.PATH });

  /** A container job launched by a local executor, once its container runs. */
  async function launched(command: string, attempt = 1) {
    const runtime = fakeRuntime('docker');
    const paths = pathsFor();
    const job = jobRow({ command, attempt });
    const cfg = { ...config, containerRuntime: 'docker' as const, taskPath: `${runtime.dir}:${process.env.PATH}` };
    const task = await containerEngine.prepare(job, workflowRow(), paths, cfg);
    confineAsTheAttemptRunner(task, paths);
    const control = { dir: paths.control, attempt };
    const executor = new LocalExecutor(50);
    const id = await executor.launch(task, control);
    const name = containerNameOf(job);
    const container = await waitFor(`container ${name}`, () => runtime.container(name) ?? undefined, WITHIN_MS);
    return { runtime, task, control, executor, id, name, container };
  }

  function assertStopped(runtime: FakeRuntime, name: string, container: Container): void {
    assert.ok(
      runtime.calls().some((c) => isStop(c, name)),
      `no rm -f ${name}: ${JSON.stringify(runtime.calls().map((c) => c.slice(0, 3)))}`,
    );
    assert.equal(runtime.running(container), false, 'the container still runs');
  }

  it('the run has --name runyard-<job>-a<attempt>, and the id keeps the stop argv', async () => {
    const { runtime, task, executor, id, name, container } = await launched('sleep 300', 2);
    assert.equal(name, `runyard-${jobRow().id}-a2`);
    const run = runtime.calls()[0];
    assert.deepEqual(run.slice(0, 3), ['run', '--name', name]);
    assert.deepEqual(id.stop, task.stop);
    await executor.kill(id, { force: true, graceMs: 0 });
    assertStopped(runtime, name, container);
  });

  it('a forced kill removes the container; a SIGKILL of its CLI alone leaves it running', async () => {
    const { runtime, executor, id, name, container } = await launched('sleep 300');
    // What killing the process group alone does (the CLI does not pass SIGKILL on).
    process.kill(-id.pid, 'SIGKILL');
    await waitFor('the CLI to die', () => !groupHasLiveMembers(id.pid), WITHIN_MS);
    assert.ok(!runtime.calls().some((c) => isStop(c, name)));
    assert.equal(runtime.running(container), true, 'the fake container died with its CLI: the fake does not behave as a runtime');
    await executor.kill(id, { force: true, graceMs: 0 });
    assertStopped(runtime, name, container);
  });

  it('a task found ended (its CLI killed) has its container removed too', async () => {
    const { runtime, control, executor, id, name, container } = await launched('sleep 300');
    process.kill(-id.pid, 'SIGKILL');
    await executor.wait(control, id);
    assertStopped(runtime, name, container);
  });

  it("an array job runs a container per row (<name>-<index>), its row's values named by -e only; a kill removes every row's container", async () => {
    const runtime = fakeRuntime('docker');
    const paths = pathsFor();
    mkdirSync(paths.root, { recursive: true });
    const csv = path.join(paths.root, 'rows.csv');
    writeFileSync(csv, 'v\nfirst\n$(touch pwned) second\nthird\n');
    const job = jobRow({
      command:
        // The row's arguments are appended to the last command: the function's call, whose "$*" they are.
        'row() { printf "%s|%s\\n" "$RUNYARD_PARAM_V" "$*" > "row-$RUNYARD_ARRAY_INDEX.txt"; [ "$RUNYARD_ARRAY_INDEX" != 2 ] || sleep 300; }; row',
      array_size: 3,
      array_limit: 3,
      parameters_json: JSON.stringify([{ prefix: '--', name: 'v', parameterKind: 'arrayFileColumn', columnName: 'v', columnIndex: 0 }]),
      request_json: JSON.stringify({ arrayFile: { dataItem: { kind: 'File', item: 'f' }, separator: ',' } }),
    });
    const inputs = { parameters: new Map(), paramsFile: null, readPaths: [csv], held: [], notes: [], arrayFileBytes: readFileSync(csv) };
    const cfg = { ...config, containerRuntime: 'docker' as const, taskPath: `${runtime.dir}:${process.env.PATH}` };
    const task = await containerEngine.prepare(job, workflowRow(), paths, cfg, inputs);
    confineAsTheAttemptRunner(task, paths);
    const control = { dir: paths.control, attempt: 1 };
    const executor = new LocalExecutor(50);
    const id = await executor.launch(task, control);
    const name = containerNameOf(job);
    const last = await waitFor(`container ${name}-2`, () => runtime.container(`${name}-2`) ?? undefined, WITHIN_MS);
    const rowFile = (i: number) => path.join(paths.work, `row-${i}.txt`);
    // The shell creates a row's file before printf writes its line: a row is done once its line is whole.
    const written = (i: number) => existsSync(rowFile(i)) && readFileSync(rowFile(i), 'utf8').endsWith('\n');
    await waitFor('rows 0 and 1 to write their lines', () => (written(0) && written(1)) || undefined, WITHIN_MS);
    assert.equal(readFileSync(rowFile(0), 'utf8'), 'first|--v first\n');
    assert.equal(readFileSync(rowFile(1), 'utf8'), '$(touch pwned) second|--v $(touch pwned) second\n');
    assert.equal(existsSync(path.join(paths.work, 'pwned')), false);
    const runs = runtime.calls().filter((c) => c[0] === 'run');
    assert.deepEqual(
      runs.map((c) => c.slice(1, 3).join(' ')).sort(),
      [0, 1, 2].map((i) => `--name ${name}-${i}`),
    );
    for (const run of runs) {
      assert.ok(run.join(' ').includes('-e RUNYARD_PARAM_V -e RUNYARD_ARG_COUNT'), run.join(' '));
      assert.ok(!run.some((a) => a.includes('first') || a.includes('second')), 'a row value on a command line');
    }
    await executor.kill(id, { force: true, graceMs: 0 });
    assert.ok(runtime.calls().some((c) => c.join(' ') === `rm -f ${name}-0 ${name}-1 ${name}-2`));
    assert.equal(runtime.running(last), false, "the last row's container still runs");
  });

  it('a later server process stops the container from the stored id alone', async () => {
    const { runtime, id, name, container } = await launched('sleep 300');
    const stored = JSON.parse(JSON.stringify(id)) as LocalId;
    await new LocalExecutor(50).kill(stored, { force: true, graceMs: 0 });
    assertStopped(runtime, name, container);
  });

  it('a server that crashed before storing the id finds the stop argv beside the pid file, and removes the container', async () => {
    const { runtime, control, id, name, container } = await launched('sleep 300');
    // Only the control files: what a process that never stored the id has to go on.
    const later = new LocalExecutor(50);
    const state = await later.inspect(control, null);
    assert.equal(state.state, 'running');
    assert.deepEqual(state.state === 'running' && (state.id as LocalId).stop, id.stop);
    await later.kill(state.state === 'running' ? state.id : id, { force: true, graceMs: 0 });
    assertStopped(runtime, name, container);
  });

  it('a graceful kill reaches the job in its container (the CLI passes SIGTERM on), and removes the container', async () => {
    const { runtime, task, control, executor, id, name, container } = await launched('trap "echo got TERM; exit 0" TERM; sleep 300 & wait');
    // Both the trap and the sleep are set once the shell waits; a signal earlier would end it too soon.
    await waitFor(
      'the job to wait',
      () => readFileSync(`/proc/${container.pid}/task/${container.pid}/children`, 'utf8').trim() !== '',
      WITHIN_MS,
    );
    const started = Date.now();
    await executor.kill(id, { force: false, graceMs: WITHIN_MS });
    assert.ok(Date.now() - started < WITHIN_MS, 'the job ignored SIGTERM: it was killed after the grace period');
    assert.match(readFileSync(task.logFile, 'utf8'), /got TERM/);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assertStopped(runtime, name, container);
  });
});

describe('scheduler: aborting a container job stops its container', { timeout: 300_000 }, () => {
  let env: Env;
  let scheduler: Scheduler;
  const runtime = fakeRuntime('docker');
  before(async () => {
    env = await setup({
      env: {
        RUNYARD_CONTAINER_RUNTIME: 'docker',
        RUNYARD_TASK_PATH: `${runtime.dir}:${process.env.PATH}`,
      },
    });
    scheduler = env.scheduler();
    scheduler.start();
  });
  after(() => env.close());

  /** What the job service does on PUT /api/v2/jobs/{id}/abort?force=true for a started job. */
  async function forceAbort(id: string, s: Scheduler): Promise<void> {
    await env.store.db
      .updateTable('jobs')
      .set({ status: 'aborting', abort_force: 1 })
      .where('id', '=', id)
      .where('status', 'in', ['initializing', 'running'])
      .execute();
    s.wake();
  }

  async function runningContainer(): Promise<{ id: string; name: string; container: Container }> {
    const id = await insertJob(env, await insertWorkflow(env, { default_command: 'sleep 300' }), { resource_cpu: 2, resource_ram: 4 });
    const job = await waitForStatus(env, id, ['running'], WITHIN_MS);
    const name = containerNameOf(job);
    const container = await waitFor(`container ${name}`, () => runtime.container(name) ?? undefined, WITHIN_MS);
    const run = runtime.calls().find((c) => c[0] === 'run' && c.includes(name))!;
    assert.ok(run.join(' ').includes(`--name ${name} --init --security-opt no-new-privileges --cpus 2 --memory 4g`), run.join(' '));
    return { id, name, container };
  }

  it('force abort of a running container job removes the container', async () => {
    const { id, name, container } = await runningContainer();
    await forceAbort(id, scheduler);
    const job = await waitForStatus(env, id, ['aborted', 'failed', 'completed'], WITHIN_MS);
    assert.equal(job.status, 'aborted', stdoutOf(env, id));
    assertStopped(name, container);
  });

  it('after a restart, the new scheduler removes the container of a job it reattached to', async () => {
    const { id, name, container } = await runningContainer();
    await env.stopSchedulers();
    scheduler = env.scheduler();
    scheduler.start();
    await forceAbort(id, scheduler);
    const job = await waitForStatus(env, id, ['aborted', 'failed', 'completed'], WITHIN_MS);
    assert.equal(job.status, 'aborted', stdoutOf(env, id));
    assert.equal((await getJob(env, id)).attempt, 1);
    assertStopped(name, container);
  });

  it('a container killed for its memory: the job fails with the memory message, read from the container before it is removed', async () => {
    const command = 'set -o pipefail; head -c 2G /dev/zero | tail | wc -c';
    const id = await insertJob(env, await insertWorkflow(env, { default_command: command }), { resource_cpu: 1, resource_ram: 1 });
    const job = await waitForStatus(env, id, ['aborted', 'failed', 'completed'], 240_000);
    assert.equal(job.status, 'failed', stdoutOf(env, id));
    assert.match(job.status_message ?? '', /exceeded its memory limit of 1 GiB/);
    const name = containerNameOf(job);
    const calls = runtime.calls().map((c) => c.join(' '));
    const probe = calls.indexOf(`inspect --format {{.State.OOMKilled}} ${name}`);
    assert.ok(probe >= 0 && probe < calls.indexOf(`rm -f ${name}`), calls.join('\n'));
  });

  function assertStopped(name: string, container: Container): void {
    assert.ok(
      runtime.calls().some((c) => isStop(c, name)),
      `no rm -f ${name}`,
    );
    assert.equal(runtime.running(container), false, 'the container still runs');
  }
});
