import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';
import type { TaskSpec } from '../../executors/executor.js';
import type { JobInputs } from '../../staging/inputs.js';
import { EngineError, failureFileOf, isResumedWorkDir, type Engine, type JobPaths, type JobRow, type WorkflowRow } from '../engine.js';
import { taskParameters } from '../parameters.js';
import { materialize, sourceFile } from '../workflow-sources.js';
import { WDL_RESULTS_FOLDER, type EngineServerInfo, type WdlDriver } from './driver.js';
import { WDL_DRIVER_TABLE } from './drivers.js';
import { workflowInputs } from './wdl-declarations.js';
import { wdlInputsJson } from './wdl-input-values.js';
import { BeneathError, readBeneath } from '../../storage/beneath.js';
import { MAX_SNAPSHOT_FILE_BYTES } from '../../git/snapshot.js';

function driverFor(server: EngineServerInfo): WdlDriver {
  const driver = WDL_DRIVER_TABLE[server.driver];
  if (!driver) throw new EngineError(`The WDL engine "${server.driver}" is not available in this Runyard.`);
  return driver;
}

/**
 * WDL jobs: the workflow is materialised at the job's commit, its inputs JSON built from the
 * job's parameters typed by the main file's input declarations (wdl-declarations.ts), and the
 * workspace's engine server's driver (toil, cromwell, miniwdl) makes the task that runs it.
 * A resumed job, or a new attempt of a lost one, asks the driver to pick up the earlier run.
 */
export const wdlEngine: Engine = {
  async prepare(
    job: JobRow,
    workflow: WorkflowRow,
    paths: JobPaths,
    config: Config,
    inputs?: JobInputs,
    server?: EngineServerInfo | null,
  ): Promise<TaskSpec> {
    if (!server) throw new EngineError('The workspace has no WDL engine server running.');
    const driver = driverFor(server);
    if (!workflow.main_file) throw new EngineError('The WDL workflow has no main file.');
    const src = await materialize(job, workflow, paths, config);
    const mainFile = sourceFile(src, workflow.main_file, 'main file');
    const importsFile = workflow.imports_file ? sourceFile(src, workflow.imports_file, 'imports file') : null;
    const wdl = await readMainFile(src, mainFile, workflow.main_file);
    const { parameters, skipped } = taskParameters(job.parameters_json, inputs);
    const inputsJson = wdlInputsJson(workflowInputs(wdl), parameters, inputs?.paramsFile ?? null);
    await mkdir(paths.control, { recursive: true });
    const inputsFile = path.join(paths.control, `inputs-${job.attempt}.json`);
    await writeFile(inputsFile, JSON.stringify(inputsJson, null, 2), { mode: 0o600 });
    const failureFile = failureFileOf(paths.control, job.attempt);
    // Empty until the task says why it failed; bound writable into the sandbox, where its directory is read-only.
    await writeFile(failureFile, '', { mode: 0o600 });
    const preamble = [`Runyard: WDL engine ${driver.name}; inputs: ${Object.keys(inputsJson).join(', ') || 'none'}`];
    if (skipped.length) preamble.push(`Runyard: parameters not passed to the task (kind not supported yet): ${skipped.join(', ')}`);
    preamble.push(...(inputs?.notes ?? []));
    if (job.docker_login === 1)
      preamble.push("Runyard: dockerLogin has no effect on WDL jobs here: the engine pulls its calls' images itself.");
    const resume = isResumedWorkDir(paths) || (job.resumable === 1 && job.attempt > 1);
    const task = await driver.task({
      job,
      workflow,
      paths,
      resultsDir: path.join(paths.results, WDL_RESULTS_FOLDER),
      config,
      inputs,
      server,
      src,
      mainFile,
      importsFile,
      inputsJson,
      inputsFile,
      resume,
      failureFile,
      preamble,
    });
    task.writable = [...(task.writable ?? []), failureFile];
    return task;
  },
};

/**
 * The main file's text, read below the checked-out sources without following a link out of them: a
 * repository may hold a link to any host path (the server's key), which the server must not read.
 * A link inside the repository is followed.
 */
async function readMainFile(src: string, mainFile: string, name: string): Promise<string> {
  const cannot = (why: string) => new EngineError(`The workflow's main file ${name} could not be read: ${why}.`);
  let text: Buffer | null;
  try {
    text = await readBeneath(src, path.relative(src, mainFile), 0, MAX_SNAPSHOT_FILE_BYTES + 1, { links: 'inside' });
  } catch (e) {
    if (e instanceof BeneathError && e.reason === 'outside') throw cannot('it is a link that leads outside the repository');
    if (e instanceof BeneathError) throw cannot(e.message);
    throw cannot((e as NodeJS.ErrnoException).code ?? String(e));
  }
  if (!text) throw cannot('ENOENT');
  if (text.length > MAX_SNAPSHOT_FILE_BYTES) throw cannot(`it is larger than ${MAX_SNAPSHOT_FILE_BYTES / 1024 / 1024} MiB`);
  return text.toString('utf8');
}
