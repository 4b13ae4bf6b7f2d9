import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { ImageRun, TaskSpec } from '../executor.js';
import { ENTER_IN_SANDBOX, imageRootArgs } from './image-root.js';
import type { EtcView } from './etc-snapshot.js';
import type { TaskNetwork } from '../../config.js';
import { OUTBOUND_BWRAP_OPTIONS } from './task-network.js';
import { INHERITED_FD_BASE } from '../spawner/spawner-messages.js';
import { inputCheckLauncher } from './input-check.js';

/**
 * How a task reaches the network (task-network.ts): its kind, and for an outbound network the argv
 * that starts bwrap with its namespace connected (outboundLauncher).
 */
export interface NetworkPlan {
  network: TaskNetwork;
  launcher: string[] | null;
}

/**
 * What of /etc a task sees: users and groups (nobody), name resolution, TLS roots, the dynamic
 * linker, the time zone, the alternatives that name e.g. java. Everything else in /etc (shadow,
 * ssh host keys, the operator's settings) stays hidden. Of the TLS folders only the public parts:
 * /etc/ssl/private and /etc/pki/tls/private hold the host's keys, and a task of a server that runs
 * as root runs as their owner (the user namespace maps nobody to the server's uid).
 */
export const ETC_ENTRIES = [
  'passwd',
  'group',
  'hosts',
  'host.conf',
  'resolv.conf',
  'nsswitch.conf',
  'gai.conf',
  'services',
  'protocols',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'ca-certificates.conf',
  'pki/ca-trust',
  'pki/tls/certs',
  'pki/tls/cert.pem',
  'pki/tls/openssl.cnf',
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'mime.types',
];

/** Top-level directories of the system: on merged-/usr systems symbolic links into /usr, elsewhere directories of their own. */
export const SYSTEM_TOP = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/** The uid and gid of the task inside its user namespace: nobody, which owns nothing. */
export const TASK_ID = 65534;

/**
 * The host uid and gid a root server's tasks run as (RUNYARD_TASK_UID, RUNYARD_TASK_GID): bwrap then
 * runs as root without a user namespace (so it binds what root can reach) and drops to them with
 * setpriv before the task starts, with no capabilities, no groups and no new privileges. Null (a
 * server that is not root): the task is nobody in a user namespace that maps it to the server's uid.
 */
export type HostUser = { uid: number; gid: number } | null;

/** util-linux's setpriv, inside the sandbox (/usr is bound). */
const SETPRIV = '/usr/bin/setpriv';

/** What drops the task to the host user before it starts; nothing without one. */
function dropTo(user: HostUser): string[] {
  if (!user) return [];
  return [
    SETPRIV,
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    '--clear-groups',
    '--bounding-set=-all',
    '--inh-caps=-all',
    '--no-new-privs',
    '--',
  ];
}

/**
 * Its own user namespace (nobody, mapped to the server's uid, unable to make another), unless it
 * runs as a host user. In an image: the image's user (root when it names none, as docker runs it),
 * with no capabilities even as root of the namespace.
 */
function userArgs(user: HostUser, image: ImageRun | null): string[] {
  if (user) return [];
  if (image)
    return ['--unshare-user', '--uid', String(image.uid ?? 0), '--gid', String(image.gid ?? 0), '--disable-userns', '--cap-drop', 'ALL'];
  return ['--unshare-user', '--uid', String(TASK_ID), '--gid', String(TASK_ID), '--disable-userns'];
}

/**
 * What runs the task's argv in the sandbox: on the host's system, env with the stop signals at their
 * defaults (after setpriv for a host user); in an image, runyard-enter, which does both and loads
 * nothing of the image while it is root.
 */
function entryArgs(user: HostUser, image: ImageRun | null): string[] {
  if (!image) return [...dropTo(user), ENV, `--default-signal=${STOP_SIGNALS}`, '--'];
  return [ENTER_IN_SANDBOX, ...(user ? ['--uid', String(user.uid), '--gid', String(user.gid)] : []), '--'];
}

/** The host's name resolution over the image's, for a task on the host's network (the image's files name none of its hosts). */
const HOST_NAME_FILES = ['--ro-bind-try', '/etc/resolv.conf', '/etc/resolv.conf', '--ro-bind-try', '/etc/hosts', '/etc/hosts'];

/** The signals of a graceful stop (wrapper.ts traps the same). */
const STOP_SIGNALS = 'TERM,INT,HUP';

/** The system's env, inside the sandbox too (/usr is bound). */
const ENV = '/usr/bin/env';

/**
 * For a task of a host user: its own --dir, 0755, for each folder above the given mount points
 * (parents first), which bwrap running as root would otherwise make 0700 and root's, closed to the task.
 */
function openParents(user: HostUser, destinations: string[]): string[] {
  if (!user) return [];
  const parents = new Set<string>();
  for (const dest of destinations) {
    for (let dir = path.dirname(path.resolve(dest)); dir !== '/'; dir = path.dirname(dir)) parents.add(dir);
  }
  return [...parents].sort((a, b) => a.split('/').length - b.split('/').length).flatMap((dir) => ['--perms', '0755', '--dir', dir]);
}

function systemArgs(etc: EtcView | null, user: HostUser): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const name of SYSTEM_TOP) {
    const top = `/${name}`;
    try {
      if (lstatSync(top).isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
      else args.push('--ro-bind', top, top);
    } catch {
      // Not on this system.
    }
  }
  if (etc) {
    args.push('--ro-bind', etc.dir, '/etc');
    for (const bound of etc.binds) args.push('--ro-bind-try', bound, bound);
  } else {
    args.push(
      ...openParents(
        user,
        ETC_ENTRIES.map((entry) => `/etc/${entry}`).filter((p) => existsSync(p)),
      ),
    );
    for (const entry of ETC_ENTRIES) args.push('--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`);
  }
  return args;
}

/**
 * Whether a path lies under a top-level directory that systemArgs makes a symbolic link into /usr
 * (/bin on a merged-/usr system): inside the sandbox it reaches the bound /usr already, and a bind
 * of it would only mount /usr/bin over itself again (one more mount, and bwrap reads the mount
 * table after each).
 */
function underSystemLink(dir: string): boolean {
  const top = `/${path.resolve(dir).split('/')[1]}`;
  if (!SYSTEM_TOP.includes(top.slice(1))) return false;
  try {
    return lstatSync(top).isSymbolicLink() && /^\/usr(\/|$)/.test(path.resolve('/', readlinkSync(top)));
  } catch {
    return false;
  }
}

/** Directories of the task's PATH outside /usr (e.g. /opt/tools/bin), read-only, so the programs it names are found. */
function pathDirs(task: TaskSpec): string[] {
  const dirs = (task.env.PATH ?? '').split(':').filter((d) => path.isAbsolute(d) && path.resolve(d) !== '/');
  if (path.isAbsolute(task.argv[0] ?? '')) dirs.push(task.argv[0]);
  return dirs.filter((d) => !/^\/usr(\/|$)/.test(path.resolve(d)) && !underSystemLink(d));
}

/**
 * Binds from parents to children, so a path inside another is mounted over it (a read-only input
 * inside a writable directory stays read-only). A path named twice the same way (a bash job's work
 * directory is its cwd and one of its writable directories) is bound once.
 */
function bindArgs(readable: string[], writable: string[], heldFds: Map<string, number>): string[] {
  const named = [
    ...readable.map((p) => ({ p: path.resolve(p), flag: '--ro-bind-try' })),
    ...writable.map((p) => ({ p: path.resolve(p), flag: '--bind' })),
  ];
  const binds = named.filter((b, i) => named.findIndex((o) => o.p === b.p && o.flag === b.flag) === i);
  binds.sort((a, b) => a.p.split('/').length - b.p.split('/').length);
  return binds.flatMap(({ p, flag }) => {
    // A read-only input held open by the server is bound from the fd it was handed (heldInputs), not its path:
    // bwrap checks that what it mounted is that file (its device and inode), and fails the task otherwise.
    const fd = flag === '--ro-bind-try' ? heldFds.get(p) : undefined;
    return fd === undefined ? [flag, p, p] : ['--ro-bind-fd', String(fd), p];
  });
}

/**
 * The inputs a local task gets as open files (TaskSpec.bindSources), in the order of the fds the
 * spawner hands it (DetachedRequest.inherit, from INHERITED_FD_BASE on), each with its destination.
 */
export function heldInputs(task: TaskSpec): { dest: string; source: string; fd: number }[] {
  const byDest = new Map(Object.entries(task.bindSources ?? {}).map(([dest, source]) => [path.resolve(dest), source]));
  return [...byDest.keys()].sort().map((dest, i) => ({ dest, source: byDest.get(dest)!, fd: INHERITED_FD_BASE + i }));
}

/**
 * argv that runs a task inside bubblewrap: a read-only system, a private /proc, /dev and /tmp,
 * its own PID, IPC, UTS and user namespaces (uid nobody, no capabilities), the network only when
 * allowed, and of the rest of the machine only its own directories (cwd and task.writable
 * read-write, task.readable read-only). Environment: bwrap passes on its own, which is the task's
 * (built from scratch by the engine); --setenv would put values into an argv anyone can read.
 *
 * The task stays in the wrapper's process group (no --new-session: the wrapper has no terminal to
 * steal, being detached), so a graceful stop still reaches it; bwrap itself ignores TERM, INT and
 * HUP (env --ignore-signal) so that it outlives the task's clean-up and returns its exit code, and
 * the task gets them back at their defaults. A forced stop kills bwrap, and with it the namespace's
 * init and so every process of the task, whatever group it moved to; --die-with-parent does the
 * same when the wrapper is killed.
 */
export function bwrapArgv(bwrap: string, task: TaskSpec, net: NetworkPlan, user: HostUser = null): string[] {
  // Inputs the server holds open are opened where the task runs and checked to be those files (input-check.ts), then bound from the fds.
  const held = heldInputs(task);
  return [
    ...inputCheckLauncher(held),
    ...launcherOf(net),
    ENV,
    `--ignore-signal=${STOP_SIGNALS}`,
    ...bwrapCommand(bwrap, task, net.network, true, null, user, new Map(held.map((h) => [h.dest, h.fd]))),
  ];
}

/** What runs before bwrap: the outbound network's launcher, or nothing. */
function launcherOf(net: NetworkPlan): string[] {
  if (net.network !== 'outbound') return [];
  if (!net.launcher) throw new Error('An outbound task network needs its launcher.');
  return net.launcher;
}

/**
 * The same sandbox, for a wrapper that execs bwrap with the stop signals ignored already
 * (wrapper.ts, EXEC_WRAPPER_SCRIPT): bwrap reports the task's exit status as JSON on statusFd.
 * The status is written only once the task's program started: a sandbox that could not be set up
 * reports none (bwrap's own exit status and message tell, in the log). Without --die-with-parent:
 * bwrap's parent is then the spawner, which ends with the server, and a restart must not kill the
 * tasks. A stop still reaches every process of the sandbox: they stay in the wrapper's process
 * group (and its cgroups), which stops signal and the settling of an ended task clears.
 *
 * etc: a copy of the /etc entries on this host (etc-snapshot.ts), bound in one mount; null binds
 * each entry. A task that binds a path under /etc (e.g. /etc/java-17-openjdk) gets each entry
 * bound: the copy is read-only and has no mount point for it. Inputs the server holds open are bound
 * from the fds the spawner hands on (heldInputs): this host's tasks only.
 */
export function bwrapStatusArgv(
  bwrap: string,
  task: TaskSpec,
  net: NetworkPlan,
  statusFd: number,
  etc: EtcView | null = null,
  user: HostUser = null,
): string[] {
  const [program, ...rest] = bwrapCommand(bwrap, task, net.network, false, etc, user, new Map(heldInputs(task).map((h) => [h.dest, h.fd])));
  return [...launcherOf(net), program, '--json-status-fd', String(statusFd), ...rest];
}

/** bwrap, its options and the task's argv: the sandbox of bwrapArgv, without the signals' set-up before it. */
function bwrapCommand(
  bwrap: string,
  task: TaskSpec,
  network: TaskNetwork,
  dieWithParent: boolean,
  etc: EtcView | null,
  user: HostUser,
  heldFds: Map<string, number>,
): string[] {
  // env would read a NAME=VALUE first word as a variable, not as the program.
  if (!task.argv[0] || task.argv[0].includes('=')) throw new Error(`Not a program name: ${JSON.stringify(task.argv[0])}`);
  if (task.image && !task.image.run) throw new Error(`The image ${task.image.name} was not pulled before the task's launch.`);
  const image = task.image?.run ?? null;
  // In an image the task's PATH is the image's: nothing of the host's is bound for it.
  const readable = [...(image ? [] : pathDirs(task)), ...(task.readable ?? [])];
  const writable = [task.cwd, ...(task.writable ?? [])];
  // The copy of /etc is read-only and has no mount point for a bind under it: then each entry is bound.
  // An outbound task's resolv.conf is mounted over the copy's, which must have one (a mount point).
  const etcCopy =
    etc &&
    ![...readable, ...writable].some((p) => /^\/etc(\/|$)/.test(path.resolve(p))) &&
    (network !== 'outbound' || existsSync(path.join(etc.dir, 'resolv.conf')))
      ? etc
      : null;
  return [
    bwrap,
    ...(dieWithParent ? ['--die-with-parent'] : []),
    ...userArgs(user, image),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(network === 'none' ? ['--unshare-net'] : []),
    ...(image ? imageRootArgs(image.rootfs, [...readable, ...writable]) : systemArgs(etcCopy, user)),
    ...(image && network === 'host' ? HOST_NAME_FILES : []),
    ...(network === 'outbound' ? OUTBOUND_BWRAP_OPTIONS : []),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    // Sticky and writable by all, as on a host: a task of a host user is not the owner of what bwrap makes.
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    '--perms',
    '1777',
    '--tmpfs',
    '/var/tmp',
    ...openParents(user, [...readable, ...writable]),
    ...bindArgs(readable, writable, heldFds),
    // The root that bwrap builds (the folders leading to the binds) is read-only too: nothing is written outside the binds and /tmp.
    '--remount-ro',
    '/',
    '--chdir',
    task.cwd,
    // The image's variables (ImageRun.env), set in the sandbox only: last, so that they win over what came before.
    ...Object.entries(image?.env ?? {}).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    ...entryArgs(user, image),
    ...task.argv,
  ];
}
