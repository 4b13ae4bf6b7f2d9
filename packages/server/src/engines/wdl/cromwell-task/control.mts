import { readFile } from 'node:fs/promises';

/**
 * What the Cromwell driver (../cromwell.ts) hands its task, in a file of the job's control
 * directory (mode 0600) that RUNYARD_CROMWELL_CONTROL names: nothing of it is on the command line.
 * Files are ESM (.mts → .mjs) so that the task runs without the package's package.json, which
 * its sandbox does not show.
 */
export interface CromwellControl {
  /** Base URL of the Cromwell server (may hold user:password, sent as Basic authentication). */
  url: string;
  jobId: string;
  attempt: number;
  /** The main .wdl file (workflowSource). */
  workflowSource: string;
  /** The inputs JSON (workflowInputs). */
  workflowInputs: string;
  /** The imports zip (workflowDependencies), when the workflow has one. */
  workflowDependencies: string | null;
  /** Take finished calls from Cromwell's call cache (workflowOptions read_from_cache). */
  resume: boolean;
  /**
   * A Cromwell server that Runyard runs (cromwell-server.ts: call caching on); else the operator's,
   * where a resume takes calls from the cache only if call-caching.enabled is set there.
   */
  managedServer: boolean;
  /**
   * Where the workflow's log is asked for at its end (workflow option final_workflow_log_dir:
   * `<root>/<dir>`), to be copied into the job's logs as engine.log: `root`, a directory shown to
   * the task read-only that Cromwell's calls cannot replace (what holds it is not theirs), and
   * `dir`, a folder below it (relative), which they can. Read below root without following a link
   * (engine-log.mts). null: the task cannot read where Cromwell keeps it (a server Runyard does not
   * run), and the job's log says where that is.
   */
  workflowLog: { root: string; dir: string } | null;
  /** A directory the task writes: the id of the workflow it submitted (workflow.json), kept across attempts. */
  stateDir: string;
  /** Where each call's stdout and stderr are copied. */
  logs: string;
  /** Where the workflow's outputs are copied (File outputs, outputs.json). */
  results: string;
  /** Written on failure: one paragraph that says why. */
  failureFile: string;
  /** Milliseconds between two status requests. */
  pollMs: number;
  /** Milliseconds to wait, once stopped, for Cromwell to say the workflow is Aborted. */
  abortWaitMs: number;
}

export const CONTROL_ENV = 'RUNYARD_CROMWELL_CONTROL';
/** Overrides of pollMs and abortWaitMs (tests). */
export const POLL_ENV = 'RUNYARD_CROMWELL_POLL_MS';
export const ABORT_WAIT_ENV = 'RUNYARD_CROMWELL_ABORT_WAIT_MS';

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** The control file the environment names, with the environment's overrides. */
export async function readControl(env: NodeJS.ProcessEnv): Promise<CromwellControl> {
  const file = env[CONTROL_ENV];
  if (!file) throw new Error(`${CONTROL_ENV} is not set: this program is started by Runyard's Cromwell driver.`);
  const control = JSON.parse(await readFile(file, 'utf8')) as CromwellControl;
  return {
    ...control,
    pollMs: positive(env[POLL_ENV], control.pollMs),
    abortWaitMs: positive(env[ABORT_WAIT_ENV], control.abortWaitMs),
  };
}
