/**
 * What each element of a Runyard array job on Slurm runs (one element per row, SLURM_ARRAY_TASK_ID
 * its index), under the batch script (batch-script.ts) and around the row's sandboxed argv. Its text
 * is a constant: the files it uses arrive as positional parameters, the row's values only in the
 * row's environment file (array-run.ts), exported one record a word, never read as shell code.
 *
 * It runs outside the sandbox (as the submitting user, root on some clusters) while other rows of the
 * job run and write the job's logs/, results and work directory: so it names no file there. Every
 * path it uses is in the attempt's control directory, which the server made and no task writes: the
 * claim file and the array directory (markers, the row's environment). The row's output goes where
 * the element's own does, Slurm's --output of the element, `output-<i>` in the array directory
 * (slurm-array.ts); the server copies it into logs/ without following anything a task put there.
 *
 * First it claims the attempt for its Slurm array: the first element links a file holding the
 * array's job id into place (link: made whole, or not at all); the others find the same id there.
 * A scheduler that fenced the attempt (wrapper.ts fenceAttempt) made that file empty first, and an
 * array that starts late then runs no row. Then the row, between its markers (start-<i>,
 * exit-<i>-<c>). It outlives a graceful stop (scancel --signal=TERM reaches it too) to record how the
 * row ended.
 */
export const ARRAY_ELEMENT_SCRIPT = [
  'claim=$1 dir=$2',
  'shift 2',
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
  ') < /dev/null',
  'c=$?',
  ': > "$dir/exit-$i-$c"',
  'exit "$c"',
].join('\n');

/** $0 of the element script. */
export const ARRAY_ELEMENT_NAME = 'runyard-array-task';
