import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, open, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AttemptControl } from './executor.js';

/**
 * The /bin/sh wrapper of every local task. Its text is a constant: the attempt's record file, the
 * cgroup files to join and the task's argv reach it only as positional parameters, and the task
 * runs as "$@", so no value is ever read as shell code. Its record file (recordFileOf) is the
 * attempt's one control file of the wrapper's: made exclusively with "<pid> <starttime>" before
 * the task starts (the claim of the attempt), then the task's exit status appended as a second
 * line after it ends. Readers take a line only when its newline is there, so a record is never
 * read half-written. A scheduler that found no trace of the attempt and fenced it (fenceAttempt)
 * made the record first, and a wrapper that starts late (a Slurm job whose sbatch outlived its
 * scheduler) then exits without running the task, which runs again as a new attempt.
 *
 * One file, not three: every file the wrapper creates costs an inode (a few tenths of a millisecond
 * each on a busy ext4), and one it creates after joining the task's memory cgroup charges its page
 * to that group, which then outlives its removal as a dying cgroup; the record is made before the
 * wrapper joins, and the exit status is appended to its page.
 */
const WRAPPER_HEAD = [
  'r=$1 n=$2',
  'shift 2',
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
  // noclobber: the redirection creates the record exclusively (O_EXCL), or fails when it exists: fenced,
  // or claimed by another wrapper. (printf is a regular builtin: its failed redirection does not end the shell.)
  'set -C',
  'printf \'%s %s\\n\' "$$" "$t" 2>/dev/null > "$r" || exit 125',
  'set +C',
  // Into the task's cgroups (n files of cgroup.procs) before anything of the task runs, so all it
  // starts is held to its limits; a task that cannot join them does not run.
  'while [ "$n" -gt 0 ]; do',
  '  if ! printf \'%s\\n\' "$$" > "$1"; then',
  '    printf \'Runyard: the task could not join its cgroup (%s).\\n\' "$1" >&2',
  '    printf \'125\\n\' >> "$r"',
  '    exit 125',
  '  fi',
  '  shift',
  '  n=$((n - 1))',
  'done',
];

/** The forking wrapper: it runs the task, then appends its exit status to the record. */
export const WRAPPER_SCRIPT = [...WRAPPER_HEAD, '"$@"', 'c=$?', 'printf \'%s\\n\' "$c" >> "$r"', 'exit "$c"'].join('\n');

/**
 * The wrapper for a program that reports the task's exit status itself, as JSON lines on fd 3
 * (bwrap's --json-status-fd: `{ "child-pid": N, ... }`, then `{ "exit-code": N }` once the task
 * ends): the shell execs it with fd 3 appended to the record, so a task costs one process less (no
 * fork to wait for the task, no shell left to write its status). The ignored stop signals stay
 * ignored across the exec: the program outlives the task's clean-up and reports its exit (what
 * `env --ignore-signal` does for the forking wrapper's bwrap).
 */
export const EXEC_WRAPPER_SCRIPT = [...WRAPPER_HEAD, "trap '' TERM INT HUP", 'exec "$@" 3>>"$r"'].join('\n');

/** The name the wrapper shows as $0. */
export const WRAPPER_NAME = 'runyard-task';

/**
 * The attempt's record: "<pid> <starttime>", then the exit status (wrapper.ts). Named .pid, as when
 * it held the pid alone: a record of an earlier version is read the same.
 */
export function recordFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.pid`);
}

/** Where wrappers of earlier versions recorded the exit status, read when the record has none. */
function earlierExitFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.exit`);
}

/** Where the elements of a Slurm array claim the attempt (array-element.ts). */
export function claimFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.claim`);
}

/** What a fence writes in the record: never a pid line. */
const FENCE = 'fenced\n';

/**
 * For an attempt with no trace (no task id, no pid): makes its record (and its claim file, for an
 * array's elements), so that its wrapper never runs the task should it start after all. True:
 * fenced, the attempt never ran and never will (also when an earlier fence made them). False: its
 * wrapper, or an element of its array, claimed it first (it started).
 */
export async function fenceAttempt(control: AttemptControl): Promise<boolean> {
  // Made if missing: a scheduler that only seemed dead (its lease ran out) may still be launching.
  await mkdir(control.dir, { recursive: true });
  const record = recordFileOf(control);
  // A record being written (a wrapper between its create and its write) is empty: not a fence either.
  if (!(await linkWhole(record, FENCE)) && (await readOrNull(record)) !== FENCE) return false;
  try {
    await (await open(claimFileOf(control), 'wx')).close();
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // Empty: made by an earlier fence. Else it holds the Slurm job id of the array that claimed it.
    return (await readOrNull(claimFileOf(control))) === '';
  }
}

/** Makes file with text, whole (a link to a file written first), unless it exists: then false. */
async function linkWhole(file: string, text: string): Promise<boolean> {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(draft, text, { flag: 'wx' });
  try {
    await link(draft, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    await unlink(draft);
  }
}

/** The fd on which a program run by EXEC_WRAPPER_SCRIPT reports the task's status. */
export const STATUS_FD = 3;

/**
 * argv that runs the task under the wrapper, in the cgroups whose cgroup.procs (or v1 tasks) files
 * are given. With reportsStatus, argv's program reports the task's exit status on STATUS_FD, and
 * the wrapper execs it (EXEC_WRAPPER_SCRIPT).
 */
export function wrapperArgv(control: AttemptControl, argv: string[], procsFiles: string[] = [], reportsStatus = false): string[] {
  const script = reportsStatus ? EXEC_WRAPPER_SCRIPT : WRAPPER_SCRIPT;
  return ['/bin/sh', '-c', script, WRAPPER_NAME, recordFileOf(control), String(procsFiles.length), ...procsFiles, ...argv];
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

/** The pid and start time the wrapper recorded, or null when it never started (or was fenced). */
export async function readPidFile(control: AttemptControl): Promise<{ pid: number; startTime: string } | null> {
  const m = /^(\d+) (\d+)\n/.exec((await readOrNull(recordFileOf(control))) ?? '');
  return m ? { pid: Number(m[1]), startTime: m[2] } : null;
}

/**
 * The exit status the wrapper recorded, or null when the task has not ended (or ended without
 * recording it): the forking wrapper's line, or the exit-code line of bwrap's status (EXEC_WRAPPER_SCRIPT).
 */
export async function readExitFile(control: AttemptControl): Promise<number | null> {
  const record = (await readOrNull(recordFileOf(control))) ?? '';
  const m = /^\d+ \d+\n(?:(\d+)|\{ "child-pid": [^\n]*\n\{ "exit-code": (\d+) \})\n$/.exec(record);
  if (m) return Number(m[1] ?? m[2]);
  const earlier = /^(\d+)\n$/.exec((await readOrNull(earlierExitFileOf(control))) ?? '');
  return earlier ? Number(earlier[1]) : null;
}
