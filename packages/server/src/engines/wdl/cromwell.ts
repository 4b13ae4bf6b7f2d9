import { cp, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskSpec } from '../../executors/executor.js';
import { EngineError } from '../engine.js';
import { baseTaskEnv, stdoutFileOf } from '../task-env.js';
import {
  executionsDirOf as managedExecutionsDirOf,
  FINAL_WORKFLOW_LOGS,
  managedCromwellDir,
  managedCromwellRunDir,
  managedInputsDirOf,
  workflowLogsDirOf,
} from './cromwell-server.js';
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
 * Where the Cromwell server keeps its call directories (its cromwell-executions): for a server of
 * Runyard's, its own; else where the configuration names it (cromwellExecutionsDir). The sandboxed
 * task reads the calls' stdout, stderr and File outputs there. Without it, only what the sandbox
 * shows anyway can be copied.
 */
function executionsDirOf(run: WdlRun): string[] {
  if (run.server.managed) return [managedExecutionsDirOf(managedCromwellDir(run.config, run.job.workspace_id))];
  const dir = run.config.cromwellExecutionsDir;
  return dir ? [path.resolve(dir)] : [];
}

/**
 * Where the task asks Cromwell to copy the workflow's log (final_workflow_log_dir), when Runyard knows
 * a directory Cromwell writes and the task can read: a server of Runyard's, whose workflow log directory
 * (cromwell-workflow-logs) is shown to the task read-only. That directory is the root the task reads
 * from: <dir>, which holds it, is not in Cromwell's sandbox, so its calls can change what is below it
 * (final/ and the logs there) but not it; the task follows no link below it (cromwell-task/engine-log.mts).
 */
function workflowLogOf(run: WdlRun): CromwellControl['workflowLog'] {
  if (!run.server.managed) return null;
  return { root: workflowLogsDirOf(managedCromwellDir(run.config, run.job.workspace_id)), dir: FINAL_WORKFLOW_LOGS };
}

/** value with every path under `from` (a string equal to it or below it) moved under `to`. */
function movedPaths(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value === from || value.startsWith(`${from}/`) ? to + value.slice(from.length) : value;
  if (Array.isArray(value)) return value.map((v) => movedPaths(v, from, to));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, movedPaths(v, from, to)]));
  return value;
}

/**
 * A server of Runyard's sees, of the machine, its own directories, the workspace's storage area and
 * its jobs' inputs (cromwell-server.ts): the job's staged inputs (downloads, links to a folder's
 * files) move into the server's inputs directory (<dataDir>/run/engine-servers/<workspace>/inputs,
 * the server's, which the sandbox shows read-only: nothing there is Cromwell's to change), and the
 * inputs file follows them.
 */
async function moveInputsToManagedServer(run: WdlRun): Promise<void> {
  const { job, paths } = run;
  const entries = await readdir(paths.inputs).catch(() => []);
  if (!entries.length) return;
  const target = managedInputsDirOf(managedCromwellRunDir(run.config, job.workspace_id), job.id, job.attempt);
  await rm(target, { recursive: true, force: true });
  await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
  try {
    await rename(paths.inputs, target);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await cp(paths.inputs, target, { recursive: true, verbatimSymlinks: true });
    await rm(paths.inputs, { recursive: true, force: true });
  }
  await writeFile(run.inputsFile, JSON.stringify(movedPaths(run.inputsJson, paths.inputs, target), null, 2), { mode: 0o600 });
}

/**
 * WDL jobs on a Cromwell server: the task is a small Node program (cromwell-task/main.mts) that
 * submits the workflow over Cromwell's REST API, follows it, aborts it when stopped, and copies
 * its calls' logs and its outputs into the job's folders. What it needs (the server's URL, the
 * files to send) is in a control file (mode 0600), never on its command line; the id of the
 * workflow it submitted is kept in <control>/cromwell, which it writes, so that a restarted task
 * or a later attempt re-attaches to that workflow instead of submitting it again. At the end, the
 * workflow's own log (Cromwell's, copied to final_workflow_log_dir) goes into the job's logs as
 * engine.log, where the task can read it (workflowLogOf).
 */
export const cromwellDriver: WdlDriver = {
  name: 'cromwell',
  async task(run: WdlRun): Promise<TaskSpec> {
    const url = cromwellUrl(run);
    const { job, paths } = run;
    const stateDir = path.join(paths.control, 'cromwell');
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    if (run.server.managed) await moveInputsToManagedServer(run);
    const workflowLog = workflowLogOf(run);
    const control: CromwellControl = {
      url,
      jobId: job.id,
      attempt: job.attempt,
      workflowSource: run.mainFile,
      workflowInputs: run.inputsFile,
      workflowDependencies: run.importsFile,
      resume: run.resume,
      managedServer: run.server.managed,
      workflowLog,
      stateDir,
      logs: paths.logs,
      results: run.resultsDir,
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
      readable: [path.dirname(CROMWELL_TASK), WDL_TASK_SHARED_DIR, ...executionsDirOf(run), ...(workflowLog ? [workflowLog.root] : [])],
      writable: [stateDir],
      // Cromwell is reached over the network.
      network: 'host',
    };
  },
};
