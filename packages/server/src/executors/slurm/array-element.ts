/**
 * What each element of a Runyard array job on Slurm runs (one element per row, SLURM_ARRAY_TASK_ID
 * its index), under the batch script (batch-script.ts) and around the row's sandboxed argv. Its text
 * is a constant: the files it uses arrive as positional parameters, the row's values only in the
 * row's environment file (array-run.ts), exported one record a word, never read as shell code.
 *
 * First it claims the attempt for its Slurm array: the first element links a file holding the
 * array's job id into place (link: made whole, or not at all); the others find the same id there.
 * A scheduler that fenced the attempt (wrapper.ts fenceAttempt) made that file empty first, and an
 * array that starts late then runs no row. Then the row, with its markers (start-<i>, exit-<i>-<c>)
 * and its own log; at its end, its section of the job's log, appended under a lock (the elements
 * of the array end in any order, on any node of the cluster). It outlives a graceful stop (scancel
 * --signal=TERM reaches it too) to record how the row ended.
 */
export const ARRAY_ELEMENT_SCRIPT = [
  'claim=$1 dir=$2 tasklogs=$3 joblog=$4',
  'shift 4',
  'i=$SLURM_ARRAY_TASK_ID',
  'case "$i" in "" | *[!0-9]*) echo "Runyard: not an element of a Slurm array (SLURM_ARRAY_TASK_ID)." >&2; exit 125 ;; esac',
  'mine="$claim.$SLURM_JOB_ID"',
  'printf \'%s\\n\' "$SLURM_ARRAY_JOB_ID" > "$mine" || exit 125',
  'ln "$mine" "$claim" 2>/dev/null',
  'rm -f "$mine"',
  'owner=',
  'read -r owner < "$claim"',
  '[ "$owner" = "$SLURM_ARRAY_JOB_ID" ] || exit 125',
  "trap ':' TERM INT HUP",
  ': > "$dir/start-$i"',
  '(',
  '  mapfile -d \'\' records < "$dir/env-$i" || exit 125',
  '  for e in "${records[@]}"; do export "$e"; done',
  '  exec "$@"',
  ') > "$tasklogs/task-$i.log" 2>&1 < /dev/null',
  'c=$?',
  ': > "$dir/exit-$i-$c"',
  // The section is made whole first, then appended in one write where it is small: what Slurm itself
  // writes to the log (a cancel's notice) does not take the lock.
  'printf \'=== task %s: exit code %s ===\\n\' "$i" "$c" > "$dir/section-$i"',
  'cat -- "$tasklogs/task-$i.log" >> "$dir/section-$i"',
  '{',
  '  flock 9',
  '  cat -- "$dir/section-$i" >> "$joblog"',
  '} 9>> "$dir/log.lock"',
  'rm -f "$dir/section-$i"',
  'exit "$c"',
].join('\n');

/** $0 of the element script. */
export const ARRAY_ELEMENT_NAME = 'runyard-array-task';
