/**
 * How a bash job's arguments reach its "$@" without being on any command line: /proc/<pid>/cmdline
 * is readable by every local user, /proc/<pid>/environ only by the task's own. Each argument is
 * an environment variable RUNYARD_ARG_<i> (from 1), their number RUNYARD_ARG_COUNT, and a constant
 * prologue moves them into the positional parameters and out of the environment the command's
 * programs inherit. Indirect expansion copies bytes as they are: no value is ever parsed as shell
 * text, and newlines, quotes, empty strings and any encoding round-trip exactly. Variables pass
 * a container runtime by name (`-e NAME`), so the same holds in an image.
 */

/** Bash text, the same for every job; it ends with ";" so that the command stays on line 1 of its error messages. */
export const ARGUMENTS_PROLOGUE =
  'for ((_runyard_i = 1; _runyard_i <= RUNYARD_ARG_COUNT; _runyard_i++)); do' +
  ' _runyard_n=RUNYARD_ARG_$_runyard_i; set -- "$@" "${!_runyard_n}"; unset "$_runyard_n"; done;' +
  ' unset _runyard_i _runyard_n RUNYARD_ARG_COUNT;';

/** The variables that carry args to the prologue. */
export function argumentsEnv(args: string[]): Record<string, string> {
  const env: Record<string, string> = { RUNYARD_ARG_COUNT: String(args.length) };
  args.forEach((arg, i) => (env[`RUNYARD_ARG_${i + 1}`] = arg));
  return env;
}
