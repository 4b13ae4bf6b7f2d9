import type { TaskNetwork } from '../config.js';
import type { ArrayRun } from './array-run.js';

/** What an engine asks an executor to run: a process, never a shell string built from parameters. */
export interface TaskSpec {
  /**
   * argv[0] is the program. Any local user can read a process's argv (/proc/<pid>/cmdline), so
   * parameter values go in env (readable by the task's user only), never here nor into shell text.
   */
  argv: string[];
  /** The whole environment of the task (nothing is inherited implicitly). */
  env: Record<string, string>;
  cwd: string;
  /** stdout and stderr of the task are appended here as they come. */
  logFile: string;
  /** Directories the task writes besides cwd (its results, logs), or files made before the launch; a sandbox hides everything else. */
  writable?: string[];
  /** Files and directories the task reads but never writes (its staged inputs, sources). */
  readable?: string[];
  /** Lines written to the log file before the task starts (e.g. "this job runs on the host"). */
  preamble?: string[];
  /**
   * What the task is given of the machine, enforced by the executor (cgroups locally); none: unlimited.
   * For an array task, what each of its runs is given.
   */
  resources?: { cpus: number; memoryGiB: number; pids?: number };
  /**
   * An array task: argv runs once per row, each run with its row's variables added to env, at most
   * `limit` at once (array-run.ts: the array directory's layout, and how each executor runs it).
   */
  array?: ArrayRun;
  /**
   * argv that stops what the task started outside its own process tree (a container outlives the
   * kill of its runtime's CLI). The executor runs it, without a shell, when it kills the task and
   * when it finds the task ended; it is kept with the task's id (a later server process runs it
   * too), so it must hold no secret.
   */
  stop?: string[];
  /**
   * argv that tells, after the task ended and before `stop` runs, whether what it started outside
   * its process tree was killed for passing its memory limit: it prints `true` then (a container's
   * `inspect --format {{.State.OOMKilled}}`). Kept with the id as `stop` is; must hold no secret.
   */
  oomProbe?: string[];
  /**
   * Who confines the task: the executor's sandbox (the default), or a container runtime whose CLI
   * is the task's program and which confines the job itself (limits, mounts, network: see
   * engines/container.ts). The CLI then runs outside the sandbox, which would hide the runtime's
   * socket from it; its argv is the engine's own, with no user text but in the container.
   */
  confinement?: 'sandbox' | 'container';
  /** What the task may reach (config.ts TaskNetwork: outbound, none, host); none given: the executor's setting. */
  network?: TaskNetwork;
  /**
   * A TCP port the task listens on that the server reaches at 127.0.0.1:forwardPort (a free port of
   * the host): forwarded into the task's own network namespace, where it must listen on all
   * addresses (sandbox.ts listensInOwnNamespace says which); on the host's network it is the host's
   * port. The local executor only.
   */
  forwardPort?: number;
  /**
   * For some of `readable` (by the path given): `/proc/<server pid>/fd/<n>`, a handle the server
   * opened when it checked the file and holds until the task ends. The local executor hands it to
   * bwrap as a descriptor (sandbox/bwrap.ts heldInputs), so a task that changes the path meanwhile
   * (a link swapped in on the way) changes nothing. Executors whose tasks run on other machines
   * bind by path.
   */
  bindSources?: Record<string, string>;
  /** Which of the executor's clusters runs the task, and in which of its pools (a Slurm partition; none: its default). */
  placement?: { cluster: string; partition?: string };
  /** How long the task may run, where a limit is known (a batch system's time limit); none: no limit. */
  timeLimitSeconds?: number;
  /**
   * The image the task runs in: the engine names it, the scheduler pulls it before the launch
   * (images/image-cache.ts) and fills `run`. The sandbox makes its unpacked root filesystem the
   * task's root, read-only (sandbox/image-root.ts); in a user namespace the task is the image's user.
   */
  image?: { name: string; run?: ImageRun };
}

/** A pulled image, as the sandbox runs a task in it. */
export interface ImageRun {
  digest: string;
  /** Its unpacked root filesystem in the image cache (shared, read-only). */
  rootfs: string;
  /** The image's user, resolved from its /etc/passwd; null: root (inside the task's user namespace). */
  uid: number | null;
  gid: number | null;
  /**
   * Variables the sandbox sets for the task over its own env (the image's Env, its PATH): an
   * image's config is its pusher's text, so they never reach what runs before the sandbox (as root
   * on a root server: an LD_PRELOAD, a BASH_ENV), only the task, through bwrap's --setenv. Not
   * secret: whoever pulls the image reads them.
   */
  env?: Record<string, string>;
}

/** Where an attempt keeps its control files (pid, exit code), outside the job's storage. */
export interface AttemptControl {
  dir: string;
  attempt: number;
}

/** The executor's id of a launched task, stored before the job is reported running. */
export interface ExternalId {
  backend: string;
  /** Backend-specific identity; for local processes pid and kernel start time. */
  [key: string]: unknown;
}

/**
 * What an executor knows of a task:
 *   running - it is still running (id: its identity, found from the control files when none was stored);
 *   exited  - it ended and recorded its exit code (message: what else ended it, e.g. a batch system's time limit);
 *   lost    - it started but vanished without an exit code (killed, machine restarted);
 *   absent  - there is no trace that it ever started.
 * outOfMemory: it was killed for passing its memory limit (TaskSpec.resources).
 * limits: what the kernel counted against its limits while it ran, where the executor can tell
 * (a child killed for its memory while the task itself went on, forks refused at its process limit).
 */
export type TaskState =
  | { state: 'running'; id: ExternalId }
  | { state: 'exited'; exitCode: number; outOfMemory?: true; message?: string; limits?: LimitCounts }
  | { state: 'lost'; reason: string; outOfMemory?: true; limits?: LimitCounts }
  | { state: 'absent' };

/** Counts of what a task's limits stopped (executors/sandbox/cgroup.ts LimitEvents). */
export interface LimitCounts {
  oomKills: number;
  forksRefused: number;
  /** The process limit the refused forks met. */
  pidsLimit?: number;
}

/** Settled states: what wait() answers. */
export type TaskEnd = Extract<TaskState, { state: 'exited' | 'lost' }>;

export interface KillOptions {
  /** SIGKILL at once instead of SIGTERM first. */
  force: boolean;
  /** Milliseconds between SIGTERM and SIGKILL when not forced. */
  graceMs: number;
}

/**
 * Runs tasks somewhere (local processes now; Slurm, AWS Batch, Kubernetes later). Launching
 * returns an id that survives a server restart, so the scheduler can reattach instead of
 * launching twice. Concurrency limits are the scheduler's business, not the executor's.
 */
export interface Executor {
  readonly backend: string;
  launch(task: TaskSpec, control: AttemptControl): Promise<ExternalId>;
  /**
   * Resolves once a launched task runs, or has ended: an executor that queues tasks (a batch
   * system) has it; one whose tasks run at once does not. Rejects when signal aborts.
   */
  started?(control: AttemptControl, id: ExternalId, signal?: AbortSignal): Promise<void>;
  /** State of a task from a previous process life, by its id or, when none was stored, its control files. */
  inspect(control: AttemptControl, id: ExternalId | null): Promise<TaskState>;
  /** Resolves when the task ends (polls when the task is not a child of this process); rejects when signal aborts. */
  wait(control: AttemptControl, id: ExternalId, signal?: AbortSignal): Promise<TaskEnd>;
  /** Stops the task and everything it started; resolves when none of it is left. */
  kill(id: ExternalId, options: KillOptions): Promise<void>;
  /**
   * What follows a task's end that its outcome need not wait for (the local executor: removing its
   * cgroups, which the kernel holds for a millisecond or two while the sandbox's last process exits);
   * the runner awaits it after the outcome is recorded. Rejects with why it could not be done.
   */
  cleanup?(control: AttemptControl): Promise<void>;
  /** Resolves when every clean-up under way has ended, however it ended (the scheduler stops: no retry is cut short). */
  drain?(): Promise<void>;
}
