import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.js';
import type { TaskSpec } from '../../executors/executor.js';
import type { JobInputs } from '../../staging/inputs.js';
import type { EngineServerInfo, JobPaths, JobRow, WdlDriverName, WorkflowRow } from '../engine.js';

// Declared with the Engine interface, which hands the server to the WDL engine.
export { WDL_DRIVERS, type EngineServerInfo, type WdlDriverName } from '../engine.js';

/** One WDL job's run, as the WDL engine hands it to a driver. */
export interface WdlRun {
  job: JobRow;
  workflow: WorkflowRow;
  paths: JobPaths;
  /**
   * Where the workflow's outputs go: `results/` of the job's results, as a Nextflow job's published
   * files do, where the clients look for a job's results (the first folder of its results).
   */
  resultsDir: string;
  config: Config;
  inputs: JobInputs | undefined;
  server: EngineServerInfo;
  /** The workflow's sources at the job's commit (a directory under paths.control). */
  src: string;
  /** Absolute path of the main .wdl file, inside src. */
  mainFile: string;
  /** Absolute path of the imports file (a zip of imported .wdl files), inside src, when the workflow names one. */
  importsFile: string | null;
  /** The workflow's inputs as the engine takes them (`{"hello.name": "world", "hello.times": 3}`), typed from its declarations. */
  inputsJson: Record<string, unknown>;
  /** Where the inputs JSON was written (paths.control, mode 0600). */
  inputsFile: string;
  /** The run picks up an earlier run's work: a resumed job (its parent's work directory), or a new attempt of a resumable job. */
  resume: boolean;
  /**
   * Where the task writes, on failure, one paragraph that says why (the failing call and its error):
   * the job's failure message (scheduler/settle.ts reads it).
   */
  failureFile: string;
  /** Lines for the job's log before the task starts. */
  preamble: string[];
}

export interface WdlDriver {
  readonly name: WdlDriverName;
  /** The task that runs the workflow to its end: outputs copied into resultsDir, each call's stdout/stderr into paths.logs. */
  task(run: WdlRun): Promise<TaskSpec>;
}

/** The modules the WDL task programs share (task-shared/), in the build: a task's sandbox must show it. */
export const WDL_TASK_SHARED_DIR = fileURLToPath(new URL('./task-shared/', import.meta.url))
  .replace(/\/src\/engines\/wdl\/task-shared\/$/, '/dist/engines/wdl/task-shared/')
  .replace(/\/$/, '');

/** The folder of a WDL job's results its outputs go to (WdlRun.resultsDir). */
export const WDL_RESULTS_FOLDER = 'results';
