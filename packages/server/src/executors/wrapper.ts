import { readFileSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import type { AttemptControl } from './executor.js';

/**
 * The /bin/sh wrapper of every local task. Its text is a constant: the pid file, the exit file,
 * the cgroup files to join and the task's argv reach it only as positional parameters, and the
 * task runs as "$@", so no value is ever read as shell code. It records "<pid> <starttime>"
 * before the task starts and the task's exit status after it ends, each in one write that
 * readers take only when complete. First it claims the attempt (claim file, made only if absent):
 * a scheduler that found no trace of the attempt and fenced it (fenceAttempt) made that file
 * first, and a wrapper that starts late (a Slurm job whose sbatch outlived its scheduler) then
 * exits without running the task, which runs again as a new attempt.
 */
export const WRAPPER_SCRIPT = [
  'p=$1 x=$2 c=$3 n=$4',
  'shift 4',
  // noclobber: the redirection creates the file exclusively (O_EXCL), or fails when it exists (on a regular
  // builtin: a failed redirection of a special one such as ':' would end the shell with status 2).
  'set -C',
  'true 2>/dev/null > "$c" || exit 125',
  'set +C',
  // Field 22 of /proc/$$/stat (start time), counted from the last ")" so the command name cannot
  // shift it; split with globbing off, and no subshell: the wrapper costs one process, not three.
  'read -r s < /proc/$$/stat',
  's=${s##*) }',
  'set -f',
  'i=2 t=',
  'for w in $s; do i=$((i + 1)); if [ "$i" -eq 22 ]; then t=$w; break; fi; done',
  'set +f',
  // A graceful stop signals the whole group: the task decides what SIGTERM means, the wrapper
  // outlives it to record its exit (the no-op handler is reset to the default in the task).
  "trap ':' TERM INT HUP",
  // Each record is one short write ending in a newline; readers take a file only when the newline
  // is there, so a record is never read half-written (no rename: no extra process).
  'printf \'%s %s\\n\' "$$" "$t" > "$p" || exit 125',
  // Into the task's cgroups (n files of cgroup.procs) before anything of the task runs, so all it
  // starts is held to its limits; a task that cannot join them does not run.
  'while [ "$n" -gt 0 ]; do',
  '  if ! printf \'%s\\n\' "$$" > "$1"; then',
  '    printf \'Runyard: the task could not join its cgroup (%s).\\n\' "$1" >&2',
  '    printf \'125\\n\' > "$x"',
  '    exit 125',
  '  fi',
  '  shift',
  '  n=$((n - 1))',
  'done',
  '"$@"',
  'c=$?',
  'printf \'%s\\n\' "$c" > "$x"',
  'exit "$c"',
].join('\n');

/** The name the wrapper shows as $0. */
export const WRAPPER_NAME = 'runyard-task';

export function pidFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.pid`);
}

export function exitFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.exit`);
}

export function claimFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.claim`);
}

/**
 * For an attempt with no trace (no task id, no pid): makes its claim file, so that its wrapper
 * never runs the task should it start after all. True: fenced, the attempt never ran and never
 * will. False: its wrapper claimed it first (it started).
 */
export async function fenceAttempt(control: AttemptControl): Promise<boolean> {
  // Made if missing: a scheduler that only seemed dead (its lease ran out) may still be launching.
  await mkdir(control.dir, { recursive: true });
  try {
    await (await open(claimFileOf(control), 'wx')).close();
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** argv that runs the task under the wrapper, in the cgroups whose cgroup.procs (or v1 tasks) files are given. */
export function wrapperArgv(control: AttemptControl, argv: string[], procsFiles: string[] = []): string[] {
  return [
    '/bin/sh',
    '-c',
    WRAPPER_SCRIPT,
    WRAPPER_NAME,
    pidFileOf(control),
    exitFileOf(control),
    claimFileOf(control),
    String(procsFiles.length),
    ...procsFiles,
    ...argv,
  ];
}

/**
 * A control file's text, or null. Read at once: a file of a few bytes, where readFile through the
 * thread pool costs four round trips (open, stat, read, close), each waiting for a CPU on a loaded machine.
 */
async function readOrNull(file: string): Promise<string | null> {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The pid and start time the wrapper recorded, or null when it never started. */
export async function readPidFile(control: AttemptControl): Promise<{ pid: number; startTime: string } | null> {
  const m = /^(\d+) (\d+)\n$/.exec((await readOrNull(pidFileOf(control))) ?? '');
  return m ? { pid: Number(m[1]), startTime: m[2] } : null;
}

/** The exit status the wrapper recorded, or null when the task has not ended (or ended without recording it). */
export async function readExitFile(control: AttemptControl): Promise<number | null> {
  const m = /^(\d+)\n$/.exec((await readOrNull(exitFileOf(control))) ?? '');
  return m ? Number(m[1]) : null;
}
