import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AttemptControl, TaskSpec } from '../../src/executors/executor.js';
import { LocalExecutor, type LocalId } from '../../src/executors/local.js';
import { currentThreadId, groupMembers, isLive, readProcStat } from '../../src/executors/proc.js';
import { Spawner } from '../../src/executors/spawner/spawner.js';
import { detectCgroups, readHostView, tasksFolderWeight, type Cgroups, type HostView } from '../../src/executors/sandbox/cgroup.js';
import { groupNameOf, TaskLimits } from '../../src/executors/sandbox/limits.js';
import { createSandbox, defaultSandbox } from '../../src/executors/sandbox/sandbox.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const UNCONFINED = createSandbox({ sandbox: 'none', taskNetwork: 'host', taskPath: PATH });
const GiB = 1024 ** 3;

function scratch(): { dir: string; control: AttemptControl; task: (script: string, resources?: TaskSpec['resources']) => TaskSpec } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-cgroup-'));
  // A control directory named like a job's: the group's name starts with it.
  const control = { dir: path.join(dir, 'run', path.basename(dir)), attempt: 1 };
  const task = (script: string, resources?: TaskSpec['resources']): TaskSpec => ({
    argv: ['bash', '-c', script],
    env: { PATH },
    cwd: path.join(dir, 'work'),
    logFile: path.join(dir, 'logs', 'stdout.txt'),
    ...(resources && { resources }),
  });
  return { dir, control, task };
}

/** Holds n MiB in memory, then prints how many bytes it held: tail keeps a line (here, all of it) until its end. */
const hog = (mib: number) => `set -o pipefail; head -c ${mib}M /dev/zero | tail | wc -c`;

const logOf = (dir: string) => readFileSync(path.join(dir, 'logs', 'stdout.txt'), 'utf8');

/** The directory of the server's own cgroup of a v1 controller, as the kernel tells it. */
function ownV1Dir(controller: string): string {
  const own = /^\d+:([^:]*):(.*)$/m;
  const line = readHostView()
    .selfCgroup.split('\n')
    .map((l) => own.exec(l))
    .find((m) => m && m[1].split(',').includes(controller))!;
  return path.join('/sys/fs/cgroup', controller, line[2]);
}

const host = detectCgroups('auto');
const v1 = host.version === 1 ? false : `this host has no writable cgroup v1 controllers (${host.unavailable ?? `v${host.version}`})`;

describe('cgroups v1 on this host (per-task groups, limits, OOM kills)', { timeout: 300_000, skip: v1 }, () => {
  it('the task runs in its own memory and cpu groups, which hold its limits, and are removed after its end', async () => {
    const { dir, control, task } = scratch();
    const executor = new LocalExecutor(50, UNCONFINED);
    const name = groupNameOf(control);
    const memory = path.join(ownV1Dir('memory'), 'runyard', name);
    const cpu = path.join(ownV1Dir('cpu'), 'runyard', name);
    // The task reports its groups and the limits it is held to, as seen from inside.
    const script = [
      'cat /proc/self/cgroup',
      `echo "mem=$(cat "$1/memory.limit_in_bytes") memsw=$(cat "$1/memory.memsw.limit_in_bytes") quota=$(cat "$2/cpu.cfs_quota_us") period=$(cat "$2/cpu.cfs_period_us")"`,
    ].join('\n');
    const spec = task(script, { cpus: 1.5, memoryGiB: 0.5 });
    spec.argv.push('job', memory, cpu);
    const id = await executor.launch(spec, control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    const log = logOf(dir);
    assert.match(log, new RegExp(`^\\d+:memory:.*/runyard/${name}$`, 'm'));
    assert.match(log, new RegExp(`^\\d+:([^:]*,)?cpu(,[^:]*)?:.*/runyard/${name}$`, 'm'));
    assert.match(log, new RegExp(`^mem=${0.5 * GiB} memsw=${0.5 * GiB} quota=150000 period=100000$`, 'm'));
    await executor.cleanup(control);
    assert.ok(!existsSync(memory) && !existsSync(cpu), 'the groups are removed');
  });

  it('a sandboxed task that passes its memory limit is killed by the kernel, and its end says so, then and later', async () => {
    const { dir, control, task } = scratch();
    const executor = new LocalExecutor(50, defaultSandbox());
    const id = await executor.launch(task(hog(512), { cpus: 1, memoryGiB: 0.25 }), control);
    const end = await executor.wait(control, id);
    assert.equal(end.state, 'exited', logOf(dir));
    assert.equal(end.outOfMemory, true, logOf(dir));
    assert.doesNotMatch(logOf(dir), /^536870912$/m);
    await executor.cleanup(control);
    assert.ok(!existsSync(path.join(ownV1Dir('memory'), 'runyard', groupNameOf(control))));
    // A server that looks again (after a restart) is told the same, though the group is gone.
    assert.deepEqual(await executor.inspect(control, id), end);
  });

  it('a task within its limit ends normally', async () => {
    const { dir, control, task } = scratch();
    const executor = new LocalExecutor(50, defaultSandbox());
    const id = await executor.launch(task(hog(64), { cpus: 1, memoryGiB: 0.25 }), control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 }, logOf(dir));
    assert.match(logOf(dir), /^67108864$/m);
  });

  it('what a task left running is killed with its groups, even outside its process group (setsid)', async () => {
    const { dir, control, task } = scratch();
    const executor = new LocalExecutor(50, UNCONFINED);
    const pidFile = path.join(dir, 'left.pid');
    const script = `setsid sleep 60 & echo $! > ${pidFile}; sleep 30 & echo done`;
    const id = await executor.launch(task(script, { cpus: 1, memoryGiB: 0.25 }), control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    // Killed at the end; gone once its groups are (their removal waits for their last members).
    await executor.cleanup(control);
    const left = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(isLive(readProcStat(left)), false, 'the setsid child is killed');
    assert.deepEqual(groupMembers((id as LocalId).pid), []);
  });
});

describe('the dispatch group on this host (v1)', { timeout: 120_000, skip: v1 }, () => {
  it("takes the thread that launches the tasks and the spawner, not the process's other threads; a task without resources runs in the tasks' unlimited group", async () => {
    const cpuDir = ownV1Dir('cpu');
    const dispatch = path.join(cpuDir, 'runyard-dispatch');
    const thread = currentThreadId()!;
    const spawner = new Spawner();
    const executor = new LocalExecutor(50, UNCONFINED, new TaskLimits(() => detectCgroups('auto', readHostView, 3)), spawner);
    try {
      assert.equal(executor.placeDispatchers(), null);
      assert.ok(readFileSync(path.join(dispatch, 'tasks'), 'utf8').split('\n').includes(String(thread)), 'this thread is in the group');
      assert.equal(readFileSync(path.join(dispatch, 'cpu.shares'), 'utf8').trim(), '3072', "weighted as the tasks' folder");
      const { dir, control, task } = scratch();
      const id = (await executor.launch(task('cat /proc/self/cgroup'), control)) as LocalId;
      assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
      // The spawner started with the first task, and went into the group before it started anything.
      assert.match(readFileSync(`/proc/${spawner.pid}/cgroup`, 'utf8'), /^\d+:([^:]*,)?cpu(,[^:]*)?:.*\/runyard-dispatch$/m);
      assert.match(logOf(dir), /^\d+:([^:]*,)?cpu(,[^:]*)?:.*\/runyard\/unlimited$/m);
      // The process's other threads (V8's, libuv's) stay where they were.
      const members = readFileSync(path.join(dispatch, 'tasks'), 'utf8').split('\n');
      const others = readdirSync('/proc/self/task').filter((tid) => tid !== String(thread));
      assert.ok(others.length > 0);
      assert.deepEqual(
        others.filter((tid) => members.includes(tid)),
        [],
      );
    } finally {
      // This test's thread goes back to the cgroup it came from.
      writeFileSync(path.join(cpuDir, 'tasks'), String(thread));
    }
  });
});

describe('task limits', { timeout: 120_000 }, () => {
  it('without cgroups, the log says the limits are not enforced, and why', async () => {
    const { dir, control, task } = scratch();
    const executor = new LocalExecutor(50, UNCONFINED, new TaskLimits(() => detectCgroups('none')));
    const id = await executor.launch(task('echo ran', { cpus: 1, memoryGiB: 1 }), control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assert.match(logOf(dir), /^Runyard: CPU and memory limits are not enforced on this host: RUNYARD_CGROUPS=none\.\nran\n$/m);
  });

  it('a task that cannot join its cgroup does not run', async () => {
    const { dir, control, task } = scratch();
    const missing = path.join(dir, 'no-such-group', 'cgroup.procs');
    const fake: Cgroups = {
      version: 1,
      unavailable: null,
      create: async () => [missing],
      oomKilled: () => false,
      events: () => ({ oomKills: 0, forksRefused: 0 }),
      remove: async () => undefined,
      exists: () => false,
      removeEmpty: () => undefined,
      unlimited: () => [],
      placeDispatcher: () => 'a fake',
    };
    const executor = new LocalExecutor(50, UNCONFINED, new TaskLimits(() => fake));
    const id = await executor.launch(task('echo ran', { cpus: 1, memoryGiB: 1 }), control);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 125 });
    assert.doesNotMatch(logOf(dir), /^ran$/m);
    assert.ok(logOf(dir).includes(`Runyard: the task could not join its cgroup (${missing}).`));
  });
});

describe("the removal of a task's groups", () => {
  /** Groups whose remove() is held until the test lets it end (as the kernel holds one while its last process exits). */
  function heldGroups() {
    const calls: string[] = [];
    const held = new Map<string, { resolve(): void; reject(e: Error): void }>();
    const cgroups: Cgroups = {
      version: 1,
      unavailable: null,
      create: async (name) => [name],
      oomKilled: (name) => name.includes('-a2-'),
      events: () => ({ oomKills: 0, forksRefused: 0 }),
      remove: (name) => {
        calls.push(name);
        return new Promise((resolve, reject) => held.set(name, { resolve, reject }));
      },
      exists: () => true,
      removeEmpty: () => undefined,
      unlimited: () => [],
      placeDispatcher: () => 'a fake',
    };
    return { cgroups, calls, held };
  }

  it("does not hold up the task's end: settle begins it and tells the verdict, removed() waits for it", async () => {
    const { cgroups, calls, held } = heldGroups();
    const limits = new TaskLimits(() => cgroups);
    const { control } = scratch();
    mkdirSync(control.dir, { recursive: true });
    const name = groupNameOf(control);
    assert.equal(await limits.settle(control, false), false);
    assert.deepEqual(calls, [name], 'the removal began (its kill and first try)');
    let done = false;
    let drained = false;
    const removed = limits.removed(control).then(() => (done = true));
    const draining = limits.drain().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(done, false, 'removed() waits for the removal under way');
    assert.equal(drained, false, 'so does drain()');
    held.get(name)!.resolve();
    await Promise.all([removed, draining]);
    assert.equal(done, true);
    // Nothing under way any more: at once.
    await limits.removed(control);
    // An attempt killed for its memory is told so though its group is still being removed.
    const second = { ...control, attempt: 2 };
    assert.equal(await limits.settle(second, true), true);
    held.get(groupNameOf(second))!.resolve();
    await limits.removed(second);
  });

  it('a removal that failed is reported by removed(), once, even when it failed before anyone asked', async () => {
    const { cgroups, held } = heldGroups();
    const limits = new TaskLimits(() => cgroups);
    const { control } = scratch();
    await limits.settle(control, false);
    held.get(groupNameOf(control))!.reject(new Error('EBUSY: resource busy or locked, rmdir'));
    await new Promise((resolve) => setImmediate(resolve));
    await limits.drain();
    await assert.rejects(limits.removed(control), /EBUSY/);
    await limits.removed(control);
  });
});

describe('cgroups v2 (a fake unified hierarchy)', () => {
  function fakeV2(): { root: string; own: string; view: HostView } {
    const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-cgroup2-'));
    const own = path.join(root, 'system.slice', 'runyard.service');
    mkdirSync(own, { recursive: true });
    writeFileSync(path.join(own, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
    writeFileSync(path.join(own, 'cgroup.subtree_control'), '\n');
    const mountinfo = [
      `31 23 0:27 / ${root.replaceAll(' ', '\\040')} rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate`,
      '22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
    ].join('\n');
    return { root, own, view: { mountinfo, selfCgroup: '0::/system.slice/runyard.service\n', pid: 4242 } };
  }

  it('hands the memory and cpu controllers down to runyard/, and writes memory.max, memory.swap.max and cpu.max', async () => {
    const { root, own, view } = fakeV2();
    const cgroups = detectCgroups('auto', () => view, 3);
    assert.equal(cgroups.unavailable, null);
    assert.equal(cgroups.version, 2);
    // pids too, where the server's group has it (this fake's does): a task's process limit.
    assert.equal(readFileSync(path.join(own, 'cgroup.subtree_control'), 'utf8'), '+memory +cpu +pids');
    // The tasks together weigh as much as three processes (3 CPUs of capacity), not one.
    assert.equal(readFileSync(path.join(own, 'runyard', 'cpu.weight'), 'utf8'), '300');
    assert.equal(readFileSync(path.join(own, 'runyard', 'cgroup.subtree_control'), 'utf8'), '+memory +cpu +pids');
    const group = path.join(own, 'runyard', 'job1-a2');
    mkdirSync(group);
    writeFileSync(path.join(group, 'memory.swap.max'), 'max\n');
    writeFileSync(path.join(group, 'pids.max'), 'max\n');
    assert.deepEqual(await cgroups.create('job1-a2', { cpus: 2, memoryGiB: 1.5 }), [path.join(group, 'cgroup.procs')]);
    assert.equal(readFileSync(path.join(group, 'memory.max'), 'utf8'), String(1.5 * GiB));
    assert.equal(readFileSync(path.join(group, 'memory.swap.max'), 'utf8'), '0');
    assert.equal(readFileSync(path.join(group, 'cpu.max'), 'utf8'), '200000 100000');
    assert.equal(readFileSync(path.join(group, 'pids.max'), 'utf8'), '512');
    assert.equal(cgroups.oomKilled('job1-a2', false), false);
    writeFileSync(path.join(group, 'memory.events'), 'low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n');
    assert.equal(cgroups.oomKilled('job1-a2', false), true);
    writeFileSync(path.join(group, 'pids.events'), 'max 7\n');
    // The limit the refused forks met is read with them (the job's status names it).
    assert.deepEqual(cgroups.events('job1-a2'), { oomKills: 1, forksRefused: 7, pidsLimit: 512 });
    // A queue's own limit is written instead of the one by CPUs.
    await cgroups.create('job1-a2', { cpus: 2, memoryGiB: 1.5, pids: 100 });
    assert.equal(readFileSync(path.join(group, 'pids.max'), 'utf8'), '100');
    // A real group's files vanish with it; here they are removed first.
    rmSync(group, { recursive: true });
    await cgroups.remove('job1-a2');
    await assert.rejects(cgroups.create('../escape', { cpus: 1, memoryGiB: 1 }), /Not a cgroup name/);
    // Beside runyard/: the dispatch group, weighted as it, takes a process (the spawner); one thread, v2 cannot move.
    assert.equal(cgroups.placeDispatcher({ process: 77 }), null);
    assert.equal(readFileSync(path.join(own, 'runyard-dispatch', 'cgroup.procs'), 'utf8'), '77');
    assert.equal(readFileSync(path.join(own, 'runyard-dispatch', 'cpu.weight'), 'utf8'), '300');
    assert.equal(cgroups.placeDispatcher({ thread: 78 }), 'cgroup v2 moves whole processes only');
    assert.deepEqual(cgroups.unlimited(), [path.join(own, 'runyard', 'unlimited', 'cgroup.procs')]);
    rmSync(root, { recursive: true });
  });

  it('without the controllers in the server cgroup, falls back to v1, and says why when neither is there', () => {
    const { root, own, view } = fakeV2();
    writeFileSync(path.join(own, 'cgroup.controllers'), 'pids io\n');
    const cgroups = detectCgroups('auto', () => view);
    assert.equal(cgroups.version, null);
    assert.match(
      cgroups.unavailable!,
      /v2: the controllers memory, cpu are not available in the server's cgroup .*; v1: no v1 memory controller is mounted/,
    );
    rmSync(root, { recursive: true });
  });

  it('v1 with cpu and cpuacct sharing a hierarchy (a fake): memory.limit_in_bytes, memory.memsw.limit_in_bytes and the cpu quota', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-cgroup1-'));
    const view: HostView = {
      mountinfo: [
        `32 31 0:29 / ${root}/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct`,
        `35 31 0:32 /outer ${root}/memory rw,relatime - cgroup cgroup rw,memory`,
      ].join('\n'),
      selfCgroup: '4:memory:/outer/svc\n2:cpu,cpuacct:/svc\n0::/\n',
      pid: 1,
    };
    const cgroups = detectCgroups('auto', () => view, 4);
    assert.equal(cgroups.version, 1, cgroups.unavailable ?? '');
    assert.equal(readFileSync(path.join(root, 'cpu,cpuacct', 'svc', 'runyard', 'cpu.shares'), 'utf8'), '4096');
    const memory = path.join(root, 'memory', 'svc', 'runyard', 'j-a1');
    const cpu = path.join(root, 'cpu,cpuacct', 'svc', 'runyard', 'j-a1');
    mkdirSync(memory, { recursive: true });
    writeFileSync(path.join(memory, 'memory.memsw.limit_in_bytes'), '');
    assert.deepEqual(await cgroups.create('j-a1', { cpus: 4, memoryGiB: 8 }), [
      path.join(memory, 'cgroup.procs'),
      path.join(cpu, 'cgroup.procs'),
    ]);
    assert.equal(readFileSync(path.join(memory, 'memory.limit_in_bytes'), 'utf8'), String(8 * GiB));
    assert.equal(readFileSync(path.join(memory, 'memory.memsw.limit_in_bytes'), 'utf8'), String(8 * GiB));
    assert.equal(readFileSync(path.join(cpu, 'cpu.cfs_quota_us'), 'utf8'), '400000');
    assert.equal(readFileSync(path.join(cpu, 'cpu.cfs_period_us'), 'utf8'), '100000');
    writeFileSync(path.join(memory, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 2\n');
    assert.equal(cgroups.oomKilled('j-a1', false), true);
    // The dispatch group is in the cpu hierarchy only, beside runyard/: a thread through tasks, a process through cgroup.procs.
    const dispatch = path.join(root, 'cpu,cpuacct', 'svc', 'runyard-dispatch');
    assert.equal(cgroups.placeDispatcher({ thread: 4321 }), null);
    assert.equal(readFileSync(path.join(dispatch, 'tasks'), 'utf8'), '4321');
    assert.equal(readFileSync(path.join(dispatch, 'cpu.shares'), 'utf8'), '4096');
    assert.equal(cgroups.placeDispatcher({ process: 99 }), null);
    assert.equal(readFileSync(path.join(dispatch, 'cgroup.procs'), 'utf8'), '99');
    assert.ok(!existsSync(path.join(root, 'memory', 'svc', 'runyard-dispatch')));
    assert.deepEqual(cgroups.unlimited(), [path.join(root, 'cpu,cpuacct', 'svc', 'runyard', 'unlimited', 'cgroup.procs')]);
    // Where the group cannot be made, the answer says why (here a file is in its way).
    mkdirSync(path.join(root, 'cpu,cpuacct', 'svc2'));
    writeFileSync(path.join(root, 'cpu,cpuacct', 'svc2', 'runyard-dispatch'), '');
    const blocked = detectCgroups('auto', () => ({ ...view, selfCgroup: '4:memory:/outer/svc\n2:cpu,cpuacct:/svc2\n' }), 4);
    assert.equal(blocked.unavailable, null);
    assert.match(blocked.placeDispatcher({ process: 1 }) ?? '', /could not be moved into .*runyard-dispatch \(.*\)/);
    rmSync(root, { recursive: true });
  });
});

describe("the weight of the tasks' folder", () => {
  it('is the default weight times the CPUs the tasks may use together, within what the kernel takes', () => {
    assert.equal(tasksFolderWeight(1, 4), 4096);
    assert.equal(tasksFolderWeight(2, 4), 400);
    assert.equal(tasksFolderWeight(2, 0.5), 100, 'never below one process');
    assert.equal(tasksFolderWeight(2, 500), 10_000);
    assert.equal(tasksFolderWeight(1, 1000), 262_144);
  });
});
