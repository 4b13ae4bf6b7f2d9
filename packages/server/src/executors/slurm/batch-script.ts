/**
 * The batch script of every Runyard job on Slurm. Its text is a constant: the memory limit and the
 * OOM record file reach it as positional parameters, the task's wrapper argv (wrapper.ts) and
 * environment through sbatch's --export-file (a file of the task's user), so no value is ever read
 * as shell code nor put on a command line. It outlives a SIGTERM of the job (scancel --signal=TERM --full reaches every
 * process) so that the wrapper can record the task's exit.
 *
 * Slurm with TaskPlugin=task/none enforces no memory limit: where this node lets the batch shell
 * make a cgroup of its own (cgroup v1 memory controller, writable, as for root here), the task runs
 * in one limited to its memory (memory and memory+swap), and a kill by the kernel for it is written
 * to the OOM file. Elsewhere the log says that the limit is Slurm's (task/cgroup enforces --mem).
 */
export const BATCH_SCRIPT = [
  '#!/bin/sh',
  'mem=$1 oom=$2',
  // The wrapper's argv comes in the environment (RUNYARD_SLURM_ARGC, RUNYARD_SLURM_ARGV_0...), not on sbatch's
  // command line, which a submit prefix such as ssh hands to a shell. eval reads only variable
  // names made of constant text and a counter, never a value.
  'set --',
  'i=0',
  'while [ "$i" -lt "${RUNYARD_SLURM_ARGC:-0}" ]; do',
  '  eval "set -- \\"\\$@\\" \\"\\${RUNYARD_SLURM_ARGV_$i}\\""',
  '  unset "RUNYARD_SLURM_ARGV_$i"',
  '  i=$((i + 1))',
  'done',
  'unset RUNYARD_SLURM_ARGC',
  "trap ':' TERM INT HUP",
  'cg=',
  'if [ "$mem" -gt 0 ]; then',
  "  own=$(sed -n 's/^[0-9]*:memory:\\(.*\\)$/\\1/p' /proc/self/cgroup)",
  '  base=/sys/fs/cgroup/memory${own%/}',
  '  if [ -n "$own" ] && [ -w "$base" ] && mkdir "$base/runyard-slurm-$SLURM_JOB_ID" 2>/dev/null; then',
  '    cg=$base/runyard-slurm-$SLURM_JOB_ID',
  '    printf \'%s\' "$mem" > "$cg/memory.limit_in_bytes"',
  '    [ ! -e "$cg/memory.memsw.limit_in_bytes" ] || printf \'%s\' "$mem" > "$cg/memory.memsw.limit_in_bytes"',
  '    printf \'%s\\n\' "$$" > "$cg/cgroup.procs"',
  '  else',
  "    echo 'Runyard: this node gives the task no memory cgroup of its own: its memory limit is the cluster'\"'\"'s (--mem, enforced where Slurm runs task/cgroup).' >&2",
  '  fi',
  'fi',
  '"$@"',
  'c=$?',
  'if [ -n "$cg" ]; then',
  '  printf \'%s\\n\' "$$" > "$base/cgroup.procs"',
  '  k=$(sed -n \'s/^oom_kill \\([0-9]*\\)$/\\1/p\' "$cg/memory.oom_control")',
  '  [ "${k:-0}" -eq 0 ] || printf \'true\\n\' > "$oom"',
  // The task's last processes (the sandbox's) may still be leaving the group: rmdir fails while they are.
  '  i=0',
  '  until rmdir "$cg" 2>/dev/null || [ "$i" -ge 50 ]; do sleep 0.1; i=$((i + 1)); done',
  'fi',
  'exit "$c"',
  '',
].join('\n');
