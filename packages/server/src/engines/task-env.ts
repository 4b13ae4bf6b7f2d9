import type { Config } from '../config.js';
import type { JobPaths } from '../scheduler/job-paths.js';
import type { JobRow } from './engine.js';

/** The environment every task starts from: built from scratch, so nothing of the server's (keys, credentials) leaks in. */
export function baseTaskEnv(job: JobRow, paths: JobPaths, config: Config): Record<string, string> {
  return {
    PATH: config.taskPath,
    HOME: paths.work,
    RUNYARD_JOB_ID: job.id,
    RUNYARD_RESULTS_DIR: paths.results,
  };
}

/** Where a task's stdout and stderr go. */
export function stdoutFileOf(paths: JobPaths): string {
  return `${paths.logs}/stdout.txt`;
}
