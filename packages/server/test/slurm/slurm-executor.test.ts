import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { writeArrayRows } from '../../src/executors/array-run.js';
import type { AttemptControl, TaskSpec } from '../../src/executors/executor.js';
import { defaultSandbox } from '../../src/executors/sandbox/sandbox.js';
import { SlurmExecutor, type SlurmId } from '../../src/executors/slurm/slurm-executor.js';
import type { HpcClusterRecord } from '../../src/store/hpc-cluster-lookup.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';
import { canMakeInternet, makeInternet, METADATA, PUBLIC } from '../hostile/internet.js';

// The Slurm executor against the machine's real single-node cluster (scripts/slurm-dev-cluster.sh):
// real sbatch, squeue, scontrol and scancel.

const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin' };
let counter = 0;

function scontrol(jobId: string): string {
  return execFileSync('scontrol', ['show', 'job', '-o', jobId], { encoding: 'utf8' });
}

describe('Slurm executor (real cluster)', { timeout: 600_000 }, () => {
  let shared: string;
  let cluster: HpcClusterRecord;
  let executor: SlurmExecutor;
  const clusters = async (id: string) => (id === cluster.id ? cluster : null);

  before(() => {
    slurmClusterUp();
    shared = sharedDirectory();
    cluster = { id: 'c0ffee0000000000000000aa', name: 'dev', submitPrefix: [], partitions: ['debug', 'batch'], sharedDirectory: shared };
    executor = new SlurmExecutor({ clusters, sandbox: defaultSandbox(), pollMs: 200 });
  });

  /** A task of a fresh job in the shared directory: bash running script, confined in the sandbox. */
  function job(script: string, extra: Partial<TaskSpec> = {}): { task: TaskSpec; control: AttemptControl } {
    const name = `job${process.pid}x${++counter}`;
    const dir = path.join(shared, name);
    const task: TaskSpec = {
      argv: ['bash', '-c', script],
      env: ENV,
      cwd: path.join(dir, 'work'),
      logFile: path.join(dir, 'logs', 'stdout.txt'),
      writable: [path.join(dir, 'work'), path.join(dir, 'logs')],
      resources: { cpus: 1, memoryGiB: 0.25 },
      placement: { cluster: cluster.id },
      ...extra,
    };
    // As the scheduler lays it out: <data dir>/run/<job id>.
    return { task, control: { dir: path.join(shared, 'run', name), attempt: 1 } };
  }

  it('runs a task in the sandbox with its exit code and log; partition, CPUs and memory are what Slurm shows', async () => {
    const { task, control } = job('echo "hello from $(hostname)"; ls / | head -c 0; touch /outside 2>/dev/null || echo confined; exit 3', {
      resources: { cpus: 2, memoryGiB: 0.5 },
      placement: { cluster: 'c0ffee0000000000000000aa', partition: 'batch' },
      preamble: ['first line'],
    });
    const id = (await executor.launch(task, control)) as SlurmId;
    assert.equal(id.backend, 'slurm');
    assert.match(id.jobId, /^\d+$/);
    const shown = scontrol(id.jobId);
    assert.match(shown, /Partition=batch /);
    assert.match(shown, /NumCPUs=2 /);
    assert.match(shown, /mem=512M/);
    assert.match(shown, new RegExp(`JobName=runyard-job${process.pid}x${counter}-a1 `));
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 3 });
    const log = readFileSync(task.logFile, 'utf8');
    assert.match(log, /^first line\nhello from /);
    assert.match(log, /confined/, 'the task cannot write outside its directories');
    assert.deepEqual(await executor.inspect(control, id), { state: 'exited', exitCode: 3 });
  });

  it(
    "on the default (outbound) network a Slurm task reaches the internet, but neither the node's loopback nor the metadata address",
    { skip: canMakeInternet },
    async () => {
      const internet = await makeInternet();
      const loopback = createServer((socket) => socket.end('loopback-service'));
      await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
      try {
        const port = (loopback.address() as AddressInfo).port;
        // bash's /dev/tcp: REACHED or BLOCKED per address.
        const probe = (name: string, host: string, p: number) =>
          `if (exec 3<>/dev/tcp/${host}/${p}) 2>/dev/null; then echo "${name} REACHED"; else echo "${name} BLOCKED"; fi`;
        const { task, control } = job(
          [probe('internet', PUBLIC, internet.port), probe('loopback', '127.0.0.1', port), probe('metadata', METADATA, internet.port)].join(
            '; ',
          ),
        );
        const id = await executor.launch(task, control);
        assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
        const log = readFileSync(task.logFile, 'utf8');
        assert.match(log, /^internet REACHED$/m, log);
        assert.match(log, /^loopback BLOCKED$/m, log);
        assert.match(log, /^metadata BLOCKED$/m, log);
      } finally {
        loopback.close();
        await internet.close();
      }
    },
  );

  it('keeps the environment off every command line and out of the batch script', async () => {
    const secret = `s3cr3t-${Date.now()}`;
    const { task, control } = job('printf "%s\\n" "$TOKEN"; sleep 2', { env: { ...ENV, TOKEN: secret } });
    const id = (await executor.launch(task, control)) as SlurmId;
    assert.doesNotMatch(scontrol(id.jobId), new RegExp(secret), 'not in the job record Slurm shows');
    assert.doesNotMatch(readFileSync(path.join(control.dir, 'runyard-batch.sh'), 'utf8'), new RegExp(secret));
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    assert.doesNotMatch(ps, new RegExp(secret), 'not in any process argv');
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assert.equal(readFileSync(task.logFile, 'utf8').trim(), secret);
  });

  it("refuses a partition Slurm does not have, with Slurm's reason, and directories outside the shared directory", async () => {
    const bad = job('true', { placement: { cluster: cluster.id, partition: 'nosuch' } });
    await assert.rejects(executor.launch(bad.task, bad.control), /Slurm refused the job: .*[Ii]nvalid partition/);
    const outside = job('true', { cwd: '/var/tmp/runyard-not-shared' });
    await assert.rejects(executor.launch(outside.task, outside.control), /not in HPC cluster dev's shared directory/);
    const unknown = job('true', { placement: { cluster: 'ffffffffffffffffffffffff' } });
    await assert.rejects(executor.launch(unknown.task, unknown.control), /HPC cluster ffffffffffffffffffffffff is not registered/);
  });

  it('a graceful kill reaches the task (it traps TERM and exits 0); a forced kill ends it at once', async () => {
    const graceful = job('trap "echo got TERM; exit 0" TERM; echo started; sleep 300 & wait');
    const id = (await executor.launch(graceful.task, graceful.control)) as SlurmId;
    await executor.started(graceful.control, id);
    for (let i = 0; i < 300 && !(existsSync(graceful.task.logFile) && readFileSync(graceful.task.logFile, 'utf8').includes('started')); i++)
      await sleep(100);
    await executor.kill(id, { force: false, graceMs: 30_000 });
    // The task ended of the signal as it chose: Slurm saw the batch script complete.
    assert.deepEqual(await executor.wait(graceful.control, id), { state: 'exited', exitCode: 0 });
    assert.match(readFileSync(graceful.task.logFile, 'utf8'), /got TERM/);

    const forced = job('trap "" TERM; sleep 300');
    const fid = (await executor.launch(forced.task, forced.control)) as SlurmId;
    await executor.started(forced.control, fid);
    const t0 = Date.now();
    await executor.kill(fid, { force: true, graceMs: 60_000 });
    assert.ok(Date.now() - t0 < 55_000, 'a forced kill does not wait for the grace period');
    assert.match(scontrol(fid.jobId), /JobState=CANCELLED/);
  });

  it('a new executor (a restarted server) reattaches by the stored id, and by the control file when none was stored', async () => {
    const { task, control } = job('sleep 3; exit 5');
    const id = (await executor.launch(task, control)) as SlurmId;
    const restarted = new SlurmExecutor({ clusters, sandbox: defaultSandbox(), pollMs: 200 });
    assert.deepEqual(await restarted.inspect(control, id), { state: 'running', id });
    assert.deepEqual(await restarted.inspect(control, null), { state: 'running', id }, 'found from attempt-1.slurm');
    assert.deepEqual(await restarted.wait(control, id), { state: 'exited', exitCode: 5 });
    const never = job('true');
    assert.deepEqual(await restarted.inspect(never.control, null), { state: 'absent' });
  });

  it('a server that died during sbatch: the job is found by its name even once it ended; with no job the attempt is fenced, and a late one does not run the task', async () => {
    const restarted = new SlurmExecutor({ clusters, sandbox: defaultSandbox(), pollMs: 200 });
    // sbatch answered, but the server died before it wrote the job id: the id file names the cluster only.
    const ended = job('exit 4');
    const id = (await executor.launch(ended.task, ended.control)) as SlurmId;
    assert.deepEqual(await executor.wait(ended.control, id), { state: 'exited', exitCode: 4 });
    writeFileSync(path.join(ended.control.dir, 'attempt-1.slurm'), `${cluster.id}\n`);
    assert.deepEqual(await restarted.inspect(ended.control, null), { state: 'exited', exitCode: 4 }, 'squeue --states=all by name');
    // No trace in Slurm yet (its sbatch still running when the survivor looked): absent, and fenced.
    const late = job('touch "$PWD/ran"');
    mkdirSync(late.control.dir, { recursive: true });
    writeFileSync(path.join(late.control.dir, 'attempt-1.slurm'), `${cluster.id}\n`);
    assert.deepEqual(await restarted.inspect(late.control, null), { state: 'absent' });
    // Then Slurm takes the dead scheduler's job after all: the wrapper sees the fence and runs nothing.
    const lateId = (await executor.launch(late.task, late.control)) as SlurmId;
    const end = await executor.wait(late.control, lateId);
    assert.deepEqual(end, { state: 'exited', exitCode: 125 });
    assert.equal(existsSync(path.join(late.task.cwd, 'ran')), false, 'the fenced attempt did not run its task');
  });

  /** An array task of rows (each row's variables), with its array directory written as the engine writes it. */
  async function arrayJob(script: string, rows: Record<string, string>[], limit: number) {
    const j = job(script);
    const array = {
      size: rows.length,
      limit,
      dir: path.join(j.control.dir, 'array-1'),
      taskLogsDir: path.join(path.dirname(j.task.logFile), 'tasks'),
    };
    await writeArrayRows(array.dir, array.taskLogsDir, rows);
    return { ...j, task: { ...j.task, array }, array };
  }

  it('an array task is one Slurm array; a restarted executor reattaches to it by id and by its control files; a fenced one runs no row', async () => {
    const rows = [0, 1, 2, 3].map((i) => ({ ROW: `r${i}` }));
    const a = await arrayJob('sleep 2; echo "$ROW"; [ "$ROW" != r2 ] || exit 7', rows, 2);
    const id = (await executor.launch(a.task, a.control)) as SlurmId;
    assert.match(scontrol(id.jobId), new RegExp(` ArrayJobId=${id.jobId} .* ArrayTaskThrottle=2 `));
    const restarted = new SlurmExecutor({ clusters, sandbox: defaultSandbox(), pollMs: 200 });
    assert.deepEqual(await restarted.inspect(a.control, id), { state: 'running', id });
    assert.deepEqual(await restarted.inspect(a.control, null), { state: 'running', id }, 'found from attempt-1.slurm');
    // A row failed: the task's code is 1, as the local driver's; each row's section and the summary are in the log, once.
    assert.deepEqual(await restarted.wait(a.control, id), { state: 'exited', exitCode: 1 });
    assert.deepEqual(await executor.inspect(a.control, id), { state: 'exited', exitCode: 1 });
    const log = readFileSync(a.task.logFile, 'utf8');
    for (const i of [0, 1, 3]) assert.ok(log.includes(`=== task ${i}: exit code 0 ===\nr${i}\n`), `row ${i}`);
    assert.ok(log.includes('=== task 2: exit code 7 ===\nr2\n'));
    assert.equal(log.match(/Runyard: 1 of 4 tasks failed\.\n/g)?.length, 1);

    const late = await arrayJob('touch "$PWD/ran-$ROW"', rows.slice(0, 2), 2);
    mkdirSync(late.control.dir, { recursive: true });
    writeFileSync(path.join(late.control.dir, 'attempt-1.slurm'), `${cluster.id}\n`);
    assert.deepEqual(await restarted.inspect(late.control, null), { state: 'absent' });
    const lateId = (await executor.launch(late.task, late.control)) as SlurmId;
    assert.deepEqual(await executor.wait(late.control, lateId), { state: 'exited', exitCode: 1 });
    assert.deepEqual(readdirSync(late.task.cwd), [], 'the fenced array ran no row');
  });

  it('a job Slurm does not know is settled as lost, naming it', async () => {
    const { control } = job('true');
    const ghost: SlurmId = { backend: 'slurm', cluster: cluster.id, jobId: '987654321' };
    assert.deepEqual(await executor.wait(control, ghost), {
      state: 'lost',
      reason: 'Slurm no longer knows job 987654321 (it ended without a recorded exit code).',
    });
  });

  it('a task over its memory is killed for it in its own cgroup on the node, and reported out of memory', async () => {
    const { task, control } = job('head -c 600m /dev/zero | tail > /dev/null; echo survived', { resources: { cpus: 1, memoryGiB: 0.25 } });
    const id = (await executor.launch(task, control)) as SlurmId;
    const end = await executor.wait(control, id);
    assert.equal(end.state, 'exited');
    assert.equal((end as { outOfMemory?: true }).outOfMemory, true, readFileSync(task.logFile, 'utf8'));
  });

  it('a child killed for its memory while the task completes, and forks refused at the process limit, are counted', async () => {
    const child = job('(head -c 600m /dev/zero | tail) 2>/dev/null; echo survived', { resources: { cpus: 1, memoryGiB: 0.25 } });
    const childEnd = await executor.wait(child.control, (await executor.launch(child.task, child.control)) as SlurmId);
    assert.deepEqual(childEnd.state === 'exited' && [childEnd.exitCode, childEnd.limits?.oomKills], [0, 1], JSON.stringify(childEnd));
    // 2,000 forks of children that sleep past the forking (the sandbox's PID namespace ends them with the task): the
    // pids group (256 per CPU, at least 512) refuses the rest.
    const storm = job(
      '/usr/bin/python3 -c \'import os, time\nok = 0\nfor i in range(2000):\n    try:\n        p = os.fork()\n    except OSError:\n        continue\n    if p == 0:\n        time.sleep(60)\n        os._exit(0)\n    ok += 1\nprint("FORKED", ok)\'',
      { resources: { cpus: 1, memoryGiB: 1 } },
    );
    const stormEnd = await executor.wait(storm.control, (await executor.launch(storm.task, storm.control)) as SlurmId);
    const log = readFileSync(storm.task.logFile, 'utf8');
    const forked = Number(/FORKED (\d+)/.exec(log)?.[1] ?? NaN);
    assert.ok(forked > 0 && forked < 512, `forked ${forked}:\n${log}`);
    assert.ok(stormEnd.state === 'exited' && (stormEnd.limits?.forksRefused ?? 0) > 0, JSON.stringify(stormEnd));
    assert.equal(stormEnd.state === 'exited' && stormEnd.limits?.pidsLimit, 512);
  });

  it("leaves no job's memory or pids cgroup behind, even when jobs end together (their last processes still leaving)", async () => {
    const jobs = Array.from({ length: 8 }, () => job('true'));
    const ids: SlurmId[] = [];
    for (const j of jobs) ids.push((await executor.launch(j.task, j.control)) as SlurmId);
    const ends = await Promise.all(jobs.map((j, i) => executor.wait(j.control, ids[i])));
    assert.deepEqual(
      ends.map((e) => e.state),
      jobs.map(() => 'exited'),
    );
    const names = ids.map((id) => `runyard-slurm-${id.jobId}`);
    const left = execFileSync(
      'find',
      ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids', '-maxdepth', '6', '-type', 'd', '-name', 'runyard-slurm-*'],
      {
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter((dir) => names.includes(path.basename(dir)));
    assert.deepEqual(left, []);
  });

  it('polls all the waits of a cluster with one squeue per poll', async () => {
    const calls = path.join(shared, `calls-${process.pid}.txt`);
    const counting = path.join(shared, 'counting-prefix.sh');
    // A real submit prefix (as ["ssh", "login1"] would be): it logs each command line, then runs it.
    writeFileSync(counting, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${calls}'\nexec "$@"\n`);
    chmodSync(counting, 0o755);
    const counted: HpcClusterRecord = { ...cluster, id: 'c0ffee0000000000000000bb', submitPrefix: [counting] };
    const pollMs = 300;
    const polling = new SlurmExecutor({ clusters: async (id) => (id === counted.id ? counted : null), sandbox: defaultSandbox(), pollMs });
    const jobs = [1, 2, 3, 4].map(() => job('sleep 4', { placement: { cluster: counted.id } }));
    const ids: SlurmId[] = [];
    for (const j of jobs) ids.push((await polling.launch(j.task, j.control)) as SlurmId);
    writeFileSync(calls, '');
    const t0 = Date.now();
    const ends = await Promise.all(jobs.map((j, i) => polling.wait(j.control, ids[i])));
    const elapsed = Date.now() - t0;
    assert.deepEqual(
      ends.map((e) => e.state),
      ['exited', 'exited', 'exited', 'exited'],
    );
    const squeues = readFileSync(calls, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('squeue'));
    const first = squeues[0].split(' ')[squeues[0].split(' ').indexOf('-j') + 1].split(',').sort();
    assert.deepEqual(first, ids.map((i) => i.jobId).sort(), 'one squeue names all the waited jobs');
    // One call a poll at most; a call per job would be four a poll. New jobs are polled soon, 50 ms after
    // their submission, then at 100, 200 ms... up to pollMs: a few more polls than elapsed / pollMs.
    const backoffPolls = Math.ceil(Math.log2(pollMs / 50)) + 1;
    assert.ok(squeues.length <= elapsed / pollMs + backoffPolls + 2, `${squeues.length} squeue calls in ${elapsed} ms`);
  });
});
