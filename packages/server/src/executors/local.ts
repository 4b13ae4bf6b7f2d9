import { localArrayTask } from './array-run.js';
import { logLinesText, makeTaskDirectories } from './task-files.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptControl, Executor, ExternalId, KillOptions, TaskEnd, TaskSpec, TaskState } from './executor.js';
import { currentThreadId, groupHasLiveMembers, isRunning, readProcStat } from './proc.js';
import { TaskLimits } from './sandbox/limits.js';
import { heldInputs } from './sandbox/bwrap.js';
import { defaultSandbox, type Sandbox } from './sandbox/sandbox.js';
import { fenceAttempt, readExitFile, readPidFile, STATUS_FD, wrapperArgv } from './wrapper.js';
import { isStopArgv, readArgvFile, runOomProbe, runStop, writeArgvFile } from './stop-command.js';
import { defaultSpawner, type DetachedTask, type Spawner } from './spawner/spawner.js';

/** Resolves with promise, or rejects as soon as signal aborts. */
function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then((value) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    }, reject);
  });
}

/** How long the end of a task that this process started, and that nobody waited for yet, is kept for a wait. */
const UNCLAIMED_END_KEPT_MS = 10 * 60_000;

/** A local task's identity: the wrapper's pid and its kernel start time (a reused pid has another). */
export interface LocalId extends ExternalId {
  backend: 'local';
  pid: number;
  startTime: string;
  /** The task's stop argv (TaskSpec.stop), kept here so that a later server process can run it too. */
  stop?: string[];
  /** The task's out-of-memory probe (TaskSpec.oomProbe), kept for the same reason. */
  oomProbe?: string[];
}

export function isLocalId(id: ExternalId | null): id is LocalId {
  return (
    id?.backend === 'local' &&
    Number.isInteger(id.pid) &&
    typeof id.startTime === 'string' &&
    (id.stop === undefined || isStopArgv(id.stop)) &&
    (id.oomProbe === undefined || isStopArgv(id.oomProbe))
  );
}

/**
 * Runs tasks as local processes. Each task runs under a constant /bin/sh wrapper, detached in a
 * process group of its own, with stdout and stderr appended straight to its log file through
 * inherited descriptors (nothing passes through this process, so memory stays flat and the log
 * survives a server crash). The wrapper records pid and exit code in the attempt's control
 * directory, so a later server process can reattach to the task or settle it. The wrapper runs
 * the task through the sandbox (sandbox/), confined to its own directories. Tasks are started by
 * the spawner process (spawner/): a fork from the server would cost in proportion to its memory.
 */
export class LocalExecutor implements Executor {
  readonly backend = 'local';
  /** Tasks launched by this process: their exit is an event, not something to poll for. */
  private readonly children = new Map<number, DetachedTask>();

  constructor(
    private readonly pollMs = 200,
    private readonly sandbox: Sandbox = defaultSandbox(),
    private readonly limits = new TaskLimits(),
    private readonly spawner: Spawner = defaultSpawner(),
  ) {}

  /**
   * Runs this executor's part of the job path in the dispatch cgroup (sandbox/cgroup.ts): the calling
   * thread, which must be the one that launches and follows the tasks (the scheduler's), and the
   * spawner, now and whenever it starts again. Null when the thread was moved, else why not.
   */
  placeDispatchers(): string | null {
    this.spawner.onStart((pid) => void this.limits.placeDispatcher({ process: pid }));
    const thread = currentThreadId();
    if (thread === null) return 'this system tells no thread ids (/proc/thread-self)';
    return this.limits.placeDispatcher({ thread });
  }

  async launch(spec: TaskSpec, control: AttemptControl): Promise<LocalId> {
    // An array task runs as one: its driver runs the rows (array-run.ts).
    const task = spec.array ? localArrayTask({ ...spec, array: spec.array }) : spec;
    await makeTaskDirectories(task, control);
    await this.sandbox.prepare?.(task);
    // Kept beside the pid file too: a server that crashes before storing the id still finds how to stop the task.
    if (task.stop) await writeArgvFile(control, 'stop', task.stop);
    if (task.oomProbe) await writeArgvFile(control, 'oom-probe', task.oomProbe);
    // The task's cgroups (its CPUs and memory), joined by the wrapper before the task runs.
    const limits = await this.limits.prepare(task, control);
    const inContainer = task.confinement === 'container';
    // A ready network namespace from the sandbox's pool (sandbox/network-pool.ts), where the task has one.
    const lease = inContainer ? null : ((await this.sandbox.lease?.(task)) ?? null);
    let program: string;
    let args: string[];
    let inherit: string[] = [];
    try {
      // bwrap reports the task's exit status itself: the wrapper execs it rather than forking for it.
      const statusArgv = inContainer ? undefined : this.sandbox.statusArgv?.(task, STATUS_FD, lease);
      const argv = statusArgv ?? (inContainer ? task.argv : this.sandbox.argv(task));
      [program, ...args] = wrapperArgv(control, argv, limits.procsFiles, statusArgv !== undefined);
      // The inputs the server holds open, handed to bwrap as fds for its --ro-bind-fd (sandbox/bwrap.ts heldInputs).
      if (statusArgv && this.sandbox.kind === 'bwrap') inherit = heldInputs(task).map((h) => h.source);
    } catch (e) {
      lease?.release(true);
      await this.limits.discard(control);
      throw e;
    }
    // The notes at the head of the log are written by the spawner, which opens the log anyway.
    const logHead = logLinesText([inContainer ? null : this.sandbox.note, limits.note, ...(task.preamble ?? [])]);
    let started: DetachedTask;
    try {
      started = await this.spawner.startDetached({
        program,
        args,
        cwd: task.cwd,
        env: task.env,
        logFile: task.logFile,
        logHead,
        ...(inherit.length && { inherit }),
      });
    } catch (e) {
      // Never joined (the spawner does not report a start that failed after the call): the namespace is as it was.
      lease?.release(true);
      await this.limits.discard(control);
      throw e;
    }
    const { pid } = started;
    this.children.set(pid, started);
    // Its end seen (the sandbox's PID namespace, and so every process of the task, is gone), its namespace serves the next task.
    if (lease) void started.ended.then((how) => lease.release(how === 'exited'));
    if (task.forwardPort !== undefined && !inContainer) {
      try {
        await this.sandbox.forward?.(task, started.ended);
      } catch (e) {
        await this.kill({ backend: 'local', pid, startTime: started.startTime }, { force: true, graceMs: 0 });
        await this.limits.discard(control);
        throw e;
      }
    }
    // Its end may reach this process before anyone waits for it (a task that exits at once): the entry
    // stays for wait, which takes it; one that nobody waits for goes a while after its end.
    const forget = () => this.children.get(pid) === started && this.children.delete(pid);
    void started.ended.then(() => setTimeout(forget, UNCLAIMED_END_KEPT_MS).unref());
    return {
      backend: 'local',
      pid,
      startTime: started.startTime,
      ...(task.stop ? { stop: task.stop } : {}),
      ...(task.oomProbe ? { oomProbe: task.oomProbe } : {}),
    };
  }

  async inspect(control: AttemptControl, stored: ExternalId | null): Promise<TaskState> {
    const id = isLocalId(stored) ? stored : await this.idFromPidFile(control);
    if (!id) {
      if (await fenceAttempt(control)) {
        // A group made for a wrapper that never ran (and now never will).
        await this.limits.discard(control);
        return { state: 'absent' };
      }
      // Its wrapper claimed the attempt: its pid file follows at once, unless it died in between.
      const late = await this.pidFileWithin(control, 5000);
      if (!late) return { state: 'lost', reason: 'the task started but recorded no pid' };
      return this.inspect(control, late);
    }
    if (isRunning(id.pid, id.startTime)) return { state: 'running', id };
    return this.ended(control, id);
  }

  async wait(control: AttemptControl, stored: ExternalId, signal?: AbortSignal): Promise<TaskEnd> {
    const id = this.localId(stored);
    const own = this.children.get(id.pid);
    let seen: 'exited' | 'unknown' = 'unknown';
    let seenCode: number | null = null;
    if (own && own.startTime === id.startTime) {
      // Someone waits for the task: it keeps this process alive meanwhile (and only meanwhile).
      const release = this.spawner.hold();
      try {
        seen = await abortable(own.ended, signal);
        seenCode = own.exit.code;
        if (this.children.get(id.pid) === own) this.children.delete(id.pid);
      } finally {
        release();
      }
    }
    // Not started by this process, or its spawner went away first: /proc tells.
    if (seen === 'unknown') while (isRunning(id.pid, id.startTime)) await sleep(this.pollMs, undefined, { signal });
    signal?.throwIfAborted();
    return this.ended(control, id, seenCode);
  }

  async kill(stored: ExternalId, { force, graceMs }: KillOptions): Promise<void> {
    const id = this.localId(stored);
    const signalled = this.signalGroup(id, force ? 'SIGKILL' : 'SIGTERM');
    if (signalled && !force && !(await this.groupGone(id.pid, graceMs))) this.signalGroup(id, 'SIGKILL');
    // What the task started outside its group (a container) outlives the group: its own argv stops it,
    // even when the group is gone already (a task whose CLI was killed, found by a later process).
    await runStop(id.stop);
    if (signalled) await this.groupGone(id.pid, 10_000);
  }

  /** The removal of the task's cgroups, begun at its end (TaskLimits.settle). */
  cleanup(control: AttemptControl): Promise<void> {
    return this.limits.removed(control);
  }

  drain(): Promise<void> {
    return this.limits.drain();
  }

  /**
   * After the wrapper ended: its exit file, or lost, and whether the kernel killed it for its
   * memory. Whatever it left running in its process group, or in its cgroup, is killed.
   */
  private async ended(control: AttemptControl, id: LocalId, seenCode: number | null = null): Promise<TaskEnd> {
    // In its cgroups, what the task left running is killed when they go (limits.settle): no need to scan
    // /proc for its process group (a read of every process's stat, once per job).
    if (!this.limits.confines(control) && groupHasLiveMembers(id.pid) && this.signalGroup(id, 'SIGKILL'))
      await this.groupGone(id.pid, 10_000);
    // Asked before the stop removes what it asks about (a container's record).
    const probedOom = await runOomProbe(id.oomProbe);
    // A container may outlive its CLI (killed, or crashed): stopped too.
    await runStop(id.stop);
    // Recorded by the wrapper (or by bwrap, which it execs). Else, for a record that is this wrapper's
    // claim, its exit code as the spawner saw it: bwrap records none when the sandbox could not be set up
    // (its message is in the log). A wrapper that found its attempt fenced exits without a claim: lost.
    const recorded = await readExitFile(control);
    const claimed = recorded === null && seenCode !== null && (await readPidFile(control))?.pid === id.pid;
    const exitCode = claimed ? seenCode : recorded;
    // Read before settle removes the group: a child killed for its memory, forks refused at the process limit.
    const events = this.limits.events(control);
    const limits = events && (events.oomKills > 0 || events.forksRefused > 0) ? { limits: events } : {};
    // 137: the shell's code of a SIGKILLed task.
    const oom = (await this.limits.settle(control, exitCode === null || exitCode === 137, probedOom)) ? { outOfMemory: true as const } : {};
    if (exitCode !== null) return { state: 'exited', exitCode, ...oom, ...limits };
    return { state: 'lost', reason: `the task's process (pid ${id.pid}) ended without recording an exit code`, ...oom, ...limits };
  }

  private async pidFileWithin(control: AttemptControl, ms: number): Promise<LocalId | null> {
    const deadline = Date.now() + ms;
    for (;;) {
      const id = await this.idFromPidFile(control);
      if (id || Date.now() >= deadline) return id;
      await sleep(50);
    }
  }

  private async idFromPidFile(control: AttemptControl): Promise<LocalId | null> {
    const recorded = await readPidFile(control);
    if (!recorded) return null;
    const stop = await readArgvFile(control, 'stop');
    const oomProbe = await readArgvFile(control, 'oom-probe');
    return { backend: 'local', ...recorded, ...(stop ? { stop } : {}), ...(oomProbe ? { oomProbe } : {}) };
  }

  private localId(id: ExternalId): LocalId {
    if (!isLocalId(id)) throw new Error(`Not a local task id: ${JSON.stringify(id)}`);
    return id;
  }

  /**
   * Signals the task's process group. Safe against pid reuse: while any member of the group
   * lives, the kernel does not hand its number out again; and when the number belongs to a
   * process with another start time, the group is long gone and nothing is signalled.
   */
  private signalGroup(id: LocalId, signal: NodeJS.Signals): boolean {
    const stat = readProcStat(id.pid);
    if (stat && stat.startTime !== id.startTime) return false;
    try {
      process.kill(-id.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  private async groupGone(pgid: number, withinMs: number): Promise<boolean> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      if (!groupHasLiveMembers(pgid)) return true;
      if (Date.now() >= deadline) return false;
      await sleep(Math.min(50, this.pollMs));
    }
  }
}
