import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskSpec } from '../../executors/executor.js';
import { findOnPath } from '../../executors/find-executable.js';
import { EngineError } from '../engine.js';
import { baseTaskEnv, stdoutFileOf } from '../task-env.js';
import type { WdlDriver, WdlRun } from './driver.js';

/** Runyard's launcher of toil's WDL compiler and its hooks (packages/server/toil/). */
export const TOIL_LAUNCHER_DIR = fileURLToPath(new URL('../../../toil/', import.meta.url));

/** The Python that has toil: the interpreter of the toil-wdl-runner found on the task PATH (its #! line). */
export function toilPython(taskPath: string): string {
  const runner = findOnPath('toil-wdl-runner', taskPath);
  if (!runner) throw new EngineError('toil-wdl-runner was not found on the task PATH (Debian: apt-get install toil python3-wdlparse).');
  const firstLine = readFileSync(runner, 'utf8').split('\n', 1)[0] ?? '';
  const m = /^#!\s*(\S+)(?:\s+(\S+))?/.exec(firstLine);
  if (!m)
    throw new EngineError(`${runner} is not a Python script; Runyard's toil driver runs toil's WDL compiler (toil 5) with its Python.`);
  // `#!/usr/bin/env python3`: the python3 of the task PATH.
  if (path.basename(m[1]!) === 'env' && m[2]) {
    const found = findOnPath(m[2], taskPath);
    if (!found) throw new EngineError(`${m[2]} (the interpreter of ${runner}) is not on the task PATH.`);
    return found;
  }
  return m[1]!;
}

/** The toil run's own directory, in the job's work directory: a resumed job (its parent's work directory) finds it again. */
export function toilRunDir(run: Pick<WdlRun, 'paths'>): string {
  return path.join(run.paths.work, 'runyard-wdl');
}

/**
 * toil: each WDL job runs toil's WDL compiler and the compiled workflow as the job's task
 * (toil/runyard_toil_wdl.py), with its job store in the job's work directory; a resumed run
 * restarts from that job store, so the calls that finished are not run again.
 */
export const toilDriver: WdlDriver = {
  name: 'toil',
  task(run: WdlRun): Promise<TaskSpec> {
    const python = toilPython(run.config.taskPath);
    const argv = [python, path.join(TOIL_LAUNCHER_DIR, 'runyard_toil_wdl.py'), run.mainFile, run.inputsFile];
    argv.push('--dir', toilRunDir(run), '--results', run.resultsDir);
    if (run.importsFile) argv.push('--imports', run.importsFile);
    const env = {
      ...baseTaskEnv(run.job, run.paths, run.config),
      PYTHONPATH: TOIL_LAUNCHER_DIR,
      RUNYARD_WDL_CALL_LOGS: run.paths.logs,
      RUNYARD_WDL_FAILURE_FILE: run.failureFile,
      RUNYARD_WDL_RESTART: run.resume ? '1' : '0',
    };
    return Promise.resolve({
      argv,
      env,
      cwd: run.paths.work,
      logFile: stdoutFileOf(run.paths),
      preamble: run.preamble,
      readable: [TOIL_LAUNCHER_DIR],
    });
  },
};
