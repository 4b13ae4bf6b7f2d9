import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a task is given of the machine: the kernel holds it to these. */
export interface TaskResources {
  cpus: number;
  memoryGiB: number;
  /** Its process limit (a queue's pidsLimit); default pidsLimitOf(cpus). */
  pids?: number;
}

/** Processes (threads count: the kernel's pids controller counts tasks) a task may have for each of its CPUs. */
export const PIDS_PER_CPU = 256;
/** The fewest processes a task may have, however few its CPUs: a JVM alone starts dozens of threads. */
export const MIN_PIDS = 512;

/** The process limit of a task of `cpus` CPUs (its instance type's vCPUs), unless its queue sets one: a fork storm stops there. */
export function pidsLimitOf(cpus: number, pids?: number): number {
  return pids ?? Math.max(MIN_PIDS, Math.ceil(cpus) * PIDS_PER_CPU);
}

/** What the kernel counted against a task's limits while it ran. */
export interface LimitEvents {
  /** Processes killed for passing the memory limit. */
  oomKills: number;
  /** Forks and clones refused at the process limit. */
  forksRefused: number;
  /** That limit, read from the group when forks were refused. */
  pidsLimit?: number;
}

/** RUNYARD_CGROUPS: auto (v2 where the unified hierarchy has the controllers, else v1) or none. */
export type CgroupMode = 'auto' | 'none';

/** The CFS period of a task's CPU quota: quota = cpus x period. */
export const CPU_PERIOD_US = 100_000;

/** The folder, under the server's own cgroup of each controller, that holds the groups of its tasks. */
export const TASKS_FOLDER = 'runyard';

/** On v2, beside the tasks' folder: the leaf a server moves itself into when its own cgroup holds it (prepareV2). */
const SERVER_LEAF = 'server';

/** In the tasks' folder: the group of the tasks that ask for no resources (no limits, the tasks' weight). */
export const UNLIMITED_GROUP = 'unlimited';

/**
 * Beside the tasks' folder, in the cpu hierarchy: the group of the server's own part of the job path,
 * the thread that launches and follows the tasks (the scheduler's) and the spawner. Weighted as
 * the tasks' folder: in the server's own group they would be two of its many threads and clients'
 * processes, and a busy API would keep them from starting the next tasks.
 */
export const DISPATCH_FOLDER = 'runyard-dispatch';

/** The controllers a v2 server hands down to its tasks' folder: the required ones must be in its cgroup, the optional ones are where it has them. */
export interface V2Controllers {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}

/**
 * A server's: memory and cpu (every task's limits), and pids where the server's group has it (a
 * task's process limit; its absence only loses that limit). Without memory and cpu, no v2: v1, or none.
 */
export const V2_CONTROLLERS: V2Controllers = { required: ['memory', 'cpu'], optional: ['pids'] };

/** What placeDispatcher moves: a process (the spawner), or one thread of this server (the scheduler's; v1 only). */
export type DispatchMember = { process: number } | { thread: number };

const NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** What the kernel tells this process about its cgroups (files of /proc/self), as text, so a test can give a fake host. */
export interface HostView {
  mountinfo: string;
  /** /proc/self/cgroup */
  selfCgroup: string;
  pid: number;
}

export function readHostView(): HostView {
  return {
    mountinfo: readFileSync('/proc/self/mountinfo', 'utf8'),
    selfCgroup: readFileSync('/proc/self/cgroup', 'utf8'),
    pid: process.pid,
  };
}

interface Mount {
  root: string;
  point: string;
  fstype: string;
  superOptions: string[];
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (dash < 6 || fields.length < dash + 4) continue;
    mounts.push({
      root: unescape(fields[3]),
      point: unescape(fields[4]),
      fstype: fields[dash + 1],
      superOptions: fields[dash + 3].split(','),
    });
  }
  return mounts;
}

/** Lines of /proc/self/cgroup: hierarchy id, controllers (empty for v2) and the process's path in that hierarchy. */
export function parseSelfCgroup(text: string): { controllers: string[]; path: string }[] {
  return text
    .split('\n')
    .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ controllers: m[1] ? m[1].split(',') : [], path: m[2] }));
}

/** The directory of a cgroup path inside a mounted hierarchy, or null when the mount does not show it (another namespace). */
function dirOf(mount: Mount, cgroupPath: string): string | null {
  const rel = path.posix.relative(mount.root, cgroupPath);
  if (rel.startsWith('..') || path.posix.isAbsolute(rel)) return null;
  return path.join(mount.point, rel);
}

function words(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** "key value" lines (memory.events, memory.oom_control): the value of key, or null. */
function counter(file: string, key: string): number | null {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const m = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

/** The events of a group's pids controller (its dir): forks refused, and the limit they met when any were. */
function pidsEvents(dir: string): Pick<LimitEvents, 'forksRefused' | 'pidsLimit'> {
  const forksRefused = counter(path.join(dir, 'pids.events'), 'max') ?? 0;
  if (!forksRefused) return { forksRefused };
  let limit = NaN;
  try {
    limit = Number(readFileSync(path.join(dir, 'pids.max'), 'utf8').trim());
  } catch {
    // The count is kept without it: the message then names the limit the task was given by its CPUs.
  }
  return { forksRefused, ...(Number.isInteger(limit) && { pidsLimit: limit }) };
}

/** A task's group in one hierarchy; the name is checked, so it never leaves the base. */
function groupDir(base: string, name: string): string {
  if (!NAME.test(name)) throw new Error(`Not a cgroup name: ${JSON.stringify(name)}`);
  return path.join(base, name);
}

function bytesOf(memoryGiB: number): number {
  return Math.round(memoryGiB * 1024 ** 3);
}

function checkResources({ cpus, memoryGiB }: TaskResources): void {
  if (!(cpus > 0) || !(memoryGiB > 0)) throw new Error(`Not resources a task can be limited to: ${cpus} CPUs, ${memoryGiB} GiB.`);
}

/**
 * The cgroups of this server's tasks: one group per task (per attempt), named deterministically
 * so a restarted server finds the group of a task it reattaches to, under `runyard/` in the
 * server's own cgroup of each hierarchy. Created with its limits before the task starts (the
 * task's wrapper joins it before running anything of the task, so children inherit it), read
 * after the end (was a process killed for passing the memory limit?), then removed.
 */
export interface Cgroups {
  readonly version: 1 | 2 | null;
  /** Why limits are not enforced on this host; null when they are. */
  readonly unavailable: string | null;
  /**
   * Creates the task's group with its limits; returns the files the task's wrapper writes its pid into.
   * (Made at once, like the limits: a group costs the kernel 0.03 ms on an idle host and up to about 1 ms
   * on a loaded one, less than a round trip through the thread pool, whose queue made it 3.4 ms on average
   * on the scheduler's path from claim to start.)
   */
  create(name: string, resources: TaskResources): Promise<string[]>;
  /** Whether the kernel killed a process of the group for passing its memory limit (killedBySigkill: the task's end, for hosts that do not count OOM kills). */
  oomKilled(name: string, killedBySigkill: boolean): boolean;
  /** What the kernel counted against the group's limits (zeros where it keeps no count). */
  events(name: string): LimitEvents;
  /**
   * Kills what is left in the group and removes it (retrying while the kernel still counts leaving
   * processes). The kill and the first try are made before it returns.
   */
  remove(name: string): Promise<void>;
  /** Whether the group exists (a task of it may still have processes there). */
  exists(name: string): boolean;
  /** Removes the groups whose name starts so that hold no process (and no child group); the others stay. */
  removeEmpty(prefix: string): void;
  /** The files a task that asks for no resources joins (UNLIMITED_GROUP, made when missing), so it leaves the spawner's group. */
  unlimited(): string[];
  /** Moves a process or a thread into DISPATCH_FOLDER (made and weighted when missing). Null when moved, else why not. */
  placeDispatcher(member: DispatchMember): string | null;
}

/** Per-task groups in one or more hierarchies: v1 has a directory per controller, v2 one. */
abstract class TaskGroups implements Cgroups {
  abstract readonly version: 1 | 2;
  readonly unavailable = null;

  /** bases: `<own cgroup>/runyard` of each hierarchy, which exist; dispatchWeight: the weight of DISPATCH_FOLDER. */
  constructor(
    protected readonly bases: string[],
    protected readonly dispatchWeight: number,
  ) {}

  protected dirs(name: string): string[] {
    return this.bases.map((base) => groupDir(base, name));
  }

  removeEmpty(prefix: string): void {
    for (const base of this.bases) {
      let names: string[] = [];
      try {
        names = readdirSync(base).filter((name) => name.startsWith(prefix));
      } catch {
        continue;
      }
      for (const name of names) {
        try {
          // The kernel refuses (EBUSY) while it holds a process.
          rmdirSync(path.join(base, name));
        } catch {
          // In use, or gone.
        }
      }
    }
  }

  /** Writes the group's limits: a few short writes, done at once (each through the thread pool would cost a round trip). */
  protected abstract limit(name: string, resources: TaskResources): void;

  async create(name: string, resources: TaskResources): Promise<string[]> {
    checkResources(resources);
    const dirs = this.dirs(name);
    for (const dir of dirs) mkdirSync(dir, { recursive: true });
    this.limit(name, resources);
    return dirs.map((dir) => path.join(dir, 'cgroup.procs'));
  }

  abstract oomKilled(name: string, killedBySigkill: boolean): boolean;
  abstract events(name: string): LimitEvents;

  exists(name: string): boolean {
    return this.dirs(name).every((dir) => existsSync(dir));
  }

  /** The group's directories (one per hierarchy) go at once. */
  async remove(name: string): Promise<void> {
    await Promise.all(this.dirs(name).map((dir) => removeGroupDir(dir)));
  }

  abstract unlimited(): string[];
  abstract placeDispatcher(member: DispatchMember): string | null;
}

/** Moves `id` into `dir` through its `membersFile` (cgroup.procs, or v1's tasks for a thread), weighing the group first. */
function placeIn(dir: string, weightFile: string, weight: number, membersFile: string, id: number): string | null {
  try {
    mkdirSync(dir, { recursive: true });
    weighFolder(path.join(dir, weightFile), weight);
    writeFileSync(path.join(dir, membersFile), String(id));
    return null;
  } catch (e) {
    return `it could not be moved into ${dir} (${messageOf(e)})`;
  }
}

/** The unlimited group's procs file in a tasks' folder (made when missing), or none when it cannot be made. */
function unlimitedProcs(base: string): string[] {
  const dir = path.join(base, UNLIMITED_GROUP);
  try {
    mkdirSync(dir, { recursive: true });
    return [path.join(dir, 'cgroup.procs')];
  } catch {
    return [];
  }
}

/** Kills what is left in a group's directory and removes it (retrying while the kernel still counts leaving processes). */
async function removeGroupDir(dir: string): Promise<void> {
  for (let tries = 0; existsSync(dir); tries++) {
    // Members are in this process's PID namespace; none can be a reused pid while it is a member.
    for (const pid of words(path.join(dir, 'cgroup.procs'))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    try {
      rmdirSync(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') break;
      if (code !== 'EBUSY' || tries >= 100) throw e;
      // The kernel is still taking the last members out (usually a millisecond or two): look
      // again soon, then every 100 ms (about 10 s in all).
      await sleep(Math.min(100, 2 ** tries));
    }
  }
}

/** v1: a directory per controller (memory, cpu; one when they share a hierarchy). */
export class CgroupsV1 extends TaskGroups {
  readonly version = 1;

  constructor(
    private readonly memoryBase: string,
    private readonly cpuBase: string,
    dispatchWeight = tasksFolderWeight(1, 1),
    /** The pids hierarchy's tasks folder, where it is mounted (else no process limit). */
    private readonly pidsBase: string | null = null,
  ) {
    super([...new Set([memoryBase, cpuBase, ...(pidsBase ? [pidsBase] : [])])], dispatchWeight);
  }

  /** Only the cpu hierarchy: the dispatcher is moved in that one alone, so the memory group is the server's still. */
  unlimited(): string[] {
    return unlimitedProcs(this.cpuBase);
  }

  /** v1 moves one thread through the group's tasks file, a process through cgroup.procs. */
  placeDispatcher(member: DispatchMember): string | null {
    const dir = path.join(path.dirname(this.cpuBase), DISPATCH_FOLDER);
    if ('thread' in member) return placeIn(dir, 'cpu.shares', this.dispatchWeight, 'tasks', member.thread);
    return placeIn(dir, 'cpu.shares', this.dispatchWeight, 'cgroup.procs', member.process);
  }

  protected limit(name: string, { cpus, memoryGiB, pids }: TaskResources): void {
    const memory = groupDir(this.memoryBase, name);
    const cpu = groupDir(this.cpuBase, name);
    const bytes = String(bytesOf(memoryGiB));
    // The memory limit first: memory+swap may never be below it. Memory+swap at the same value, so swap cannot hide overuse.
    writeFileSync(path.join(memory, 'memory.limit_in_bytes'), bytes);
    if (existsSync(path.join(memory, 'memory.memsw.limit_in_bytes')))
      writeFileSync(path.join(memory, 'memory.memsw.limit_in_bytes'), bytes);
    try {
      writeFileSync(path.join(memory, 'memory.swappiness'), '0');
    } catch {
      // Refused where the parent's hierarchy sets it; memsw (or no swap) holds the limit anyway.
    }
    writeFileSync(path.join(cpu, 'cpu.cfs_period_us'), String(CPU_PERIOD_US));
    writeFileSync(path.join(cpu, 'cpu.cfs_quota_us'), String(Math.max(1000, Math.round(cpus * CPU_PERIOD_US))));
    if (this.pidsBase) writeFileSync(path.join(groupDir(this.pidsBase, name), 'pids.max'), String(pidsLimitOf(cpus, pids)));
  }

  events(name: string): LimitEvents {
    return {
      oomKills: counter(path.join(groupDir(this.memoryBase, name), 'memory.oom_control'), 'oom_kill') ?? 0,
      ...(this.pidsBase ? pidsEvents(groupDir(this.pidsBase, name)) : { forksRefused: 0 }),
    };
  }

  oomKilled(name: string, killedBySigkill: boolean): boolean {
    const dir = groupDir(this.memoryBase, name);
    const kills = counter(path.join(dir, 'memory.oom_control'), 'oom_kill');
    // Kernels before 4.13 do not count kills: a SIGKILLed task of a group that hit its limit.
    if (kills === null) return killedBySigkill && Number(words(path.join(dir, 'memory.failcnt'))[0] ?? 0) > 0;
    return kills > 0;
  }
}

/** v2: one directory, in the unified hierarchy. */
export class CgroupsV2 extends TaskGroups {
  readonly version = 2;

  /** controllers: those handed down to the tasks' folder (prepareV2), whose limits each task's group gets. */
  constructor(
    base: string,
    dispatchWeight = tasksFolderWeight(2, 1),
    private readonly controllers: readonly string[] = V2_CONTROLLERS.required,
  ) {
    super([base], dispatchWeight);
  }

  unlimited(): string[] {
    return unlimitedProcs(this.bases[0]);
  }

  placeDispatcher(member: DispatchMember): string | null {
    // One thread alone would need a threaded subtree, which the memory controller does not allow.
    if ('thread' in member) return 'cgroup v2 moves whole processes only';
    return placeIn(
      path.join(path.dirname(this.bases[0]), DISPATCH_FOLDER),
      'cpu.weight',
      this.dispatchWeight,
      'cgroup.procs',
      member.process,
    );
  }

  protected limit(name: string, { cpus, memoryGiB, pids }: TaskResources): void {
    const [dir] = this.dirs(name);
    // The limits of the controllers handed down: memory and cpu always on a server (V2_CONTROLLERS requires
    // them); a test on a kernel whose unified hierarchy has neither hands down another in their stead.
    if (this.controllers.includes('memory')) {
      writeFileSync(path.join(dir, 'memory.max'), String(bytesOf(memoryGiB)));
      // No swap, so swap cannot hide overuse (the file is missing without swap accounting).
      if (existsSync(path.join(dir, 'memory.swap.max'))) writeFileSync(path.join(dir, 'memory.swap.max'), '0');
    }
    if (this.controllers.includes('cpu'))
      writeFileSync(path.join(dir, 'cpu.max'), `${Math.max(1000, Math.round(cpus * CPU_PERIOD_US))} ${CPU_PERIOD_US}`);
    // Where the pids controller is handed down (prepareV2 enables it when the server's group has it).
    if (existsSync(path.join(dir, 'pids.max'))) writeFileSync(path.join(dir, 'pids.max'), String(pidsLimitOf(cpus, pids)));
  }

  events(name: string): LimitEvents {
    const [dir] = this.dirs(name);
    return {
      oomKills: counter(path.join(dir, 'memory.events'), 'oom_kill') ?? 0,
      ...pidsEvents(dir),
    };
  }

  oomKilled(name: string): boolean {
    const [dir] = this.dirs(name);
    return (counter(path.join(dir, 'memory.events'), 'oom_kill') ?? 0) > 0;
  }
}

/** No limits: says why at every task. */
class NoCgroups implements Cgroups {
  readonly version = null;
  constructor(readonly unavailable: string) {}
  async create(): Promise<string[]> {
    throw new Error(this.unavailable);
  }
  oomKilled(): boolean {
    return false;
  }
  events(): LimitEvents {
    return { oomKills: 0, forksRefused: 0 };
  }
  async remove(): Promise<void> {}
  exists(): boolean {
    return false;
  }
  removeEmpty(): void {}
  unlimited(): string[] {
    return [];
  }
  placeDispatcher(): string | null {
    return this.unavailable;
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * v2: the server's cgroup must have the required controllers, and hand them down to `runyard/`.
 * A cgroup that holds processes cannot hand controllers down (except the root), so the server
 * first moves itself into a leaf of its own (`server/`), as a delegated manager does (systemd's
 * Delegate=yes). Returns the tasks' folder and the controllers handed down to it; throws why not.
 */
function prepareV2(selfDir: string, pid: number, asked: V2Controllers): { base: string; controllers: string[] } {
  // In its leaf already, beside its tasks' folder: moved there by an earlier detection in this process (each
  // TaskLimits detects on first use: the scheduler's executors', the managed Cromwell server's). Its group is
  // the one above, not one to hand the controllers down from again (that moved the server into server/server/).
  const ownDir =
    path.basename(selfDir) === SERVER_LEAF && existsSync(path.join(path.dirname(selfDir), TASKS_FOLDER)) ? path.dirname(selfDir) : selfDir;
  const available = words(path.join(ownDir, 'cgroup.controllers'));
  const missing = asked.required.filter((c) => !available.includes(c));
  if (missing.length) throw new Error(`the controllers ${missing.join(', ')} are not available in the server's cgroup ${ownDir}`);
  const controllers = [...asked.required, ...asked.optional.filter((c) => available.includes(c))];
  const enable = (dir: string) => {
    const enabled = words(path.join(dir, 'cgroup.subtree_control'));
    const wanted = controllers.filter((c) => !enabled.includes(c));
    if (wanted.length) writeFileSync(path.join(dir, 'cgroup.subtree_control'), wanted.map((c) => `+${c}`).join(' '));
  };
  try {
    enable(ownDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EBUSY') throw e;
    const leaf = path.join(ownDir, SERVER_LEAF);
    mkdirSync(leaf, { recursive: true });
    writeFileSync(path.join(leaf, 'cgroup.procs'), String(pid));
    try {
      enable(ownDir);
    } catch (again) {
      const others = words(path.join(ownDir, 'cgroup.procs'));
      throw new Error(
        `the server's cgroup ${ownDir} holds other processes${others.length ? ` (pids ${others.join(', ')})` : ''}, so it ` +
          `cannot hand the controllers down (${messageOf(again)}); run the server in a cgroup of its own with the ` +
          'controllers delegated (systemd: Delegate=yes)',
      );
    }
  }
  const base = path.join(ownDir, TASKS_FOLDER);
  mkdirSync(base, { recursive: true });
  enable(base);
  return { base, controllers };
}

/**
 * The CPU weight of the tasks' folder (and of the dispatch folder beside it, which starts and follows
 * them): as many processes' worth as CPUs its tasks may use together
 * (the local executor's capacity). Its tasks share this one weight where the server's other
 * processes and threads, and other sessions, have one each: left at the default, all the running
 * tasks together would get no more of a busy host than a single process (each task's own quota
 * still caps it at the CPUs it asked for). Best effort: a host that refuses keeps the default.
 */
function weighFolder(file: string, value: number): void {
  try {
    writeFileSync(file, String(value));
  } catch {
    // A hierarchy that does not let the server weigh its own folder: tasks share the default weight.
  }
}

/** cgroup v2's cpu.weight (default 100, 1..10000) and v1's cpu.shares (default 1024, 2..262144) for `cpus` CPUs' worth. */
export function tasksFolderWeight(version: 1 | 2, cpus: number): number {
  const [unit, min, max] = version === 2 ? [100, 1, 10_000] : [1024, 2, 262_144];
  return Math.min(max, Math.max(min, Math.round(unit * Math.max(1, cpus))));
}

/**
 * v2 for the server `host` tells of (its own cgroup, moved into `server/` when that one holds it),
 * with the `controllers` handed down to its tasks: a server's V2_CONTROLLERS; the real-mount test
 * gives one that this kernel's unified hierarchy has in their stead. Throws why not.
 */
export function detectV2(host: HostView, cpus: number, controllers: V2Controllers = V2_CONTROLLERS): CgroupsV2 {
  const own = parseSelfCgroup(host.selfCgroup).find((l) => l.controllers.length === 0 && l.path);
  const mount = parseMountinfo(host.mountinfo).find((m) => m.fstype === 'cgroup2');
  if (!own || !mount) throw new Error('no unified (v2) hierarchy');
  const ownDir = dirOf(mount, own.path);
  if (!ownDir) throw new Error(`the server's cgroup ${own.path} is not under the v2 mount ${mount.point}`);
  const prepared = prepareV2(ownDir, host.pid, controllers);
  const weight = tasksFolderWeight(2, cpus);
  weighFolder(path.join(prepared.base, 'cpu.weight'), weight);
  return new CgroupsV2(prepared.base, weight, prepared.controllers);
}

function detectV1(host: HostView, cpus: number): Cgroups {
  const mounts = parseMountinfo(host.mountinfo).filter((m) => m.fstype === 'cgroup');
  const lines = parseSelfCgroup(host.selfCgroup);
  const base = (controller: string): string => {
    const mount = mounts.find((m) => m.superOptions.includes(controller));
    const own = lines.find((l) => l.controllers.includes(controller));
    if (!mount || !own) throw new Error(`no v1 ${controller} controller is mounted`);
    const ownDir = dirOf(mount, own.path);
    if (!ownDir) throw new Error(`the server's ${controller} cgroup ${own.path} is not under its mount ${mount.point}`);
    const dir = path.join(ownDir, TASKS_FOLDER);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const memoryBase = base('memory');
  const cpuBase = base('cpu');
  let pidsBase: string | null = null;
  try {
    pidsBase = base('pids');
  } catch {
    // No pids hierarchy: tasks have no process limit here (their memory limit still bounds a fork storm).
  }
  const weight = tasksFolderWeight(1, cpus);
  weighFolder(path.join(cpuBase, 'cpu.shares'), weight);
  return new CgroupsV1(memoryBase, cpuBase, weight, pidsBase);
}

/**
 * The cgroups of this host (RUNYARD_CGROUPS): with auto, v2 where the unified hierarchy has the
 * memory and cpu controllers, else v1 where both are mounted and writable, else none, with the
 * reasons (which every job's log repeats: limits are never silently unenforced). tasksCpus: the
 * CPUs the tasks may use together, which weighs their folder (weighFolder).
 */
export function detectCgroups(mode: CgroupMode, host: () => HostView = readHostView, tasksCpus = 1): Cgroups {
  if (mode === 'none') return new NoCgroups('RUNYARD_CGROUPS=none');
  if (process.platform !== 'linux') return new NoCgroups('cgroups are a Linux feature');
  let view: HostView;
  try {
    view = host();
  } catch (e) {
    return new NoCgroups(`the cgroups of the server cannot be read (${messageOf(e)})`);
  }
  const reasons: string[] = [];
  for (const detect of [detectV2, detectV1]) {
    try {
      return detect(view, tasksCpus);
    } catch (e) {
      reasons.push(messageOf(e));
    }
  }
  return new NoCgroups(`no usable cgroups (v2: ${reasons[0]}; v1: ${reasons[1]})`);
}
