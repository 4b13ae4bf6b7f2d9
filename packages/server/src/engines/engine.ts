import type { Selectable } from 'kysely';
import type { Config } from '../config.js';
import type { TaskSpec } from '../executors/executor.js';
import type { JobPaths } from '../scheduler/job-paths.js';
import type { WorkflowTable } from '../store/schema.js';
import type { JobRow } from '../store/rows.js';
import type { JobInputs } from '../staging/inputs.js';

export type WorkflowRow = Selectable<WorkflowTable>;

/** The WDL engines Runyard drives: each turns a WDL job into one task an executor runs. */
export const WDL_DRIVERS = ['toil', 'cromwell', 'miniwdl'] as const;
export type WdlDriverName = (typeof WDL_DRIVERS)[number];

/** What the scheduler knows of a workspace's engine server when it prepares a WDL job (engine_servers row). */
export interface EngineServerInfo {
  id: string;
  driver: WdlDriverName;
  /** The base URL of the workspace's Cromwell server (cromwell driver); null for drivers without a server. */
  url: string | null;
  /** A Cromwell server that Runyard runs (engines/wdl/cromwell-server.ts), in <dataDir>/engine-servers/<workspace>. */
  managed: boolean;
}

// Both live below engines, so that staging can use them too.
export { EngineError } from '../errors/engine-error.js';
export type { JobRow } from '../store/rows.js';
// The job's paths, for the engines' modules (job-paths.ts sits in the scheduler's folder, above engines).
export { failureFileOf, isResumedWorkDir, type JobPaths } from '../scheduler/job-paths.js';

/**
 * Turns a job of one workflow type into the task an executor runs: argv, environment, working
 * directory and log file. prepare may write files the task needs (a params file, the workflow's
 * sources), only under the job's paths. `inputs` are the job's staged File Explorer inputs
 * (staging/inputs.ts); without them data items are not passed and glob patterns are passed as text.
 */
export interface Engine {
  prepare(
    job: JobRow,
    workflow: WorkflowRow,
    paths: JobPaths,
    config: Config,
    inputs?: JobInputs,
    /** WDL jobs: the workspace's engine server (its driver, its URL). */
    server?: EngineServerInfo | null,
  ): Promise<TaskSpec>;
}
