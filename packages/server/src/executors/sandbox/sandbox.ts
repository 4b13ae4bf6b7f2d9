import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config, TaskNetwork } from '../../config.js';
import type { TaskSpec } from '../executor.js';
import { findOnPath } from '../find-executable.js';
import { chownTreeBeneath } from '../../storage/beneath.js';
import { isPathInside } from '../../storage/local.js';
import { bwrapArgv, bwrapStatusArgv, ETC_ENTRIES, TASK_ID, type HostUser, type NetworkPlan } from './bwrap.js';
import { EtcSnapshot } from './etc-snapshot.js';
import { findOutboundTools, hostAddressWords, outboundLauncher, outboundUnavailable } from './task-network.js';
import { addHostForward, forwardSocketOf } from './slirp-api.js';
import { joinLauncher, NetworkPool, type NetworkGroups } from './network-pool.js';

/** How the local executor confines a task (RUNYARD_SANDBOX). */
export interface Sandbox {
  readonly kind: 'bwrap' | 'none';
  /** The argv that runs the task under this sandbox (in a pooled namespace when given one: this host's tasks only). */
  argv(task: TaskSpec, lease?: NetworkLease | null): string[];
  /**
   * Where the sandbox can report the task's exit status itself (bwrap): the argv that runs it so,
   * its status as JSON lines on statusFd, for a wrapper that execs it (wrapper.ts).
   */
  statusArgv?(task: TaskSpec, statusFd: number, lease?: NetworkLease | null): string[];
  /**
   * A ready network namespace for a task of this host (its outbound network, network-pool.ts), to
   * pass to statusArgv; null where the task makes its own (a port the server reaches, or a pool
   * that could not make one: the task's own launcher then says why, in its log).
   */
  lease?(task: TaskSpec): Promise<NetworkLease | null>;
  /** A line for the job's log about how the task runs, when there is something to say. */
  readonly note: string | null;
  /**
   * Before the task starts (tasks of a root server run as a host user): gives it its own directories
   * (cwd, writable) and what it reads inside the data directory, without following links.
   */
  prepare?(task: TaskSpec): Promise<void>;
  /**
   * Once a task with a forwardPort has started: makes that port of its namespace reachable on the
   * host's 127.0.0.1 (slirp-api.ts). Absent where the task shares the host's network (it listens on
   * the host's loopback itself). ended: the task's end, which stops the wait.
   */
  forward?(task: TaskSpec, ended: Promise<unknown>): Promise<void>;
}

/** A pooled namespace held for one task: joined by its launcher, given back once the task ended. */
export interface NetworkLease {
  /** The argv before bwrap's that joins it. */
  readonly launcher: string[];
  /** Its slirp4netns, which the task's limits count while it has it. */
  readonly slirp: number;
  /** intact: the task's end was seen (nothing of it is left), so the namespace serves the next one. */
  release(intact: boolean): void;
}

export type SandboxSettings = Pick<Config, 'sandbox' | 'taskNetwork' | 'taskPath'> &
  Partial<Pick<Config, 'taskUid' | 'taskGid' | 'dataDir'>>;

/** Why the server cannot confine tasks as configured: it refuses to start rather than run them on the host. */
export class SandboxError extends Error {}

export const UNCONFINED_NOTE =
  "Runyard: this task runs unconfined (RUNYARD_SANDBOX=none): it can read and change everything the server's user can.";

/** The warning of every start without a sandbox. */
/** The warning of every start while tasks may use the host's network: the setting, or the queues that choose it. */
export function hostNetworkWarning(defaultNetwork: TaskNetwork, hostQueues: string[]): string | null {
  const users = [
    ...(defaultNetwork === 'host' ? ['RUNYARD_TASK_NETWORK=host'] : []),
    ...(hostQueues.length ? [`the queue${hostQueues.length > 1 ? 's' : ''} ${hostQueues.join(', ')}`] : []),
  ];
  if (!users.length) return null;
  return (
    `Warning: ${users.join(' and ')} give${users.length > 1 || hostQueues.length > 1 ? '' : 's'} job tasks the host's network: ` +
    "they reach every service on this machine's loopback (this server's API, its database) and on its private network."
  );
}

/** Said at every start while RUNYARD_TASK_UID or RUNYARD_TASK_GID is set and has no effect (a server not run as root, or no sandbox). */
export function taskUserNote(env: NodeJS.ProcessEnv, settings: Pick<SandboxSettings, 'sandbox' | 'taskUid' | 'taskGid'>): string | null {
  const set = ['RUNYARD_TASK_UID', 'RUNYARD_TASK_GID'].filter((name) => env[name] !== undefined);
  if (!set.length || taskHostUser(settings)) return null;
  const why = settings.sandbox !== 'bwrap' ? 'RUNYARD_SANDBOX is not bwrap' : 'this server does not run as root';
  return (
    `Note: ${set.join(' and ')} ${set.length > 1 ? 'have' : 'has'} no effect here (${why}): ` +
    `job tasks run as this server's user (uid ${process.getuid?.() ?? '?'}).`
  );
}

export const UNCONFINED_WARNING =
  "Warning: RUNYARD_SANDBOX=none: job tasks run unconfined, as the server's user, and can read the database, keys and every workspace's data.";

/**
 * The sandbox of the settings; a missing bwrap is an error, never a silent fallback to the host.
 * etcCopies: a folder of the server's where this host's tasks get their /etc as one copy
 * (etc-snapshot.ts) rather than one bind per entry; only for statusArgv, which runs tasks on this
 * host (argv serves the Slurm executor too, whose tasks run on other hosts with /etc of their own).
 * netFifos: a folder of the server's for the FIFOs that start a local task's outbound network
 * (task-network.ts); a Slurm node's task makes them in its $TMPDIR. Given, local tasks join ready
 * namespaces of a pool (network-pool.ts), whose slirp4netns get groups of networkGroups.
 */
export function createSandbox(
  settings: SandboxSettings,
  etcCopies?: string,
  netFifos = '',
  networkGroups: NetworkGroups | null = null,
): Sandbox {
  if (settings.sandbox === 'none') return { kind: 'none', argv: (task) => task.argv, note: UNCONFINED_NOTE };
  const bwrap = findOnPath('bwrap', settings.taskPath);
  if (!bwrap) {
    throw new SandboxError(
      'RUNYARD_SANDBOX=bwrap, but bwrap (bubblewrap) is not on the task PATH: install bubblewrap, ' +
        'or set RUNYARD_SANDBOX=none to run job tasks unconfined.',
    );
  }
  const tools = findOutboundTools(settings.taskPath);
  // The default network must work: a queue's outbound network without the tools fails its tasks with the same message.
  if (settings.taskNetwork === 'outbound' && typeof tools === 'string') throw new SandboxError(tools);
  const tun = settings.taskNetwork === 'outbound' ? outboundUnavailable() : null;
  if (tun) throw new SandboxError(tun);
  const plan = (task: TaskSpec, fifos: string): NetworkPlan => {
    const network = networkOf(task, settings);
    if (network !== 'outbound') return { network, launcher: null };
    if (typeof tools === 'string') throw new Error(tools);
    let forward = null;
    if (task.forwardPort !== undefined) {
      if (!fifos) throw new Error('A task whose port the server reaches runs on the local executor only.');
      forward = { apiSocket: forwardSocketOf(fifos, task.forwardPort), closed: (task.network ?? settings.taskNetwork) === 'none' };
    }
    // On this host, its addresses as the server sees them now (one process less per task); on a cluster's node, ip's.
    return { network, launcher: outboundLauncher(tools, fifos, fifos ? hostAddressWords() : '', forward) };
  };
  const pooled = (lease: NetworkLease): NetworkPlan => ({ network: 'outbound', launcher: lease.launcher });
  const etc = etcCopies ? new EtcSnapshot(etcCopies, ETC_ENTRIES) : null;
  const user = taskHostUser(settings);
  let fifos = '';
  // Made at the first local task: the server makes its data directory (private) after checking its settings.
  const localFifos = () => (fifos ||= netFifos && (mkdirSync(netFifos, { recursive: true, mode: 0o700 }), netFifos));
  const pool = netFifos && typeof tools !== 'string' && !tun ? new NetworkPool(tools, localFifos, settings.taskPath, networkGroups) : null;
  return {
    kind: 'bwrap',
    argv: (task, lease) => bwrapArgv(bwrap, task, lease ? pooled(lease) : plan(task, ''), user),
    statusArgv: (task, statusFd, lease) =>
      bwrapStatusArgv(bwrap, task, lease ? pooled(lease) : plan(task, localFifos()), statusFd, etc?.view() ?? null, user),
    lease: async (task) => {
      if (!pool || typeof tools === 'string' || task.forwardPort !== undefined || networkOf(task, settings) !== 'outbound') return null;
      let member;
      try {
        member = await pool.acquire();
      } catch {
        return null;
      }
      let released = false;
      return {
        launcher: joinLauncher(tools.nsenter, member, process.getuid?.() === 0),
        slirp: member.slirp,
        release: (intact) => {
          if (released) return;
          released = true;
          pool.release(member, intact);
        },
      };
    },
    note: null,
    ...(user && { prepare: (task: TaskSpec) => giveTaskItsFiles(task, user, settings.dataDir) }),
    forward: async (task, ended) => {
      if (task.forwardPort === undefined || networkOf(task, settings) !== 'outbound') return;
      await addHostForward(forwardSocketOf(localFifos(), task.forwardPort), task.forwardPort, ended);
    },
  };
}

/**
 * The network a task gets: its own or the executor's setting; a `none` task whose port the server
 * reaches (forwardPort) gets a namespace of its own with that port forwarded and nothing else out
 * (task-network.ts taskRules, closed).
 */
function networkOf(task: TaskSpec, settings: Pick<SandboxSettings, 'taskNetwork'>): TaskNetwork {
  const network = task.network ?? settings.taskNetwork;
  return network === 'none' && task.forwardPort !== undefined ? 'outbound' : network;
}

/**
 * Whether a task of these settings that listens on a port for the server (forwardPort) must listen
 * on all addresses of its own namespace (where slirp4netns's forward reaches it) rather than on
 * 127.0.0.1, which is then the host's loopback (no sandbox, or the host's network).
 */
export function listensInOwnNamespace(settings: Pick<SandboxSettings, 'sandbox' | 'taskNetwork'>, network?: TaskNetwork): boolean {
  return settings.sandbox === 'bwrap' && (network ?? settings.taskNetwork) !== 'host';
}

/**
 * What a task of a host user must own: its working and writable directories, wherever they are,
 * and what it reads inside the data directory (sources, parameters, staged inputs: written 0600 by
 * the server); the rest of the data directory stays root's, and the directory itself 0700.
 */
async function giveTaskItsFiles(task: TaskSpec, user: { uid: number; gid: number }, dataDir: string | undefined): Promise<void> {
  const data = dataDir && path.resolve(dataDir);
  const own = [task.cwd, ...(task.writable ?? [])];
  const inside = data ? (task.readable ?? []).filter((p) => isPathInside(data, path.resolve(p))) : [];
  for (const p of new Set([...own, ...inside].map((p) => path.resolve(p)))) {
    // Reached from the data directory one name at a time, no link followed (a job's tree may hold the
    // file, and that job's task could swap a directory on the way for a link); elsewhere from its parent.
    if (data && isPathInside(data, p) && p !== data) await chownTreeBeneath(data, path.relative(data, p), user.uid, user.gid);
    else await chownTreeBeneath(path.dirname(p), path.basename(p), user.uid, user.gid);
  }
}

/** The host user a root server's confined tasks run as (never root outside their sandbox); null when they run as the server's uid. */
export function taskHostUser(settings: Pick<SandboxSettings, 'sandbox' | 'taskUid' | 'taskGid'>): HostUser {
  if (settings.sandbox !== 'bwrap' || process.getuid?.() !== 0) return null;
  return { uid: settings.taskUid ?? TASK_ID, gid: settings.taskGid ?? TASK_ID };
}

/** The default of an executor built without settings: confined, outbound network, bwrap from the system's PATH. */
export function defaultSandbox(): Sandbox {
  return createSandbox({ sandbox: 'bwrap', taskNetwork: 'outbound', taskPath: '/usr/local/bin:/usr/bin:/bin' });
}
