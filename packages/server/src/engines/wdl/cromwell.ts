import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config.js';
import type { TaskSpec } from '../../executors/executor.js';
import { EngineError } from '../engine.js';
import { baseTaskEnv, stdoutFileOf } from '../task-env.js';
import { CONTROL_ENV, type CromwellControl } from './cromwell-task/control.mjs';
import { WDL_TASK_SHARED_DIR, type WdlDriver, type WdlRun } from './driver.js';

// The compiled task beside this file. Tests load the sources (through tsx): the task is the build's.
export const CROMWELL_TASK = fileURLToPath(new URL('./cromwell-task/main.mjs', import.meta.url)).replace(
  /\/src\/engines\/wdl\/cromwell-task\/main\.mjs$/,
  '/dist/engines/wdl/cromwell-task/main.mjs',
);

/** Milliseconds between two status requests to Cromwell. */
const POLL_MS = 1000;

/** The workspace's Cromwell server, as an http(s) URL. */
function cromwellUrl(run: WdlRun): string {
  const url = run.server.url;
  if (!url)
    throw new EngineError(
      "The workspace's Cromwell URL is not set: an administrator sets it with `runyard admin workspace set-engine --driver cromwell --cromwell-url URL`.",
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EngineError(
      `The workspace's Cromwell URL is not a URL: set it again with \`runyard admin workspace set-engine --cromwell-url URL\`.`,
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new EngineError(`The workspace's Cromwell URL must be http:// or https://, not ${parsed.protocol}//.`);
  return url;
}

/**
 * Where the Cromwell server keeps its call directories (its cromwell-executions), when the
 * configuration names it (cromwellExecutionsDir): the sandboxed task reads the calls' stdout,
 * stderr and File outputs there. Without it, only what the sandbox shows anyway can be copied.
 */
function executionsDirOf(config: Config): string[] {
  const dir = config.cromwellExecutionsDir;
  return dir ? [path.resolve(dir)] : [];
}

/**
 * WDL jobs on a Cromwell server: the task is a small Node program (cromwell-task/main.mts) that
 * submits the workflow over Cromwell's REST API, follows it, aborts it when stopped, and copies
 * its calls' logs and its outputs into the job's folders. What it needs (the server's URL, the
 * files to send) is in a control file (mode 0600), never on its command line; the id of the
 * workflow it submitted is kept in <control>/cromwell, which it writes, so that a restarted task
 * or a later attempt re-attaches to that workflow instead of submitting it again.
 */
export const cromwellDriver: WdlDriver = {
  name: 'cromwell',
  async task(run: WdlRun): Promise<TaskSpec> {
    const url = cromwellUrl(run);
    const { job, paths } = run;
    const stateDir = path.join(paths.control, 'cromwell');
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const control: CromwellControl = {
      url,
      jobId: job.id,
      attempt: job.attempt,
      workflowSource: run.mainFile,
      workflowInputs: run.inputsFile,
      workflowDependencies: run.importsFile,
      resume: run.resume,
      stateDir,
      logs: paths.logs,
      results: paths.results,
      failureFile: run.failureFile,
      pollMs: POLL_MS,
      // Within the executor's grace between SIGTERM and SIGKILL, time left to copy the calls' logs.
      abortWaitMs: Math.max(1000, run.config.abortGraceMs - 2000),
    };
    const controlFile = path.join(paths.control, `cromwell-${job.attempt}.json`);
    await writeFile(controlFile, JSON.stringify(control, null, 2), { mode: 0o600 });
    return {
      argv: [process.execPath, CROMWELL_TASK],
      env: { ...baseTaskEnv(job, paths, run.config), [CONTROL_ENV]: controlFile },
      cwd: paths.work,
      logFile: stdoutFileOf(paths),
      preamble: [...run.preamble, `Runyard: this WDL job runs on the workspace's Cromwell server.`],
      readable: [path.dirname(CROMWELL_TASK), WDL_TASK_SHARED_DIR, ...executionsDirOf(run.config)],
      writable: [stateDir],
      // Cromwell is reached over the network.
      network: 'host',
    };
  },
};
