import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { NATIVE_SPAWN_ENV } from './native-spawn.js';
import type { CaptureRequest, DetachedRequest, SpawnerReply, SpawnerRequest } from './spawner-messages.js';

/** A task started detached: its identity, and its end as the spawner saw it. */
export interface DetachedTask {
  pid: number;
  startTime: string;
  /** 'exited' when its process ended; 'unknown' when the spawner went away first (ask /proc then). */
  ended: Promise<'exited' | 'unknown'>;
  /** Once it ended 'exited': its exit code as the spawner saw it (null: a signal killed it). */
  readonly exit: { code: number | null };
}

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

// The compiled entry beside this file. Tests load the sources (through tsx): the entry is the build's.
const ENTRY = fileURLToPath(new URL('./spawner-process.js', import.meta.url)).replace(
  /\/src\/executors\/spawner\/spawner-process\.js$/,
  '/dist/executors/spawner/spawner-process.js',
);

/** A reply, and for a started task its end (registered as the reply arrives: its exit may come in the same read). */
type Answer = { reply: SpawnerReply; ended?: Promise<'exited' | 'unknown'>; exit?: { code: number | null } };
type Running = { exit: { code: number | null }; resolve: (how: 'exited' | 'unknown') => void };
type Pending = { resolve: (answer: Answer) => void; reject: (e: Error) => void };

/**
 * Starts processes from a small helper process (spawner-process.ts) rather than from the server:
 * Node forks on the calling thread, at a cost that grows with the server's memory. One helper,
 * started on first use and again after it ends; while nothing is asked of it or waited for, it
 * does not keep the server's process alive.
 */
export class Spawner {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly running = new Map<number, Running>();
  private holds = 0;
  private readonly startListeners: ((pid: number) => void)[] = [];

  /** nativeSpawn (the setting of that name): 'off' starts tasks through Node's spawn even where the native module is built. */
  constructor(private readonly options: { nativeSpawn?: 'auto' | 'off' } = {}) {}

  /**
   * Calls `listener` with the helper's pid now if it runs, and whenever it is started again, before
   * it is asked anything (the local executor moves it into the dispatch cgroup).
   */
  onStart(listener: (pid: number) => void): void {
    this.startListeners.push(listener);
    if (this.child?.pid !== undefined) listener(this.child.pid);
  }

  /** Starts a task in a process group of its own, stdout and stderr appended to logFile. */
  async startDetached(request: Omit<DetachedRequest, 'type' | 'id'>): Promise<DetachedTask> {
    const { reply, ended, exit } = await this.ask({ type: 'detached', id: 0, ...request });
    if (reply.type === 'failed') throw new Error(reply.message);
    if (reply.type !== 'started' || !ended || !exit) throw new Error(`the spawner answered ${reply.type}`);
    return { pid: reply.pid, startTime: reply.startTime, ended, exit };
  }

  /** Runs a command to its end without a shell and answers its exit code and output. */
  async capture(
    program: string,
    args: string[],
    options: { env: Record<string, string>; timeoutMs: number; maxBuffer: number },
  ): Promise<CapturedRun> {
    const { reply } = await this.ask({ type: 'capture', id: 0, program, args, ...options } satisfies CaptureRequest);
    if (reply.type !== 'captured') throw new Error(`the spawner answered ${reply.type}`);
    return { code: reply.code, stdout: reply.stdout, stderr: reply.stderr };
  }

  /** How the helper starts detached tasks: 'posix_spawn', or Node's spawn and why. */
  async detachedStarts(): Promise<'posix_spawn' | { node: string }> {
    const { reply } = await this.ask({ type: 'about', id: 0 });
    if (reply.type !== 'about') throw new Error(`the spawner answered ${reply.type}`);
    return reply.detachedStarts;
  }

  /** The helper's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Keeps the process alive while someone waits for a task's end; call the answer when done. */
  hold(): () => void {
    this.holds++;
    this.refresh();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.refresh();
    };
  }

  private ask(request: SpawnerRequest): Promise<Answer> {
    const child = this.started();
    const id = this.nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.refresh();
      child.send({ ...request, id }, (error) => {
        if (error) this.settle(id)?.reject(error);
      });
    });
  }

  private started(): ChildProcess {
    if (this.child) return this.child;
    // Nothing of the server's environment: every request carries the whole environment of what it starts.
    // Without V8's worker threads: a fork copies the forking process's mappings, and each thread's stack
    // is some of them (a start here cost 0.4-0.6 ms less, parent and child, on a 2-core VM).
    const child = spawn(process.execPath, ['--single-threaded', ENTRY], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { PATH: process.env.PATH ?? '', ...(this.options.nativeSpawn === 'off' && { [NATIVE_SPAWN_ENV]: 'off' }) },
    });
    child.on('message', (reply: SpawnerReply) => this.received(reply));
    child.on('error', () => undefined);
    child.once('exit', () => this.lost(child));
    this.child = child;
    if (child.pid !== undefined) for (const listener of this.startListeners) listener(child.pid);
    return child;
  }

  private received(reply: SpawnerReply): void {
    if (reply.type === 'exited') {
      const running = this.running.get(reply.pid);
      if (running) {
        this.running.delete(reply.pid);
        running.exit.code = reply.code;
        running.resolve('exited');
      }
    } else if (reply.type === 'started') {
      const exit = { code: null };
      const ended = new Promise<'exited' | 'unknown'>((resolve) => this.running.set(reply.pid, { exit, resolve }));
      this.settle(reply.id)?.resolve({ reply, ended, exit });
    } else this.settle(reply.id)?.resolve({ reply });
  }

  private settle(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    this.refresh();
    return pending;
  }

  /** The helper ended: what was asked fails, and the ends of running tasks are for /proc to tell. */
  private lost(child: ChildProcess): void {
    if (this.child !== child) return;
    this.child = undefined;
    for (const p of this.pending.values()) p.reject(new Error('the spawner process ended'));
    this.pending.clear();
    for (const { resolve } of this.running.values()) resolve('unknown');
    this.running.clear();
  }

  private refresh(): void {
    const child = this.child;
    if (!child) return;
    const busy = this.pending.size > 0 || this.holds > 0;
    const channel = child.channel as { ref(): void; unref(): void } | undefined;
    if (busy) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }
}

const shared = new Map<string, Spawner>();

/** This thread's spawner (one for each setting of nativeSpawn). */
export function defaultSpawner(nativeSpawn: 'auto' | 'off' = 'auto'): Spawner {
  let spawner = shared.get(nativeSpawn);
  if (!spawner) shared.set(nativeSpawn, (spawner = new Spawner({ nativeSpawn })));
  return spawner;
}
