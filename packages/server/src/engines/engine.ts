import type { Selectable } from 'kysely';
import type { Config } from '../config.js';
import type { TaskSpec } from '../executors/executor.js';
import type { JobPaths } from '../scheduler/job-paths.js';
import type { JobTable, WorkflowTable } from '../store/schema.js';
import type { JobInputs } from './inputs.js';

export type JobRow = Selectable<JobTable>;
export type WorkflowRow = Selectable<WorkflowTable>;

/** A problem with the job itself (no command, no nextflow, a bad image name): the job fails with this message. */
export class EngineError extends Error {
  override name = 'EngineError';
}

/**
 * Turns a job of one workflow type into the task an executor runs: argv, environment, working
 * directory and log file. prepare may write files the task needs (a params file, the workflow's
 * sources), only under the job's paths. `inputs` are the job's staged File Explorer inputs
 * (engines/inputs.ts); without them data items are not passed and glob patterns are passed as text.
 */
export interface Engine {
  prepare(job: JobRow, workflow: WorkflowRow, paths: JobPaths, config: Config, inputs?: JobInputs): Promise<TaskSpec>;
}
