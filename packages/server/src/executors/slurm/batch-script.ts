/**
 * The batch script of every Runyard job on Slurm. Its text is a constant: the memory limit, the
 * limits record file and the process limit reach it as positional parameters, the task's wrapper argv (wrapper.ts) and
 * environment through sbatch's --export-file (a file of the task's user), so no value is ever read
 * as shell code nor put on a command line. It outlives a SIGTERM of the job (scancel --signal=TERM --full reaches every
 * process) so that the wrapper can record the task's exit.
 *
 * Slurm with TaskPlugin=task/none enforces no memory limit: where this node lets the batch shell
 * make a cgroup of its own (cgroup v1 memory controller, writable, as for root here), the task runs
 * in one limited to its memory (memory and memory+swap); likewise a pids group holds it to its process
 * limit. What they stopped (processes killed for memory, forks refused) is appended to the limits
 * record as one line (`oom_kills K forks_refused F pids_limit P`; an array's elements each add theirs)
 * when anything was. Elsewhere the log says that the limit is Slurm's (task/cgroup enforces --mem), or none.
 */
export const BATCH_SCRIPT = [
  '#!/bin/sh',
  'mem=$1 limits=$2 pids=${3:-0}',
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
  'pg=',
  'if [ "$pids" -gt 0 ]; then',
  "  ownp=$(sed -n 's/^[0-9]*:pids:\\(.*\\)$/\\1/p' /proc/self/cgroup)",
  '  pbase=/sys/fs/cgroup/pids${ownp%/}',
  '  if [ -n "$ownp" ] && [ -w "$pbase" ] && mkdir "$pbase/runyard-slurm-$SLURM_JOB_ID" 2>/dev/null; then',
  '    pg=$pbase/runyard-slurm-$SLURM_JOB_ID',
  '    printf \'%s\' "$pids" > "$pg/pids.max"',
  '    printf \'%s\\n\' "$$" > "$pg/cgroup.procs"',
  '  else',
  "    echo 'Runyard: this node gives the task no pids cgroup of its own: its number of processes is not limited here.' >&2",
  '  fi',
  'fi',
  '"$@"',
  'c=$?',
  'k=0 f=0',
  'if [ -n "$cg" ]; then',
  '  printf \'%s\\n\' "$$" > "$base/cgroup.procs"',
  '  k=$(sed -n \'s/^oom_kill \\([0-9]*\\)$/\\1/p\' "$cg/memory.oom_control")',
  // The task's last processes (the sandbox's) may still be leaving the group: rmdir fails while they are.
  '  i=0',
  '  until rmdir "$cg" 2>/dev/null || [ "$i" -ge 50 ]; do sleep 0.1; i=$((i + 1)); done',
  'fi',
  'if [ -n "$pg" ]; then',
  '  printf \'%s\\n\' "$$" > "$pbase/cgroup.procs"',
  '  f=$(sed -n \'s/^max \\([0-9]*\\)$/\\1/p\' "$pg/pids.events")',
  '  i=0',
  '  until rmdir "$pg" 2>/dev/null || [ "$i" -ge 50 ]; do sleep 0.1; i=$((i + 1)); done',
  'fi',
  '[ "${k:-0}" -eq 0 ] && [ "${f:-0}" -eq 0 ] || printf \'oom_kills %s forks_refused %s pids_limit %s\\n\' "${k:-0}" "${f:-0}" "$pids" >> "$limits"',
  'exit "$c"',
  '',
].join('\n');
