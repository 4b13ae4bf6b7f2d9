import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { listBeneath, ownDirBeneath, removeBeneath } from '../storage/beneath.js';
import type { TaskSpec } from './executor.js';

/**
 * An array task (a bash array job): the task's argv runs once per row of its array file, at most
 * `limit` rows at once.
 *
 * Row values never become shell text nor argv: the engine writes each row's environment (its
 * RUNYARD_ARG_* and RUNYARD_PARAM_* variables, NUL-separated NAME=VALUE records) to
 * `<dir>/env-<i>`, and whoever runs the row exports each record as one word (`export "$e"`
 * assigns, it never evaluates) in the row's own shell before it runs the command.
 *
 * The array directory (one per attempt) also records each row's progress as empty files, read
 * with one directory listing: `start-<i>` when it starts, `exit-<i>-<code>` when it ends. Each
 * row's output goes to `<taskLogsDir>/task-<i>.log` as it runs; when the row ends it is appended to
 * the job's log under a line `=== task <i>: exit code <c> ===`, and after the last row a line says
 * how many failed. The task's exit code is 0 only if every row's was.
 *
 * The local executor runs the whole array as one task (ARRAY_DRIVER, in one sandbox and cgroup that
 * hold `limit` rows); the Slurm executor as one Slurm array, a Slurm job per row
 * (slurm/array-element.ts), whose elements run outside the sandbox and so write only the array
 * directory: each row's output goes to `<dir>/output-<i>`, and the server copies it into the
 * row's log and the job's log (slurm/slurm-array.ts).
 */
export interface ArrayRun {
  size: number;
  limit: number;
  dir: string;
  taskLogsDir: string;
}

/**
 * The local driver: a constant bash script that runs "$@" once per row, in the task's sandbox. The
 * row's own subshell makes its exit marker (bash's `wait -n` may miss a job reaped while it ran
 * another command); the driver is the only writer of the job's log.
 */
export const ARRAY_DRIVER = [
  'n=$1 limit=$2 dir=$3 tasklogs=$4',
  'shift 4',
  'shopt -s nullglob',
  'running=() failed=0 next=0',
  // Reports the rows of `running` that recorded their end (the driver is the only writer of the log);
  // with "lost", also those that did not (no process of the array is left: they were killed).
  'report() {',
  '  local i c ends still=()',
  '  for i in "${running[@]}"; do',
  '    ends=("$dir/exit-$i-"*)',
  '    if [ "${#ends[@]}" -eq 0 ]; then',
  '      if [ "$1" != lost ]; then still+=("$i"); continue; fi',
  '      : > "$dir/exit-$i-255"',
  '      ends=("$dir/exit-$i-255")',
  '      printf \'Runyard: task %s ended without recording its exit code.\\n\' "$i" >> "$tasklogs/task-$i.log"',
  '    fi',
  '    c=${ends[0]##*-}',
  '    [ "$c" = 0 ] || failed=$((failed + 1))',
  '    printf \'=== task %s: exit code %s ===\\n\' "$i" "$c"',
  '    cat -- "$tasklogs/task-$i.log"',
  '  done',
  '  running=("${still[@]}")',
  '}',
  // Until at least one row has ended. (wait -n may miss a row reaped meanwhile: the markers tell, not its status.)
  'one_ended() {',
  '  local before=${#running[@]} w',
  '  while [ "${#running[@]}" -eq "$before" ]; do',
  '    wait -n',
  '    w=$?',
  '    if [ "$w" -eq 127 ]; then report lost; else report; fi',
  '  done',
  '}',
  'while [ "$next" -lt "$n" ]; do',
  '  [ "${#running[@]}" -lt "$limit" ] || one_ended',
  '  i=$next',
  '  next=$((next + 1))',
  '  : > "$dir/start-$i"',
  '  (',
  '    (',
  '      mapfile -d \'\' records < "$dir/env-$i" || exit 125',
  '      for e in "${records[@]}"; do export "$e"; done',
  '      exec "$@"',
  '    ) > "$tasklogs/task-$i.log" 2>&1 < /dev/null',
  '    : > "$dir/exit-$i-$?"',
  '  ) &',
  '  running+=("$i")',
  'done',
  'while [ "${#running[@]}" -gt 0 ]; do one_ended; done',
  'printf \'Runyard: %s of %s tasks failed.\\n\' "$failed" "$n"',
  '[ "$failed" -eq 0 ]',
].join('\n');

/** $0 of the driver. */
export const ARRAY_DRIVER_NAME = 'runyard-array';

/** The array directory of one attempt of a job: the rows' environments and their progress. */
export function arrayDirOf(controlDir: string, attempt: number): string {
  return path.join(controlDir, `array-${attempt}`);
}

/** Where each row's output is written while it runs. */
export function taskLogsDirOf(logsDir: string): string {
  return path.join(logsDir, 'tasks');
}

/** The NUL-separated NAME=VALUE records of one row's environment. */
function envRecords(env: Record<string, string>): Buffer {
  return Buffer.from(
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}\0`)
      .join(''),
    'utf8',
  );
}

/**
 * Makes the attempt's array directory afresh with each row's environment file (0600: values may be
 * secrets to other local users), and the directory of the rows' logs. That one is in the job's
 * logs, which an earlier attempt's task wrote: whatever it left in its place that is not a
 * directory (a link, a file) is removed, never followed, and the directory made in its parent's handle.
 */
export async function writeArrayRows(arrayDir: string, taskLogsDir: string, rows: Record<string, string>[]): Promise<void> {
  await removeBeneath(path.dirname(arrayDir), path.basename(arrayDir));
  await mkdir(arrayDir, { recursive: true, mode: 0o700 });
  const logsDir = path.dirname(taskLogsDir);
  await mkdir(logsDir, { recursive: true });
  await ownDirBeneath(logsDir, path.basename(taskLogsDir));
  for (const [i, env] of rows.entries()) {
    const file = await open(path.join(arrayDir, `env-${i}`), 'wx', 0o600);
    try {
      await file.writeFile(envRecords(env));
    } finally {
      await file.close();
    }
  }
}

/**
 * An array task as one local task: the driver runs its argv once per row, in one sandbox that
 * writes the array directory, and one cgroup that holds what `limit` rows are given.
 */
export function localArrayTask(task: TaskSpec & { array: ArrayRun }): TaskSpec {
  const { array, ...rest } = task;
  const { size, limit, dir, taskLogsDir } = array;
  return {
    ...rest,
    argv: ['bash', '-c', ARRAY_DRIVER, ARRAY_DRIVER_NAME, String(size), String(limit), dir, taskLogsDir, ...task.argv],
    writable: [...(task.writable ?? []), dir],
    ...(task.resources && { resources: { cpus: task.resources.cpus * limit, memoryGiB: task.resources.memoryGiB * limit } }),
  };
}

/** What an array directory records: the rows that started, and the exit code of each row that ended. */
export interface ArrayMarkers {
  started: Set<number>;
  exits: Map<number, number>;
}

/** An array directory's markers, from one listing (none yet, or no directory: empty). */
export async function readArrayMarkers(dir: string): Promise<ArrayMarkers> {
  return markersOf(await listArrayDir(dir));
}

/** The names in an array directory (none yet, or no directory: none). */
export async function listArrayDir(dir: string): Promise<string[]> {
  // The tasks write the array directory: listed from its parent's handle, a link in its place is not followed.
  return (await listBeneath(path.dirname(dir), path.basename(dir)).catch(() => [])).map((entry) => entry.name);
}

/** The markers among the names of an array directory. */
export function markersOf(names: string[]): ArrayMarkers {
  const markers: ArrayMarkers = { started: new Set(), exits: new Map() };
  for (const name of names) {
    const start = /^start-(\d+)$/.exec(name);
    if (start) markers.started.add(Number(start[1]));
    const exit = /^exit-(\d+)-(\d+)$/.exec(name);
    if (exit) markers.exits.set(Number(exit[1]), Number(exit[2]));
  }
  return markers;
}

/** The line that ends an array task's log. */
export function arraySummaryLine(failed: number, size: number): string {
  return `Runyard: ${failed} of ${size} tasks failed.`;
}
