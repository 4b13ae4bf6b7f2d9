import { constants } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { AttemptControl, TaskSpec } from '../executor.js';
import { ENTER_IN_SANDBOX, enterProgram } from '../sandbox/image-root.js';

/**
 * What a task in an image (TaskSpec.image.run) needs on a cluster's node beyond a local task.
 *
 * runyard-enter: the server's own build (native/build) is where the server is installed, which a node
 * need not see; so each attempt gets a copy in its control directory (on the cluster's shared
 * directory, the server's, read-only to the task), which the sandbox binds instead.
 *
 * The environment: on a node, everything before bwrap (the batch script, an array's element, the
 * network's launcher, env and bwrap themselves, as the submitting user: root on many clusters) runs
 * with the environment sbatch exports, and an image's config is its pusher's text. So the variables
 * that would steer those programs (hostOnly) never reach them: the chain runs with a system PATH, and
 * bwrap sets the task's own values of them in the sandbox (--setenv, after its own start).
 */

/** The PATH of what runs before the sandbox on a node: the system's programs, never a folder an image names. */
export const NODE_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Variables that steer a host program rather than the task: those that glibc ignores for a privileged
 * program (its unsecure-envvars list: LD_*, MALLOC_*, GCONV_PATH, TMPDIR, ...), the shells' start-up
 * and parsing variables and exported functions, PATH, and any name that is not an identifier.
 */
const HOST_STEERING =
  /^(LD_\w*|MALLOC_\w*|GCONV_PATH|GETCONF_DIR|GLIBC_TUNABLES|HOSTALIASES|LOCALDOMAIN|LOCPATH|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TMPDIR|TZDIR|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PS4|IFS|CDPATH|GLOBIGNORE|BASH_XTRACEFD|PATH)$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A task's environment split: what the node's programs may run with (`host`), and what only the sandbox sets (`inSandbox`). */
export function splitImageEnv(env: Record<string, string>): { host: Record<string, string>; inSandbox: Record<string, string> } {
  const host: Record<string, string> = {};
  const inSandbox: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (HOST_STEERING.test(name) || !IDENTIFIER.test(name)) inSandbox[name] = value;
    else host[name] = value;
  }
  return { host: { ...host, PATH: NODE_PATH }, inSandbox };
}

/** Where an attempt keeps its copy of runyard-enter. */
export function enterCopyOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.enter`);
}

/** Copies runyard-enter into the attempt's control directory (afresh: a file left there by an earlier launch is replaced). */
export async function placeEnter(control: AttemptControl): Promise<string> {
  const copy = enterCopyOf(control);
  await rm(copy, { force: true });
  await copyFile(enterProgram(), copy, constants.COPYFILE_EXCL);
  return copy;
}

/** Once the attempt ended: its copy of runyard-enter is not needed any more. */
export async function removeEnter(control: AttemptControl): Promise<void> {
  await rm(enterCopyOf(control), { force: true });
}

/**
 * The sandbox's argv (sandbox/bwrap.ts bwrapArgv: `... /usr/bin/env --ignore-signal=... <bwrap> <options>`)
 * for a node: runyard-enter bound from its copy, and the task's host-steering variables set by bwrap.
 * Fails rather than run a task whose sandbox it cannot read so.
 */
export function imageArgvOnNode(argv: string[], task: TaskSpec, enter: string, inSandbox: Record<string, string>): string[] {
  const bind = argv.findIndex((a, i) => a === '--ro-bind' && argv[i + 2] === ENTER_IN_SANDBOX);
  const signals = argv.findIndex((a, i) => a.startsWith('--ignore-signal=') && argv[i - 1] === '/usr/bin/env');
  if (bind < 0 || signals < 0 || bind < signals)
    throw new Error(`The sandbox of the image ${task.image?.name ?? ''} has no runyard-enter for a Slurm node to bind.`);
  const out = [...argv];
  out[bind + 1] = enter;
  out.splice(signals + 2, 0, ...Object.entries(inSandbox).flatMap(([name, value]) => ['--setenv', name, value]));
  return out;
}
