import type { Config } from '../../config.js';
import type { TaskSpec } from '../executor.js';
import { findOnPath } from '../find-executable.js';
import { bwrapArgv, bwrapStatusArgv, ETC_ENTRIES } from './bwrap.js';
import { EtcSnapshot } from './etc-snapshot.js';

/** How the local executor confines a task (RUNYARD_SANDBOX). */
export interface Sandbox {
  readonly kind: 'bwrap' | 'none';
  /** The argv that runs the task under this sandbox. */
  argv(task: TaskSpec): string[];
  /**
   * Where the sandbox can report the task's exit status itself (bwrap): the argv that runs it so,
   * its status as JSON lines on statusFd, for a wrapper that execs it (wrapper.ts).
   */
  statusArgv?(task: TaskSpec, statusFd: number): string[];
  /** A line for the job's log about how the task runs, when there is something to say. */
  readonly note: string | null;
}

export type SandboxSettings = Pick<Config, 'sandbox' | 'taskNetwork' | 'taskPath'>;

/** Why the server cannot confine tasks as configured: it refuses to start rather than run them on the host. */
export class SandboxError extends Error {}

export const UNCONFINED_NOTE =
  "Runyard: this task runs unconfined (RUNYARD_SANDBOX=none): it can read and change everything the server's user can.";

/** The warning of every start without a sandbox. */
export const UNCONFINED_WARNING =
  "Warning: RUNYARD_SANDBOX=none: job tasks run unconfined, as the server's user, and can read the database, keys and every workspace's data.";

/**
 * The sandbox of the settings; a missing bwrap is an error, never a silent fallback to the host.
 * etcCopies: a folder of the server's where this host's tasks get their /etc as one copy
 * (etc-snapshot.ts) rather than one bind per entry; only for statusArgv, which runs tasks on this
 * host (argv serves the Slurm executor too, whose tasks run on other hosts with /etc of their own).
 */
export function createSandbox(settings: SandboxSettings, etcCopies?: string): Sandbox {
  if (settings.sandbox === 'none') return { kind: 'none', argv: (task) => task.argv, note: UNCONFINED_NOTE };
  const bwrap = findOnPath('bwrap', settings.taskPath);
  if (!bwrap) {
    throw new SandboxError(
      'RUNYARD_SANDBOX=bwrap, but bwrap (bubblewrap) is not on the task PATH: install bubblewrap, ' +
        'or set RUNYARD_SANDBOX=none to run job tasks unconfined.',
    );
  }
  const network = (task: TaskSpec) => task.network ?? settings.taskNetwork;
  const etc = etcCopies ? new EtcSnapshot(etcCopies, ETC_ENTRIES) : null;
  return {
    kind: 'bwrap',
    argv: (task) => bwrapArgv(bwrap, task, network(task)),
    statusArgv: (task, statusFd) => bwrapStatusArgv(bwrap, task, network(task), statusFd, etc?.view() ?? null),
    note: null,
  };
}

/** The default of an executor built without settings: confined, host network, bwrap from the system's PATH. */
export function defaultSandbox(): Sandbox {
  return createSandbox({ sandbox: 'bwrap', taskNetwork: 'host', taskPath: '/usr/local/bin:/usr/bin:/bin' });
}
