import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptControl, Executor, ExternalId, KillOptions, TaskEnd, TaskSpec, TaskState } from './executor.js';
import { groupHasLiveMembers, isRunning, readProcStat } from './proc.js';
import { defaultSandbox, type Sandbox } from './sandbox/sandbox.js';
import { readExitFile, readPidFile, wrapperArgv } from './wrapper.js';

/** Resolves with promise, or rejects as soon as signal aborts. */
function abortable(promise: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, reject);
  });
}

/** A local task's identity: the wrapper's pid and its kernel start time (a reused pid has another). */
export interface LocalId extends ExternalId {
  backend: 'local';
  pid: number;
  startTime: string;
}

export function isLocalId(id: ExternalId | null): id is LocalId {
  return id?.backend === 'local' && Number.isInteger(id.pid) && typeof id.startTime === 'string';
}

/**
 * Runs tasks as local processes. Each task runs under a constant /bin/sh wrapper, detached in a
 * process group of its own, with stdout and stderr appended straight to its log file through
 * inherited descriptors (nothing passes through this process, so memory stays flat and the log
 * survives a server crash). The wrapper records pid and exit code in the attempt's control
 * directory, so a later server process can reattach to the task or settle it. The wrapper runs
 * the task through the sandbox (sandbox/), confined to its own directories.
 */
export class LocalExecutor implements Executor {
  readonly backend = 'local';
  /** Tasks launched by this process: their exit is an event, not something to poll for. */
  private readonly children = new Map<number, { child: ChildProcess; ended: Promise<void> }>();

  constructor(
    private readonly pollMs = 200,
    private readonly sandbox: Sandbox = defaultSandbox(),
  ) {}

  async launch(task: TaskSpec, control: AttemptControl): Promise<LocalId> {
    mkdirSync(control.dir, { recursive: true });
    mkdirSync(path.dirname(task.logFile), { recursive: true });
    for (const dir of [task.cwd, ...(task.writable ?? [])]) mkdirSync(dir, { recursive: true });
    const log = openSync(task.logFile, 'a', 0o644);
    let child: ChildProcess;
    try {
      const preamble = this.sandbox.note ? [this.sandbox.note, ...(task.preamble ?? [])] : (task.preamble ?? []);
      for (const line of preamble) writeSync(log, `${line}\n`);
      const [program, ...args] = wrapperArgv(control, this.sandbox.argv(task));
      child = spawn(program, args, {
        cwd: task.cwd,
        env: task.env,
        detached: true,
        stdio: ['ignore', log, log],
      });
    } finally {
      closeSync(log);
    }
    const pid = child.pid;
    if (pid === undefined) {
      const error = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw new Error(`The task could not be started: ${error.message}`);
    }
    child.on('error', () => undefined);
    const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.unref();
    this.children.set(pid, { child, ended });
    void ended.then(() => this.children.delete(pid));
    // The child is not reaped before 'exit', so the pid cannot have been reused yet.
    const stat = readProcStat(pid);
    if (!stat) throw new Error(`The task (pid ${pid}) vanished before it could be identified.`);
    return { backend: 'local', pid, startTime: stat.startTime };
  }

  async inspect(control: AttemptControl, stored: ExternalId | null): Promise<TaskState> {
    const id = isLocalId(stored) ? stored : await this.idFromPidFile(control);
    if (!id) return { state: 'absent' };
    if (isRunning(id.pid, id.startTime)) return { state: 'running', id };
    return this.ended(control, id);
  }

  async wait(control: AttemptControl, stored: ExternalId, signal?: AbortSignal): Promise<TaskEnd> {
    const id = this.localId(stored);
    const own = this.children.get(id.pid);
    if (own && readProcStat(id.pid)?.startTime === id.startTime) {
      // Someone waits for the task: it keeps this process alive meanwhile (and only meanwhile).
      own.child.ref();
      try {
        await abortable(own.ended, signal);
      } finally {
        own.child.unref();
      }
    } else while (isRunning(id.pid, id.startTime)) await sleep(this.pollMs, undefined, { signal });
    signal?.throwIfAborted();
    return this.ended(control, id);
  }

  async kill(stored: ExternalId, { force, graceMs }: KillOptions): Promise<void> {
    const id = this.localId(stored);
    if (!this.signalGroup(id, force ? 'SIGKILL' : 'SIGTERM')) return;
    if (!force && !(await this.groupGone(id.pid, graceMs))) this.signalGroup(id, 'SIGKILL');
    await this.groupGone(id.pid, 10_000);
  }

  /** After the wrapper ended: its exit file, or lost. Whatever it left running in its group is killed. */
  private async ended(control: AttemptControl, id: LocalId): Promise<TaskEnd> {
    if (groupHasLiveMembers(id.pid) && this.signalGroup(id, 'SIGKILL')) await this.groupGone(id.pid, 10_000);
    const exitCode = await readExitFile(control);
    if (exitCode !== null) return { state: 'exited', exitCode };
    return { state: 'lost', reason: `the task's process (pid ${id.pid}) ended without recording an exit code` };
  }

  private async idFromPidFile(control: AttemptControl): Promise<LocalId | null> {
    const recorded = await readPidFile(control);
    return recorded && { backend: 'local', ...recorded };
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
