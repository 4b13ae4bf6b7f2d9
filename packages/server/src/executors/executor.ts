/** What an engine asks an executor to run: a process, never a shell string built from parameters. */
export interface TaskSpec {
  /** argv[0] is the program; parameters are separate entries, never spliced into shell text. */
  argv: string[];
  /** The whole environment of the task (nothing is inherited implicitly). */
  env: Record<string, string>;
  cwd: string;
  /** stdout and stderr of the task are appended here as they come. */
  logFile: string;
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

export type TaskState = { state: 'running' } | { state: 'exited'; exitCode: number } | { state: 'lost'; reason: string };

/**
 * Runs tasks somewhere (local processes now; Slurm, AWS Batch, Kubernetes later). Launching
 * returns an id that survives a server restart, so the scheduler can reattach instead of
 * launching twice.
 */
export interface Executor {
  readonly backend: string;
  launch(task: TaskSpec, control: AttemptControl): Promise<ExternalId>;
  /** State of a task from a previous process life, by its id or its control files. */
  inspect(control: AttemptControl, id: ExternalId | null): Promise<TaskState>;
  /** Resolves with the exit code when the task ends (polls when the task is not our child). */
  wait(control: AttemptControl, id: ExternalId): Promise<TaskState>;
  /** Stops the task: SIGTERM to its process group (graceful), or SIGKILL when force. */
  kill(id: ExternalId, force: boolean): Promise<void>;
}
