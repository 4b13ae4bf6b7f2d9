import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The one place that spawns git. Every call gets a clean environment (no inherited GIT_*
 * variables, no user or system config), only the https protocol (and file only when asked), no
 * redirects, no hooks, no credential helpers, a timeout that kills the whole process group, and
 * a cap on output.
 */
export interface RunGitOptions {
  cwd?: string;
  /** Allow the file protocol (only for operator-configured file:// rewrite targets). */
  allowFile?: boolean;
  /** Default 60 s. */
  timeoutMs?: number;
  /** Cap on stdout + stderr together; default 16 MiB. */
  maxOutputBytes?: number;
}

export type GitFailureReason = 'exit' | 'timeout' | 'output-limit' | 'spawn' | 'arguments';

/** A git command that failed. The message is short and has any URL credentials masked. */
export class GitCommandError extends Error {
  override name = 'GitCommandError';
  constructor(
    message: string,
    readonly reason: GitFailureReason,
    /** git's exit code, or null when it did not exit by itself. */
    readonly exitCode: number | null = null,
    /** git's stderr, credentials masked, at most 4 KiB. */
    readonly stderr = '',
  ) {
    super(message);
  }
}

export const DEFAULT_GIT_TIMEOUT_MS = 60_000;
export const DEFAULT_GIT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:(?:\/\/|:)/;
const SCP_LIKE = /^[^/@:\s]+@[^/:\s]+:/;

/** True for an argument git could read as a remote address (scheme://, transport::, user@host:path). */
export function looksLikeGitUrl(arg: string): boolean {
  return URL_LIKE.test(arg) || SCP_LIKE.test(arg);
}

let home: string | undefined;
/** A private, empty HOME for git, created once per process. */
function gitHome(): string {
  if (!home) home = mkdtempSync(path.join(os.tmpdir(), 'runyard-git-home-'));
  return home;
}

/** Masks credentials in anything that looks like a URL, and keeps the text short. */
export function maskCredentials(text: string, limit = 4096): string {
  const masked = text.replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/\s@]*@/g, '$1***@');
  return masked.length > limit ? `${masked.slice(0, limit)}...` : masked;
}

/** The git subcommand in an argument list (skipping global options), for messages. */
function subcommandOf(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '-C') i++;
    else if (!a.startsWith('-')) return a;
  }
  return '';
}

function checkArguments(args: string[]): void {
  let sawSeparator = false;
  for (const arg of args) {
    if (typeof arg !== 'string' || arg.includes('\0'))
      throw new GitCommandError('git arguments must be strings without NUL bytes', 'arguments');
    if (arg === '--') sawSeparator = true;
    else if (!sawSeparator && looksLikeGitUrl(arg)) {
      throw new GitCommandError('a repository URL must come after "--" in git arguments', 'arguments');
    }
  }
}

/** Environment for git: nothing inherited except PATH. */
function gitEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: gitHome(),
    LANG: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '/bin/false',
  };
}

function safetyConfig(allowFile: boolean): string[] {
  return [
    '-c',
    'protocol.allow=never',
    '-c',
    'protocol.https.allow=always',
    ...(allowFile ? ['-c', 'protocol.file.allow=always'] : []),
    '-c',
    'http.followRedirects=false',
    '-c',
    'core.hooksPath=/dev/null',
    '-c',
    'credential.helper=',
  ];
}

/** Runs git with the safety settings above; resolves with its output, or throws GitCommandError. */
export function runGit(args: string[], opts: RunGitOptions = {}): Promise<{ stdout: string; stderr: string }> {
  try {
    checkArguments(args);
  } catch (err) {
    return Promise.reject(err);
  }
  const timeoutMs = opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS;
  const maxOutputBytes = opts.maxOutputBytes ?? DEFAULT_GIT_MAX_OUTPUT_BYTES;
  const sub = subcommandOf(args) || 'command';

  return new Promise((resolve, reject) => {
    let settled = false;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let total = 0;

    const child = spawn('git', [...safetyConfig(opts.allowFile === true), ...args], {
      cwd: opts.cwd,
      env: gitEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so a timeout kills git-remote-https / upload-pack too
      windowsHide: true,
    });

    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const fail = (err: GitCommandError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(err);
    };
    const stderrText = () => maskCredentials(Buffer.concat(stderr).toString('utf8'));

    const timer = setTimeout(() => {
      killGroup();
      fail(new GitCommandError(`git ${sub} timed out after ${timeoutMs} ms`, 'timeout', null, stderrText()));
    }, timeoutMs);

    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      if (settled) return;
      total += chunk.length;
      if (total > maxOutputBytes) {
        killGroup();
        fail(new GitCommandError(`git ${sub} produced more than ${maxOutputBytes} bytes of output`, 'output-limit', null, stderrText()));
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));

    child.on('error', (err: NodeJS.ErrnoException) => {
      const what =
        err.code === 'ENOENT' ? 'git is not installed or not on PATH' : `git ${sub} could not be started (${err.code ?? err.message})`;
      fail(new GitCommandError(what, 'spawn'));
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      if (code === 0) {
        settled = true;
        clearTimeout(timer);
        resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
        return;
      }
      const err = stderrText();
      const firstLine =
        err
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l.startsWith('fatal:') || l.startsWith('error:')) ??
        err.split('\n').find((l) => l.trim()) ??
        '';
      const detail = firstLine ? `: ${firstLine.slice(0, 300)}` : '';
      const status = code === null ? `killed by ${signal}` : `exit code ${code}`;
      fail(new GitCommandError(`git ${sub} failed (${status})${detail}`, 'exit', code, err));
    });
  });
}
