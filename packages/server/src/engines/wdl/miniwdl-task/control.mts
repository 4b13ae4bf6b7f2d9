import { readFile } from 'node:fs/promises';

/**
 * What the miniwdl driver (../miniwdl.ts) hands its task, in a file of the job's control
 * directory (mode 0600) that RUNYARD_MINIWDL_CONTROL names: nothing of it is on the command line.
 * Files are ESM (.mts → .mjs) so that the task runs without the package's package.json, which
 * its sandbox does not show.
 */
export interface MiniwdlControl {
  jobId: string;
  attempt: number;
  /** The main .wdl file. */
  mainFile: string;
  /** The imports zip, when the workflow has one: unpacked beside a copy of the main file. */
  importsFile: string | null;
  /** The inputs JSON (`miniwdl run -i`). */
  inputsFile: string;
  /** Take the calls that finished from miniwdl's call cache. */
  resume: boolean;
  /** The job's work directory: the runs, their sources and the call cache are in <work>/runyard-miniwdl. */
  work: string;
  /** Where each call's stdout and stderr are copied. */
  logs: string;
  /** Where the workflow's outputs are copied (File outputs, outputs.json). */
  results: string;
  /** Written on failure (while it is empty): one paragraph that says why. */
  failureFile: string;
  /** Milliseconds miniwdl has, once stopped, to stop its calls before it is killed. */
  stopWaitMs: number;
}

export const CONTROL_ENV = 'RUNYARD_MINIWDL_CONTROL';
/** Override of stopWaitMs (tests). */
export const STOP_WAIT_ENV = 'RUNYARD_MINIWDL_STOP_WAIT_MS';

/** The control file the environment names, with the environment's overrides. */
export async function readControl(env: NodeJS.ProcessEnv): Promise<MiniwdlControl> {
  const file = env[CONTROL_ENV];
  if (!file) throw new Error(`${CONTROL_ENV} is not set: this program is started by Runyard's miniwdl driver.`);
  const control = JSON.parse(await readFile(file, 'utf8')) as MiniwdlControl;
  const wait = Number(env[STOP_WAIT_ENV]);
  return { ...control, stopWaitMs: env[STOP_WAIT_ENV] && Number.isFinite(wait) && wait >= 0 ? wait : control.stopWaitMs };
}
