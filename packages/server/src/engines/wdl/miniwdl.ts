import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskSpec } from '../../executors/executor.js';
import { findOnPath } from '../../executors/find-executable.js';
import { EngineError } from '../engine.js';
import { baseTaskEnv, stdoutFileOf } from '../task-env.js';
import { WDL_TASK_SHARED_DIR, type WdlDriver, type WdlRun } from './driver.js';
import { CONTROL_ENV, type MiniwdlControl } from './miniwdl-task/control.mjs';

// The compiled task beside this file. Tests load the sources (through tsx): the task is the build's.
export const MINIWDL_TASK = fileURLToPath(new URL('./miniwdl-task/main.mjs', import.meta.url)).replace(
  /\/src\/engines\/wdl\/miniwdl-task\/main\.mjs$/,
  '/dist/engines/wdl/miniwdl-task/main.mjs',
);

/** Where the job's miniwdl runs, their sources and miniwdl's call cache are: in the work directory, which a resumed job shares. */
export function miniwdlHome(run: Pick<WdlRun, 'paths'>): string {
  return path.join(run.paths.work, 'runyard-miniwdl');
}

/**
 * miniwdl: each WDL job runs `miniwdl run` as its task, through the job's executor, as toil does.
 * The task is a small Node program (miniwdl-task/main.mts) that runs miniwdl in a directory of the
 * job's work directory with call caching on (its cache there too, so that a resumed job takes the
 * calls that finished from it), passes a stop on to miniwdl, and copies the calls' logs and the
 * outputs into the job's folders. What it needs is in a control file (mode 0600), never on its
 * command line.
 */
export const miniwdlDriver: WdlDriver = {
  name: 'miniwdl',
  async task(run: WdlRun): Promise<TaskSpec> {
    const program = findOnPath('miniwdl', run.config.taskPath);
    if (!program)
      throw new EngineError(
        'miniwdl was not found on the task PATH (RUNYARD_TASK_PATH): the operator installs it (pip install miniwdl), or chooses another driver with `runyard admin workspace set-engine`.',
      );
    const { job, paths } = run;
    const control: MiniwdlControl = {
      jobId: job.id,
      attempt: job.attempt,
      mainFile: run.mainFile,
      importsFile: run.importsFile,
      inputsFile: run.inputsFile,
      resume: run.resume,
      work: paths.work,
      logs: paths.logs,
      results: run.resultsDir,
      failureFile: run.failureFile,
      // Within the executor's grace between SIGTERM and SIGKILL, time left to copy the calls' logs.
      stopWaitMs: Math.max(1000, run.config.abortGraceMs - 2000),
    };
    const controlFile = path.join(paths.control, `miniwdl-${job.attempt}.json`);
    await writeFile(controlFile, JSON.stringify(control, null, 2), { mode: 0o600 });
    return {
      argv: [process.execPath, MINIWDL_TASK],
      env: { ...baseTaskEnv(job, paths, run.config), [CONTROL_ENV]: controlFile },
      cwd: paths.work,
      logFile: stdoutFileOf(paths),
      preamble: [...run.preamble, `Runyard: this WDL job runs ${program} (miniwdl run) in ${path.join(miniwdlHome(run), 'runs')}.`],
      readable: [path.dirname(MINIWDL_TASK), WDL_TASK_SHARED_DIR],
    };
  },
};
