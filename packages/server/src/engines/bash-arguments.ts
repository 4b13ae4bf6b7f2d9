/**
 * How a bash job's command and arguments reach its shell. The task is `bash -c BASH_JOB_SCRIPT
 * runyard-job`: constant text. The command is RUNYARD_COMMAND, the arguments RUNYARD_ARG_<i> (from
 * 1) and RUNYARD_ARG_COUNT: environment variables, because /proc/<pid>/cmdline is readable by every
 * local user and /proc/<pid>/environ only by the task's own. The script moves them into shell
 * variables and out of the environment the command's programs inherit, then runs the command with
 * eval, so that it is run as written (loops, conditionals, functions, here-documents, several
 * lines) and bash's messages name its own lines (line 1 is the command's first). Indirect expansion
 * copies the arguments' bytes as they are: no value is ever parsed as shell text.
 *
 * The arguments follow the CloudOS convention: appended to the command as arguments of its last
 * simple command (`python run.py` with `--n 2` runs `python run.py --n 2`), and only when there are
 * some; the command's own "$@" is then empty. Whether they can be appended is bash's to say, without
 * running anything: `bash -n` (with extglob on, as a command may turn it on before its patterns) of the command followed by ` \<newline>}` passes, silently, only where
 * the command ends in a simple command (`}` is then one more argument of it); after done, fi, esac,
 * a group, `;`, `&`, a comment or a here-document it fails or warns. There the arguments are the
 * command's positional parameters ($1, "$@") instead, and its log says so. Never both.
 */

/** The note of a command whose parameters are its positional parameters. */
export const POSITIONAL_NOTE =
  'Runyard: the command does not end in a simple command (it ends in done, fi, esac, a group, ";", "&", a comment or a ' +
  'here-document), so its parameters are not appended to it: they are its positional parameters ($1, "$@").';

/**
 * Bash text, the same for every job. One line: bash numbers the lines of an eval's text from the
 * line the eval is on, and the command's first line must be line 1 of its messages.
 */
export const BASH_JOB_SCRIPT = [
  'unset _runyard_args',
  'for ((_runyard_i = 1; _runyard_i <= RUNYARD_ARG_COUNT; _runyard_i++)); do _runyard_n=RUNYARD_ARG_$_runyard_i; _runyard_args+=("${!_runyard_n}"); unset "$_runyard_n"; done',
  '_runyard_command=$RUNYARD_COMMAND',
  'unset _runyard_i _runyard_n RUNYARD_ARG_COUNT RUNYARD_COMMAND',
  // Appended only where bash parses them as the last simple command's arguments, silently (checked without running anything).
  'if [[ ${_runyard_args+set} && -n $("$BASH" -O extglob -n -c "$_runyard_command"$\' \\\\\\n}\' 2>&1 || echo no) ]]; then printf \'%s\\n\' ' +
    shellWord(POSITIONAL_NOTE) +
    ' >&2; set -- "${_runyard_args[@]}"; unset _runyard_args; fi',
  'if [[ ${_runyard_args+set} ]]; then eval "$_runyard_command"\' "${_runyard_args[@]}"\'; else eval "$_runyard_command"; fi',
].join('; ');

/** A constant of ours as one single-quoted shell word. */
function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The variables that carry the command and its arguments to the script. */
export function commandEnv(command: string, args: string[]): Record<string, string> {
  return { RUNYARD_COMMAND: command, ...argumentsEnv(args) };
}

/** The variables that carry args to the script (an array job's rows carry their own). */
export function argumentsEnv(args: string[]): Record<string, string> {
  const env: Record<string, string> = { RUNYARD_ARG_COUNT: String(args.length) };
  args.forEach((arg, i) => (env[`RUNYARD_ARG_${i + 1}`] = arg));
  return env;
}
