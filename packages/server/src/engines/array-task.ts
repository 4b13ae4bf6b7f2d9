import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';

/**
 * A bash array job runs as one task of its executor: a constant bash driver that runs the job's
 * command once per data row of the array file, at most `limit` rows at once, all inside the job's
 * sandbox and cgroups (which hold `limit` times the resources of one row).
 *
 * Row values never become shell text nor argv: the engine writes each row's environment (its
 * RUNYARD_ARG_* and RUNYARD_PARAM_* variables, NUL-separated NAME=VALUE records) to
 * `<array dir>/env-<i>`, and the driver exports each record as one word (`export "$e"` assigns,
 * it never evaluates) in the row's subshell before it runs the command.
 *
 * The array directory (one per attempt) also records each row's progress as empty files, read
 * with one directory listing: `start-<i>` when it starts, `exit-<i>-<code>` when it ends (made by
 * the row's own subshell: bash's `wait -n` may miss a job reaped while it ran another command). Each
 * row's output goes to `<logs>/tasks/task-<i>.log` as it runs; when the row ends the driver (the
 * only writer of the job's log) appends it there under a line naming its index and exit code.
 * The driver exits 0 only if every row did.
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
 * secrets to other local users), and the directory of the rows' logs.
 */
export async function writeArrayRows(arrayDir: string, taskLogsDir: string, rows: Record<string, string>[]): Promise<void> {
  await rm(arrayDir, { recursive: true, force: true });
  await mkdir(arrayDir, { recursive: true, mode: 0o700 });
  await mkdir(taskLogsDir, { recursive: true });
  for (const [i, env] of rows.entries()) {
    const file = await open(path.join(arrayDir, `env-${i}`), 'wx', 0o600);
    try {
      await file.writeFile(envRecords(env));
    } finally {
      await file.close();
    }
  }
}

/** argv of the driver that runs `taskArgv` once per row. */
export function arrayDriverArgv(size: number, limit: number, arrayDir: string, taskLogsDir: string, taskArgv: string[]): string[] {
  return ['bash', '-c', ARRAY_DRIVER, ARRAY_DRIVER_NAME, String(size), String(limit), arrayDir, taskLogsDir, ...taskArgv];
}
