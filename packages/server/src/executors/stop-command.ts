import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AttemptControl } from './executor.js';

/** How long a stop command may take (a busy container daemon is slow) before it is killed and given up. */
export const STOP_TIMEOUT_MS = 60_000;

/** The environment of a stop command: its program is an absolute path, and nothing of the server's (keys) is passed on. */
const STOP_ENV = { PATH: '/usr/local/bin:/usr/bin:/bin' };

/** A stored argv (TaskSpec.stop, read back from the database): a program and its arguments, strings only. */
export function isStopArgv(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((a) => typeof a === 'string') && value[0] !== '';
}

/**
 * Runs a task's stop argv (TaskSpec.stop) without a shell, its output to nowhere. Best effort: its
 * exit status is ignored (stopping what is already gone may fail), and it is killed after
 * timeoutMs. Resolves when it has ended, never rejects.
 */
export function runStop(argv: string[] | undefined, timeoutMs = STOP_TIMEOUT_MS): Promise<void> {
  if (!argv || !isStopArgv(argv)) return Promise.resolve();
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'ignore', env: STOP_ENV });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.once('error', done);
    child.once('close', done);
  });
}

/** What an attempt keeps beside its pid file: the task's stop argv and its out-of-memory probe. */
export type ArgvFileKind = 'stop' | 'oom-probe';

/** Where an argv of an attempt is kept beside its pid file, for a server that crashed before storing the task's id. */
function argvFileOf(control: AttemptControl, kind: ArgvFileKind): string {
  return path.join(control.dir, `attempt-${control.attempt}.${kind}`);
}

/** Records an argv of an attempt before its task starts. */
export async function writeArgvFile(control: AttemptControl, kind: ArgvFileKind, argv: string[]): Promise<void> {
  await writeFile(argvFileOf(control, kind), JSON.stringify(argv), { mode: 0o600 });
}

/** An argv recorded for an attempt, or undefined when there is none (or it is not an argv). */
export async function readArgvFile(control: AttemptControl, kind: ArgvFileKind): Promise<string[] | undefined> {
  try {
    const argv: unknown = JSON.parse(await readFile(argvFileOf(control, kind), 'utf8'));
    return isStopArgv(argv) ? argv : undefined;
  } catch {
    return undefined;
  }
}

/** The most of a probe's output that is read. */
const PROBE_OUTPUT_LIMIT = 4096;

/**
 * Runs a task's out-of-memory probe (TaskSpec.oomProbe) as a stop command runs: without a shell,
 * bounded in time. Whether it printed `true` (a runtime's `{{.State.OOMKilled}}`); false when it
 * failed, printed anything else, or there is none.
 */
export function runOomProbe(argv: string[] | undefined, timeoutMs = STOP_TIMEOUT_MS): Promise<boolean> {
  if (!argv || !isStopArgv(argv)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'ignore'], env: STOP_ENV });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (out.length < PROBE_OUTPUT_LIMIT) out += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 && out.trim() === 'true');
    });
  });
}
