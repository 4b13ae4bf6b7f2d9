import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The command npm links (it runs the build's bundle): the CLI tests run exactly what a user runs. */
export const CLI = fileURLToPath(new URL('../../bin/runyard.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** HOME of the child (where ~/.runyard lives); a fresh empty one when absent. */
  home?: string;
  /** Added to a bare environment (PATH and HOME only): nothing RUNYARD_* leaks from the test runner. */
  env?: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: string;
  cwd?: string;
  timeoutMs?: number;
  /** Options for node itself, before the script. */
  nodeArgs?: string[];
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...extra };
}

/** Starts `node bin/runyard.js ...args`; the caller owns the child. */
export function spawnCli(args: string[], options: RunOptions = {}): ChildProcess {
  return spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
    env: cliEnv(options.home ?? tempDir('runyard-home-'), options.env),
    cwd: options.cwd ?? os.tmpdir(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs the CLI to completion (killed after timeoutMs, 30 s by default). */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  // A child may exit (or close its stdin) before reading it: the write then fails with EPIPE, which says
  // nothing about the CLI (its exit code and output do). Any other error of the pipe fails the run.
  let stdinError: Error | undefined;
  child.stdin!.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') stdinError = e;
  });
  if (options.input) child.stdin!.end(options.input);
  else child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (stdinError) reject(stdinError);
      else resolve({ code, stdout, stderr });
    });
  });
}
