import { statSync } from 'node:fs';

/*
 * Inputs of a task that runs on another host (a Slurm node), where the server cannot hand it the
 * files it checked as open descriptors (the local executor does: bwrap.ts heldInputs). On the node,
 * before the sandbox, a constant bash script opens each input at the fd bwrap binds it from
 * (--ro-bind-fd) and checks that what it opened is the file the server checked: its inode number
 * and size, read by the server from the handle it holds. A path that a running task of the
 * workspace swapped meanwhile for a link to a file of the node opens another file: the task does not
 * start (exit 125), and its log says why. (The device is not compared: on a shared file system each
 * host numbers it its own way.)
 */

/** The script: its arguments are the count, then each input's path and `<inode>:<size>`, from fd `base` on; then the command. */
export const INPUT_CHECK_SCRIPT = [
  'n=$1 base=$2',
  'shift 2',
  'i=0',
  'while [ "$i" -lt "$n" ]; do',
  '  p=$1 want=$2 fd=$((base + i))',
  '  shift 2',
  // The fd's number is ours (digits), the path stays a quoted variable: eval sees `exec 20<"$p"`.
  '  eval "exec $fd<\\"\\$p\\"" || exit 125',
  '  got=$(stat -L -c %i:%s "/proc/self/fd/$fd")',
  '  if [ "$got" != "$want" ]; then',
  '    printf \'Runyard: the input %s is not the file the server checked (it was changed meanwhile): the task was not started.\\n\' "$p" >&2',
  '    exit 125',
  '  fi',
  '  i=$((i + 1))',
  'done',
  'exec "$@"',
].join('\n');

/**
 * The argv before the sandbox's that opens and checks the task's held inputs (bwrap.ts heldInputs:
 * each with its destination, the server's handle and its fd), or nothing when it has none.
 */
export function inputCheckLauncher(held: { dest: string; source: string; fd: number }[]): string[] {
  if (!held.length) return [];
  const base = held[0]!.fd;
  // bash: sh (dash) opens fds 0 to 9 only, and the fds of held inputs are INHERITED_FD_BASE (20) on.
  return [
    '/bin/bash',
    '-c',
    INPUT_CHECK_SCRIPT,
    'runyard-inputs',
    String(held.length),
    String(base),
    ...held.flatMap(({ dest, source }) => {
      // The file the server checked, through its own handle (a magic link to it, whatever its path has become).
      const st = statSync(source);
      return [dest, `${st.ino}:${st.size}`];
    }),
  ];
}
