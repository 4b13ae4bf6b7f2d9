import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptControl } from '../../src/executors/executor.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { isLive, readProcStat } from '../../src/executors/proc.js';
import { detectV2, parseMountinfo, type HostView, type V2Controllers } from '../../src/executors/sandbox/cgroup.js';
import { groupNameOf, TaskLimits } from '../../src/executors/sandbox/limits.js';
import { createSandbox } from '../../src/executors/sandbox/sandbox.js';
import { Spawner } from '../../src/executors/spawner/spawner.js';

/**
 * cgroup v2 on the kernel's own unified hierarchy, not a fake tree: the rules of a real cgroup2
 * mount (no internal processes, EBUSY while a group holds a process, the moves through
 * cgroup.procs). A host whose memory and cpu controllers are bound to v1 (this machine's) has
 * other controllers on its cgroup2 mount; one of them (hugetlb, a domain controller under the
 * same rules) stands for memory and cpu, whose limit writes (memory.max, cpu.max, pids.max) and
 * events are left to the fake tree of cgroup.test.ts. Every group is made under a fresh group of
 * the mount's, removed after.
 */

const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** The stand-in controller, the fresh group the tests work in, and what to undo after. */
interface RealMount {
  point: string;
  root: string;
  controller: string;
  top: string;
  /** The stand-in had to be enabled in the mount's own subtree_control: disabled again after. */
  enabledAtMount: boolean;
}

function words(file: string): string[] {
  return readFileSync(file, 'utf8').split(/\s+/).filter(Boolean);
}

/** Best effort: another run may use the controller still (the kernel then refuses, EBUSY); left enabled, it is harmless. */
function undoMountEnable(point: string, controller: string): void {
  try {
    writeFileSync(path.join(point, 'cgroup.subtree_control'), `-${controller}`);
  } catch {
    // Left enabled: the next run finds it so.
  }
}

/** The first cgroup2 mount (the one detectV2 uses), a fresh group under it with a controller to hand down; or why not. */
function realMount(): RealMount | string {
  const mount = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8')).find((m) => m.fstype === 'cgroup2');
  if (!mount) return 'this host has no cgroup2 mount';
  const controllers = words(path.join(mount.point, 'cgroup.controllers'));
  // hugetlb where it is there (this machine's only one); else any: each follows the same rules in a domain group.
  const controller = controllers.includes('hugetlb') ? 'hugetlb' : controllers[0];
  if (!controller) return `the cgroup2 mount ${mount.point} has no controller to hand down`;
  const top = path.join(mount.point, `runyard-v2-test-${process.pid}`);
  try {
    mkdirSync(top);
  } catch (e) {
    return `the cgroup2 mount ${mount.point} is not writable here (${(e as Error).message})`;
  }
  const enabledAtMount = !words(path.join(mount.point, 'cgroup.subtree_control')).includes(controller);
  try {
    if (enabledAtMount) writeFileSync(path.join(mount.point, 'cgroup.subtree_control'), `+${controller}`);
    writeFileSync(path.join(top, 'cgroup.subtree_control'), `+${controller}`);
  } catch (e) {
    rmdirSync(top);
    if (enabledAtMount) undoMountEnable(mount.point, controller);
    return `the cgroup2 mount ${mount.point} does not hand ${controller} down here (${(e as Error).message})`;
  }
  return { point: mount.point, root: mount.root, controller, top, enabledAtMount };
}

const mount = process.platform === 'linux' ? realMount() : 'cgroups are a Linux feature';
const skip = typeof mount === 'string' ? mount : false;

/** The processes the tests start (stand-ins for the server, tasks' processes), killed after (those not reaped yet). */
const started = new Set<ChildProcess>();

function startProcess(program: string, args: string[], stdout: 'ignore' | 'pipe' = 'ignore'): ChildProcess & { pid: number } {
  const child = spawn(program, args, { stdio: ['ignore', stdout, 'inherit'] });
  child.on('error', () => undefined);
  assert.ok(child.pid, `${program} started`);
  started.add(child);
  return child as ChildProcess & { pid: number };
}

const startSleep = () => startProcess('sleep', ['600']).pid;

/**
 * A process that takes a while to exit once killed: it frees 256 MiB it wrote to (10-40 ms here). Eight
 * sleeps killed at once were still exiting at remove()'s first rmdir only about half the time on a loaded
 * 2-core VM; this one, 30 times in 30.
 */
async function startHog(): Promise<number> {
  const script = "globalThis.held = Buffer.alloc(256 * 2 ** 20, 1); console.log('ready'); setInterval(() => {}, 1e9)";
  const child = startProcess(process.execPath, ['-e', script], 'pipe');
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  return child.pid;
}

const isGone = (pid: number) => !isLive(readProcStat(pid));

/** The members of a group, as the kernel lists them. */
function procsOf(dir: string): number[] {
  return words(path.join(dir, 'cgroup.procs'))
    .map(Number)
    .sort((a, b) => a - b);
}

function moveInto(dir: string, ...pids: number[]): void {
  for (const pid of pids) writeFileSync(path.join(dir, 'cgroup.procs'), String(pid));
}

/** A directory's path in the hierarchy, as /proc/<pid>/cgroup names it. */
function pathOf(m: RealMount, dir: string): string {
  return path.posix.join(m.root, path.relative(m.point, dir));
}

/** The process's group in the unified hierarchy (its `0::` line). */
function groupOf(pid: number): string {
  return /^0::(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))![1];
}

/** What the kernel tells that process of its cgroups: the server detectV2 prepares. */
function hostOf(pid: number): HostView {
  return { mountinfo: readFileSync(`/proc/${pid}/mountinfo`, 'utf8'), selfCgroup: readFileSync(`/proc/${pid}/cgroup`, 'utf8'), pid };
}

/** The groups under dir (directories), by name. */
const childGroups = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();

/**
 * Kills what is in the tree (only the tests put processes there) and removes its groups, deepest first:
 * the tests' own cleanup, not the code under test.
 */
async function removeTree(dir: string): Promise<void> {
  for (const name of childGroups(dir)) await removeTree(path.join(dir, name));
  for (let tries = 0; ; tries++) {
    for (const pid of procsOf(dir))
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    try {
      rmdirSync(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EBUSY' || tries > 100) throw e;
      await sleep(50);
    }
  }
}

describe('cgroup v2 on a real cgroup2 mount', { timeout: 120_000, skip }, () => {
  const m = mount as RealMount;
  // The stand-in for memory and cpu; pids as a server asks for it (handed down where the group has it: not here).
  const STAND_IN: V2Controllers = { required: [m.controller], optional: ['pids'].filter((c) => c !== m.controller) };
  let groups = 0;
  /** A fresh group for one test's server, under the tests' group (which hands the stand-in down to it). */
  const serverGroup = () => {
    const dir = path.join(m.top, `server-group-${++groups}`);
    mkdirSync(dir);
    return dir;
  };
  /** A server (a sleep) in a fresh group, and that group. */
  const server = () => {
    const own = serverGroup();
    const pid = startSleep();
    moveInto(own, pid);
    return { own, pid };
  };

  after(async () => {
    if (typeof mount === 'string') return;
    await removeTree(mount.top);
    // Node signals none it has reaped already (its pid may be another process's by now).
    for (const child of started) child.kill('SIGKILL');
    if (mount.enabledAtMount) undoMountEnable(mount.point, mount.controller);
  });

  it("a server whose group holds it: enabling the controller fails with EBUSY, the server moves into server/, and the controller reaches runyard/ and the tasks' groups", async () => {
    const { own, pid } = server();
    assert.deepEqual(procsOf(own), [pid]);
    // The kernel's rule, as this mount enforces it: a non-root group that holds a process hands nothing down.
    assert.throws(() => writeFileSync(path.join(own, 'cgroup.subtree_control'), `+${m.controller}`), { code: 'EBUSY' });
    const cgroups = detectV2(hostOf(pid), 2, STAND_IN);
    assert.equal(cgroups.version, 2);
    assert.equal(groupOf(pid), pathOf(m, path.join(own, 'server')), 'the server moved into server/');
    assert.deepEqual(procsOf(own), [], "the server's group holds no process any more");
    assert.deepEqual(words(path.join(own, 'cgroup.subtree_control')), [m.controller]);
    assert.deepEqual(childGroups(own), ['runyard', 'server']);
    const base = path.join(own, 'runyard');
    assert.deepEqual(words(path.join(base, 'cgroup.controllers')), [m.controller]);
    assert.deepEqual(words(path.join(base, 'cgroup.subtree_control')), [m.controller], 'handed down to the tasks');
    // A task's group has the controller (its files): its limits would be there (memory.max and cpu.max on a server).
    const [procs] = await cgroups.create('job-a1', { cpus: 1, memoryGiB: 1 });
    assert.equal(procs, path.join(base, 'job-a1', 'cgroup.procs'));
    assert.deepEqual(words(path.join(base, 'job-a1', 'cgroup.controllers')), [m.controller]);
    assert.ok(readdirSync(path.join(base, 'job-a1')).some((f) => f.startsWith(`${m.controller}.`)));
    // A second detection in the same server (each TaskLimits detects: the managed Cromwell server's executor has
    // one of its own), which the kernel tells it is in server/: the same tasks' folder, and nothing moves.
    const again = detectV2(hostOf(pid), 2, STAND_IN);
    assert.equal(groupOf(pid), pathOf(m, path.join(own, 'server')));
    assert.deepEqual(childGroups(path.join(own, 'server')), []);
    assert.deepEqual(await again.create('job-a1', { cpus: 1, memoryGiB: 1 }), [procs]);
    await cgroups.remove('job-a1');
  });

  it("a server whose group holds another process too: the error names that process and the cause, and says how to run the server (systemd's Delegate=yes)", () => {
    const { own, pid } = server();
    const other = startSleep();
    moveInto(own, other);
    assert.throws(
      () => detectV2(hostOf(pid), 1, STAND_IN),
      (e: Error) => {
        assert.equal(
          e.message,
          `the server's cgroup ${own} holds other processes (pids ${other}), so it cannot hand the controllers down ` +
            '(EBUSY: resource busy or locked, write); run the server in a cgroup of its own with the controllers ' +
            'delegated (systemd: Delegate=yes)',
        );
        return true;
      },
    );
    // The server went into server/ (that alone would have done); the other stays, and nothing was handed down.
    assert.equal(groupOf(pid), pathOf(m, path.join(own, 'server')));
    assert.deepEqual(procsOf(own), [other]);
    assert.deepEqual(words(path.join(own, 'cgroup.subtree_control')), []);
    assert.ok(!existsSync(path.join(own, 'runyard')));
  });

  it("a server's controllers (memory and cpu) are required: a group without them is refused before anything moves", () => {
    const { own, pid } = server();
    const missing = ['memory', 'cpu'].filter((c) => c !== m.controller);
    assert.throws(
      () => detectV2(hostOf(pid), 1),
      new RegExp(`^Error: the controllers ${missing.join(', ')} are not available in the server's cgroup ${own}$`),
    );
    assert.deepEqual(procsOf(own), [pid]);
    assert.deepEqual(childGroups(own), []);
  });

  it("a task's group: the processes written into its cgroup.procs run there; removed while they are still exiting, the kernel refuses (EBUSY) and the retry removes it", async () => {
    const { own, pid } = server();
    const cgroups = detectV2(hostOf(pid), 1, STAND_IN);
    const dir = path.join(own, 'runyard');
    // The kernel still counts a process killed a moment ago while it frees its memory; should this (busy) host
    // let it finish before the first rmdir, the next try shows it.
    let heldAtFirstTry = 0;
    for (let trial = 1; trial <= 5 && !heldAtFirstTry; trial++) {
      const name = `exiting-a${trial}`;
      const [procs] = await cgroups.create(name, { cpus: 1, memoryGiB: 1 });
      assert.equal(cgroups.exists(name), true);
      // The wrapper's write, for each process of the task.
      const pids = [await startHog(), startSleep()];
      for (const p of pids) writeFileSync(procs, String(p));
      assert.deepEqual(
        procsOf(path.join(dir, name)),
        [...pids].sort((a, b) => a - b),
      );
      for (const p of pids) assert.equal(groupOf(p), pathOf(m, path.join(dir, name)));
      // The task's end: its processes are killed, and the removal begins while they exit.
      for (const p of pids) process.kill(p, 'SIGKILL');
      const removal = cgroups.remove(name);
      // remove() makes its kill and its first try before it returns.
      if (existsSync(path.join(dir, name))) heldAtFirstTry = trial;
      await removal;
      assert.equal(existsSync(path.join(dir, name)), false, 'the group is gone');
      assert.equal(cgroups.exists(name), false);
    }
    assert.ok(heldAtFirstTry, 'in five tries the kernel never held a group while its processes exited');
    assert.deepEqual(childGroups(dir), [], 'nothing left in the tasks folder');
  });

  it('a task run by the local executor joins its group under runyard/ through the wrapper; what it left running is killed, the group removed; the spawner goes into runyard-dispatch/, a task without resources into runyard/unlimited', async () => {
    const { own, pid } = server();
    const cgroups = detectV2(hostOf(pid), 2, STAND_IN);
    const spawner = new Spawner();
    const sandbox = createSandbox({ sandbox: 'none', taskNetwork: 'host', taskPath: PATH });
    const executor = new LocalExecutor(50, sandbox, new TaskLimits(() => cgroups), spawner);
    // v2 moves whole processes: the spawner, when it starts; not this thread.
    assert.equal(executor.placeDispatchers(), 'cgroup v2 moves whole processes only');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-cgroup2-'));
    const run = async (attempt: number, script: string, resources?: { cpus: number; memoryGiB: number }) => {
      const control: AttemptControl = { dir: path.join(dir, 'run', path.basename(dir)), attempt };
      const logFile = path.join(dir, `stdout-${attempt}.txt`);
      const id = await executor.launch(
        { argv: ['bash', '-c', script], env: { PATH }, cwd: path.join(dir, 'work'), logFile, ...(resources && { resources }) },
        control,
      );
      assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 }, readFileSync(logFile, 'utf8'));
      await executor.cleanup(control);
      return { name: groupNameOf(control), log: readFileSync(logFile, 'utf8') };
    };
    const leftFile = path.join(dir, 'left');
    const { name, log } = await run(
      1,
      `grep '^0::' /proc/self/cgroup; for i in 1 2 3 4; do setsid sleep 600 & echo $! >> ${leftFile}; done`,
      { cpus: 1, memoryGiB: 1 },
    );
    assert.match(log, new RegExp(`^0::${pathOf(m, path.join(own, 'runyard', name))}$`, 'm'));
    assert.equal(existsSync(path.join(own, 'runyard', name)), false, "the task's group is removed");
    const left = readFileSync(leftFile, 'utf8').trim().split('\n').map(Number);
    assert.equal(left.length, 4);
    assert.deepEqual(
      left.filter((p) => !isGone(p)),
      [],
      'what the task left running (setsid) is killed',
    );
    assert.equal(groupOf(spawner.pid!), pathOf(m, path.join(own, 'runyard-dispatch')));
    const unlimited = await run(2, "grep '^0::' /proc/self/cgroup");
    assert.match(unlimited.log, new RegExp(`^0::${pathOf(m, path.join(own, 'runyard', 'unlimited'))}$`, 'm'));
    assert.deepEqual(childGroups(path.join(own, 'runyard')), ['unlimited'], 'nothing else left in the tasks folder');
    rmSync(dir, { recursive: true });
  });

  it('unlimited(), placeDispatcher, exists and removeEmpty on the real mount; the events read zeros without memory and pids', async () => {
    const { own, pid } = server();
    const cgroups = detectV2(hostOf(pid), 2, STAND_IN);
    const base = path.join(own, 'runyard');
    // The tasks' folder hands a controller down, so it holds no process itself: hence unlimited/, a leaf in it.
    assert.throws(() => moveInto(base, startSleep()), { code: 'EBUSY' });
    const files = cgroups.unlimited();
    assert.deepEqual(files, [path.join(base, 'unlimited', 'cgroup.procs')]);
    const task = startSleep();
    writeFileSync(files[0], String(task));
    assert.equal(groupOf(task), pathOf(m, path.join(base, 'unlimited')));
    // Made once: asked again, the same group.
    assert.deepEqual(cgroups.unlimited(), files);

    const dispatcher = startSleep();
    assert.equal(cgroups.placeDispatcher({ process: dispatcher }), null);
    assert.equal(groupOf(dispatcher), pathOf(m, path.join(own, 'runyard-dispatch')));
    assert.deepEqual(procsOf(path.join(own, 'runyard-dispatch')), [dispatcher]);
    assert.equal(cgroups.placeDispatcher({ thread: dispatcher }), 'cgroup v2 moves whole processes only');
    const gone = startSleep();
    process.kill(gone, 'SIGKILL');
    // Reaped, not only a zombie (the kernel takes a zombie's pid and moves nothing).
    while (readProcStat(gone)) await sleep(5);
    assert.match(
      cgroups.placeDispatcher({ process: gone }) ?? '',
      new RegExp(`^it could not be moved into ${path.join(own, 'runyard-dispatch')} \\(ESRCH: no such process, write\\)$`),
    );

    // Two groups of a prefix, one holding a process: removeEmpty removes the other (the kernel refuses the busy one).
    await cgroups.create('net-1', { cpus: 1, memoryGiB: 0.25 });
    const [busy] = await cgroups.create('net-2', { cpus: 1, memoryGiB: 0.25 });
    const member = startSleep();
    writeFileSync(busy, String(member));
    await cgroups.create('other-1', { cpus: 1, memoryGiB: 0.25 });
    cgroups.removeEmpty('net-');
    assert.equal(cgroups.exists('net-1'), false);
    assert.equal(cgroups.exists('net-2'), true);
    assert.equal(cgroups.exists('other-1'), true, 'another prefix stays');
    assert.deepEqual(cgroups.events('net-2'), { oomKills: 0, forksRefused: 0 });
    assert.equal(cgroups.oomKilled('net-2'), false);
    await cgroups.remove('net-2');
    assert.equal(cgroups.exists('net-2'), false);
    assert.ok(isGone(member), 'its process was killed');
    await cgroups.remove('other-1');
    await cgroups.remove('net-1');
    assert.deepEqual(childGroups(base), ['unlimited']);
  });
});
