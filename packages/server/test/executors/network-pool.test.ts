// The pool of ready outbound namespaces (executors/sandbox/network-pool.ts): a local task joins one
// (about 1 ms) rather than making its own (about 13 ms); one task at a time, and the next task
// finds nothing of the one before; its slirp4netns has limits of its own; a join never lands in a namespace other than the holder's; a running task keeps its
// network when the server lets go of the pool (a restart).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskSpec } from '../../src/executors/executor.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { isRunning, readProcStat } from '../../src/executors/proc.js';
import { joinLauncher, NetworkPool } from '../../src/executors/sandbox/network-pool.js';
import { NETWORK_RESOURCES, TaskLimits } from '../../src/executors/sandbox/limits.js';
import { createSandbox, type Sandbox } from '../../src/executors/sandbox/sandbox.js';
import { findOutboundTools, type OutboundTools } from '../../src/executors/sandbox/task-network.js';

const PATH = '/usr/local/bin:/usr/bin:/bin';
const tools = findOutboundTools(PATH);
const skip = typeof tools === 'string' ? tools : process.getuid?.() !== 0 ? 'the pool is tested as root here (/dev/net/tun)' : false;

/** The pooled sandbox of a server (its FIFOs' folder given), and the executor that runs tasks in it. */
function server(): { sandbox: Sandbox; executor: LocalExecutor; root: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'runyard-pool-'));
  const limits = new TaskLimits();
  const sandbox = createSandbox({ sandbox: 'bwrap', taskNetwork: 'outbound', taskPath: PATH }, undefined, path.join(root, 'net'), limits);
  return { sandbox, executor: new LocalExecutor(50, sandbox, limits), root };
}

let runs = 0;
async function run(
  executor: LocalExecutor,
  root: string,
  script: string,
  options: { resources?: TaskSpec['resources']; whileRunning?: (pid: number) => void } = {},
) {
  const dir = path.join(root, `task-${++runs}`);
  mkdirSync(path.join(dir, 'work'), { recursive: true });
  const task: TaskSpec = {
    argv: ['bash', '-c', script],
    env: { PATH },
    cwd: path.join(dir, 'work'),
    logFile: path.join(dir, 'log.txt'),
    ...(options.resources && { resources: options.resources }),
  };
  const control = { dir: path.join(dir, 'control'), attempt: 1 };
  const launched = await executor.launch(task, control);
  const watch = options.whileRunning && setInterval(() => options.whileRunning!(launched.pid), 50);
  const end = await executor.wait(control, launched).finally(() => clearInterval(watch));
  await executor.cleanup(control);
  return { end, log: readFileSync(task.logFile, 'utf8') };
}

/** Processes whose command line has every one of these words. */
function processesWith(...words: string[]): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return words.every((w) => argv.some((a) => a.includes(w)));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The holders of a server's pool members (their FIFOs are in root/net), and the slirp4netns of each. */
const holdersOf = (root: string) => processesWith('runyard-netns', path.join(root, 'net', 'runyard-net-'));
const slirpOf = (holder: number) => processesWith(`/proc/${holder}/ns/net`)[0] ?? 0;
const poolSlirps = (root: string) => holdersOf(root).map(slirpOf).filter(Boolean);

function cgroupsOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return '';
  }
}

const NS = 'readlink /proc/self/ns/net';

describe('the pool of task networks', { timeout: 180_000, skip }, () => {
  const pools: NetworkPool[] = [];
  after(() => pools.forEach((p) => p.close()));

  it('a task joins a ready namespace: lo and tap0, slirp4netns as resolver; the next task joins the same one', async () => {
    const { executor, root } = server();
    const first = await run(
      executor,
      root,
      `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort; grep nameserver /etc/resolv.conf; ${NS}`,
    );
    assert.equal(first.end.state === 'exited' && first.end.exitCode, 0, first.log);
    const [lo, tap, resolver, ns] = first.log.trim().split('\n');
    assert.deepEqual([lo, tap, resolver], ['lo', 'tap0', 'nameserver 10.0.2.3']);
    assert.match(ns, /^net:\[\d+\]$/);
    const second = await run(executor, root, NS);
    assert.equal(second.log.trim(), ns, 'the second task joined the namespace the first one had');
    // A namespace of its own (not the host's).
    assert.notEqual(ns, spawnSync('readlink', ['/proc/self/ns/net'], { encoding: 'utf8' }).stdout.trim());
  });

  it('the next task finds nothing of the one before: its listener and its background processes are gone', async () => {
    const { executor, root } = server();
    // The first task leaves a listener behind in the background, detached from its group, and ends.
    const first = await run(
      executor,
      root,
      `setsid python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 8765)); s.listen(); time.sleep(60)' & sleep 0.5; ${NS}`,
    );
    const ns = first.log.trim().split('\n').pop();
    const second = await run(
      executor,
      root,
      `${NS}; python3 -c 'import socket; s=socket.socket(); s.settimeout(5); print("connect", s.connect_ex(("127.0.0.1", 8765)))'`,
    );
    const [ns2, connect] = second.log.trim().split('\n');
    assert.equal(ns2, ns, 'the same namespace');
    assert.equal(connect, 'connect 111', 'connection refused: the listener of the task before is gone');
  });

  it("its slirp4netns runs in a group of its own, with limits, outside the task's; the group goes with the member", async (t) => {
    const limits = new TaskLimits();
    const { executor, root } = server();
    let slirpGroups = '';
    let wrapper = '';
    const { end } = await run(executor, root, 'sleep 1', {
      resources: { cpus: 1, memoryGiB: 1 },
      whileRunning: (pid) => {
        const [slirp] = poolSlirps(root);
        if (slirp && !wrapper) [slirpGroups, wrapper] = [cgroupsOf(slirp), cgroupsOf(pid)];
      },
    });
    assert.equal(end.state === 'exited' && end.exitCode, 0);
    if (!wrapper.includes('/runyard/')) return t.skip('no cgroups for tasks here');
    assert.notEqual(slirpGroups, wrapper);
    const memory = /^\d+:(memory)?:(\/.*\/runyard\/net-[^/\n]+)$/m.exec(slirpGroups);
    assert.ok(memory, `the slirp4netns's memory group is one of its own:\n${slirpGroups}`);
    const v1 = `/sys/fs/cgroup/memory${memory[2]}/memory.limit_in_bytes`;
    const limit = existsSync(v1) ? readFileSync(v1, 'utf8') : readFileSync(`/sys/fs/cgroup${memory[2]}/memory.max`, 'utf8');
    assert.equal(Number(limit), NETWORK_RESOURCES.memoryGiB * 2 ** 30);

    // A member ended (here: given back as not intact) takes its group with it.
    const pool = new NetworkPool(tools as OutboundTools, () => mkdtempSync(path.join(os.tmpdir(), 'runyard-pool-')), PATH, limits);
    const member = await pool.acquire();
    const group = /^\d+:(memory)?:(\/.*\/runyard\/net-[^/\n]+)$/m.exec(cgroupsOf(member.slirp))![2];
    const dir = existsSync(`/sys/fs/cgroup/memory${group}`) ? `/sys/fs/cgroup/memory${group}` : `/sys/fs/cgroup${group}`;
    assert.ok(existsSync(dir));
    pool.release(member, false);
    for (let i = 0; i < 100 && existsSync(dir); i++) await sleep(50);
    assert.ok(!existsSync(dir), `${dir} was removed`);
    assert.ok(!isRunning(member.slirp, member.slirpStart));
  });

  it("a join lands only in the holder's namespace: another process at its pid, or its pid with another start time, is refused", async () => {
    const pool = new NetworkPool(tools as OutboundTools, () => mkdtempSync(path.join(os.tmpdir(), 'runyard-pool-')), PATH);
    pools.push(pool);
    const member = await pool.acquire();
    const impostor = spawn('unshare', ['--net', 'sleep', '60'], { stdio: 'ignore' });
    await sleep(200);
    const impostorStart = readProcStat(impostor.pid!)!.startTime;
    const join = (m: { holder: number; holderStart: string; exitFifo: string }) => {
      const argv = [...joinLauncher((tools as OutboundTools).nsenter, m, true), '/bin/sh', '-c', `${NS}`];
      return spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', env: { PATH } });
    };
    try {
      const good = join(member);
      assert.equal(good.status, 0, good.stderr);
      assert.match(good.stdout, /^net:\[\d+\]\n$/);
      for (const wrong of [
        { ...member, holderStart: String(Number(member.holderStart) + 1) },
        { ...member, holder: impostor.pid!, holderStart: member.holderStart },
        { ...member, holder: impostor.pid!, holderStart: impostorStart, exitFifo: path.join(os.tmpdir(), 'no-such-fifo') },
      ]) {
        const refused = join(wrong);
        assert.equal(refused.status, 125, `joined with ${JSON.stringify(wrong)}: ${refused.stdout}`);
        assert.match(refused.stderr, /the network namespace made for this task had gone: it was not started/);
        assert.equal(refused.stdout, '');
      }
    } finally {
      impostor.kill('SIGKILL');
      pool.release(member, true);
    }
  });

  it('a task keeps its network when the server lets go of the pool (a restart); the namespace ends with the task', async () => {
    const { executor, root } = server();
    let slirp = 0;
    const task = run(executor, root, 'while [ ! -e go ]; do sleep 0.1; done; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort', {
      whileRunning: () => (slirp ||= poolSlirps(root)[0] ?? 0),
    });
    for (let i = 0; i < 200 && !slirp; i++) await sleep(50);
    assert.ok(slirp, 'a pool member serves the task');
    const start = readProcStat(slirp)!.startTime;
    // What a server that goes does to its pool: its holders end (here killed).
    const holders = holdersOf(root);
    assert.equal(holders.length, 1);
    process.kill(holders[0], 'SIGKILL');
    for (let i = 0; i < 100 && holdersOf(root).length; i++) await sleep(50);
    assert.deepEqual(holdersOf(root), []);
    assert.ok(isRunning(slirp, start), "the running task's slirp4netns stays");
    writeFileSync(path.join(root, `task-${runs}`, 'work', 'go'), '');
    const { end, log } = await task;
    assert.equal(end.state === 'exited' && end.exitCode, 0, log);
    assert.equal(log, 'lo\ntap0\n');
    for (let i = 0; i < 100 && isRunning(slirp, start); i++) await sleep(50);
    assert.ok(!isRunning(slirp, start), 'slirp4netns ended with the task');
  });
});
