import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { isRunning, readProcStat } from '../proc.js';
import { NETWORK_GROUP_PREFIX } from './limits.js';
import {
  hostAddressWords,
  NETWORK_HELPER_SCRIPT,
  NETWORK_LAUNCH_SCRIPT,
  TASK_DNS,
  TASK_RULES,
  type OutboundTools,
} from './task-network.js';

/*
 * A pool of ready outbound namespaces for this host's tasks. Making a task's namespace (unshare,
 * the filter, slirp4netns until it is connected) costs about 13 ms before the task can start;
 * joining one that is ready (nsenter) about 1 ms. Each namespace serves one task at a time and is
 * used again by the next: what a task leaves in a network namespace ends with its processes (its
 * sandbox's PID namespace is gone when its end is reported), and the task has no capability over
 * the namespace's addresses, routes or filter.
 *
 * A member is a holder process (a shell in the namespace, which loaded the filter) and its
 * slirp4netns, started detached from the server with a pipe on the holder's stdin: when the
 * server goes, the holder ends. slirp4netns ends when the last writer of the member's exit FIFO
 * closes it: the holder, and each task that joined, which holds it open as bwrap and the task did
 * before, so a running task keeps its network through a restart of the server.
 */

/** How many ready namespaces are kept, how long an unused one is kept, and how old one may become (it has the host's addresses of its start in its filter). */
export interface PoolLimits {
  maxIdle: number;
  idleMs: number;
  maxAgeMs: number;
  /** How long the making of one may take (the host may be busy). */
  readyMs: number;
}

export const POOL_LIMITS: PoolLimits = { maxIdle: 8, idleMs: 5 * 60_000, maxAgeMs: 10 * 60_000, readyMs: 30_000 };

/**
 * The holder: in the new namespace (root there: the namespace is its own), tells the helper it
 * exists, loads the filter, waits until slirp4netns connected it, reports "ready <slirp4netns's
 * pid>" and then waits until the server lets go (its stdin closes). A filter that cannot be loaded,
 * or a namespace that was not connected, ends it with the reason.
 */
const POOL_NAMESPACE_SCRIPT = [
  'printf x >"$1"',
  'if ! printf "$4\\n  }\\n}\\n" | "$3" -f - >&2; then',
  "  printf 'the network filter could not be loaded (nftables)\\n' >&2",
  '  exit 125',
  'fi',
  'x=',
  'read -r x <"$2"',
  'if [ -z "$x" ]; then printf \'slirp4netns did not connect the namespace\\n\' >&2; exit 1; fi',
  'printf "ready %s\\n" "$5"',
  'read -r x',
].join('\n');

/**
 * After nsenter, in the namespace it joined: checks that it is the holder's (the holder, by pid and
 * start time, before and after the comparison: a pid reused meanwhile by another process fails
 * it), then execs bwrap with the exit FIFO on fd 7 (it keeps slirp4netns up while the task runs)
 * and the namespace's resolv.conf on fd 8 (--ro-bind-data), as the per-task launcher does.
 */
export const POOL_JOIN_SCRIPT = [
  'p=$1 t=$2 x=$3',
  'shift 3',
  'holder() { s=; read -r s 2>/dev/null <"/proc/$p/stat"; s=${s##*) }; set -f; set -- $s; [ "${20:-}" = "$t" ]; }',
  'if ! holder || ! [ /proc/self/ns/net -ef "/proc/$p/ns/net" ] || ! holder || ! [ -p "$x" ]; then',
  "  printf 'Runyard: the network namespace made for this task had gone: it was not started.\\n' >&2",
  '  exit 125',
  'fi',
  `exec "$@" 7<>"$x" 8<<EOF\nnameserver ${TASK_DNS}\nEOF`,
].join('\n');

/** Where a member's slirp4netns gets limits of its own (TaskLimits: placeNetwork, removeNetwork). */
export interface NetworkGroups {
  placeNetwork(name: string, pid: number): Promise<void>;
  removeNetwork(name: string): Promise<void>;
}

/** A ready namespace: its holder and slirp4netns (by pid and start time), its exit FIFO and its slirp4netns's group. */
export interface PoolMember {
  readonly group: string;
  readonly holder: number;
  readonly holderStart: string;
  readonly slirp: number;
  readonly slirpStart: string;
  readonly exitFifo: string;
  readonly made: number;
  readonly child: ChildProcess;
}

/** The argv before bwrap's (its options including OUTBOUND_BWRAP_OPTIONS) that runs a task in the member's namespace. */
export function joinLauncher(nsenter: string, member: Pick<PoolMember, 'holder' | 'holderStart' | 'exitFifo'>, root: boolean): string[] {
  const ns = (name: string) => `--${name}=/proc/${member.holder}/ns/${name}`;
  // A server that is not root owns the namespace through the user namespace the holder made: joined first.
  return [
    nsenter,
    ...(root ? [] : [ns('user'), '--preserve-credentials']),
    ns('net'),
    '--',
    '/bin/sh',
    '-c',
    POOL_JOIN_SCRIPT,
    'runyard-net-join',
    String(member.holder),
    member.holderStart,
    member.exitFifo,
  ];
}

/** The argv that makes a member: the per-task launcher's, with the holder in place of the task's shell. */
export function memberArgv(tools: OutboundTools, dir: string, hostAddresses: string): string[] {
  return [
    '/bin/sh',
    '-c',
    NETWORK_LAUNCH_SCRIPT,
    'runyard-net-pool',
    NETWORK_HELPER_SCRIPT,
    dir,
    tools.unshare,
    tools.mkfifo,
    POOL_NAMESPACE_SCRIPT,
    tools.slirp4netns,
    tools.nft,
    tools.ip,
    TASK_RULES,
    hostAddresses,
    '',
    'keep',
  ];
}

export class NetworkPool {
  private readonly idle: { member: PoolMember; timer: NodeJS.Timeout }[] = [];

  /** dir: the server's folder for the FIFOs (no task sees it); taskPath: the PATH of the launcher's shell. */
  constructor(
    private readonly tools: OutboundTools,
    private readonly dir: () => string,
    private readonly taskPath: string,
    private readonly groups: NetworkGroups | null = null,
    private readonly limits: PoolLimits = POOL_LIMITS,
  ) {}

  /** A ready namespace for one task: one kept from an earlier task, else a new one. */
  async acquire(): Promise<PoolMember> {
    for (let kept = this.idle.pop(); kept; kept = this.idle.pop()) {
      clearTimeout(kept.timer);
      if (this.usable(kept.member)) return kept.member;
      this.end(kept.member);
    }
    const member = await this.start();
    try {
      await this.groups?.placeNetwork(member.group, member.slirp);
    } catch (e) {
      this.end(member);
      throw new Error(`the task network's slirp4netns could not be given its limits: ${(e as Error).message}`);
    }
    return member;
  }

  /** The task that had the member ended (intact: its end was seen, so nothing of it is left): kept for the next, or ended. */
  release(member: PoolMember, intact: boolean): void {
    const fresh = Date.now() - member.made < this.limits.maxAgeMs;
    if (!intact || !fresh || this.idle.length >= this.limits.maxIdle || !this.usable(member)) return this.end(member);
    const timer = setTimeout(() => {
      const at = this.idle.findIndex((kept) => kept.member === member);
      if (at >= 0) this.end(this.idle.splice(at, 1)[0].member);
    }, this.limits.idleMs);
    timer.unref();
    this.idle.push({ member, timer });
  }

  /** Ends the unused members (a task that runs keeps its own). */
  close(): void {
    for (const kept of this.idle.splice(0)) {
      clearTimeout(kept.timer);
      this.end(kept.member);
    }
  }

  /** How many ready members wait for a task. */
  get size(): number {
    return this.idle.length;
  }

  private usable(member: PoolMember): boolean {
    return isRunning(member.holder, member.holderStart) && isRunning(member.slirp, member.slirpStart);
  }

  /** Lets go of the holder (its stdin closes, it exits, and slirp4netns with it once no task holds the FIFO). */
  private end(member: PoolMember): void {
    member.child.stdin?.destroy();
    rmSync(member.exitFifo, { force: true });
    this.groups?.removeNetwork(member.group).catch(() => undefined);
  }

  /** Starts a member and waits until it is ready. */
  private start(): Promise<PoolMember> {
    const dir = this.dir();
    const [program, ...args] = memberArgv(this.tools, dir, hostAddressWords());
    // Detached: a terminal's signals (^C to the server) never reach it; its stdin, the server's pipe, ends it.
    const child = spawn(program, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: { PATH: this.taskPath } });
    return new Promise<PoolMember>((resolve, reject) => {
      let said = '';
      let done = false;
      const fail = (why: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (child.pid !== undefined) killGroup(child.pid);
        reject(new Error(`the task network could not be set up: ${why}`));
      };
      const timer = setTimeout(() => fail(`not ready after ${this.limits.readyMs / 1000} s`), this.limits.readyMs);
      child.on('error', (e) => fail(e.message));
      child.once('exit', (code) => fail(said.trim() || `its launcher exited with ${code}`));
      child.stderr?.on('data', (chunk: Buffer) => (said = (said + chunk.toString()).slice(-2000)));
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const ready = /^ready (\d+)\n/m.exec(out);
        if (!ready || done || child.pid === undefined) return;
        done = true;
        clearTimeout(timer);
        const holder = readProcStat(child.pid);
        const slirp = readProcStat(Number(ready[1]));
        if (!holder || !slirp) {
          killGroup(child.pid);
          return reject(new Error('the task network could not be set up: its processes vanished'));
        }
        // Nothing more is read; the pipe on its stdin stays, and nothing of it keeps the server up.
        child.stdout?.destroy();
        child.stderr?.destroy();
        (child.stdin as unknown as { unref?(): void } | null)?.unref?.();
        child.unref();
        resolve({
          group: `${NETWORK_GROUP_PREFIX}${child.pid}-${holder.startTime}`,
          holder: child.pid,
          holderStart: holder.startTime,
          slirp: slirp.pid,
          slirpStart: slirp.startTime,
          exitFifo: path.join(dir, `runyard-net-${child.pid}.x`),
          made: Date.now(),
          child,
        });
      });
    });
  }
}

/** The member's session (holder, helper, slirp4netns): it was never handed to a task. */
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}
