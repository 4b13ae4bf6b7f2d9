import { readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import type { TaskSpec } from '../executors/executor.js';
import { isResumedWorkDir, type JobPaths } from '../scheduler/job-paths.js';
import { EngineError, type Engine, type JobRow, type WorkflowRow } from './engine.js';
import { findOnPath, isExecutableFile } from '../executors/find-executable.js';
import type { JobInputs } from '../staging/inputs.js';
import { nextflowHomeFor } from './nextflow-home.js';
import { nextflowParamValue } from './nextflow-param-value.js';
import { nextflowS3 } from './nextflow-s3.js';
import { taskParameters } from './parameters.js';
import { materialize } from './workflow-sources.js';
import { baseTaskEnv, stdoutFileOf } from './task-env.js';

/** The nextflow executable: RUNYARD_NEXTFLOW_BIN, else `nextflow` on the task PATH. */
export function nextflowBinary(config: Config): string {
  if (config.nextflowBin) {
    if (isExecutableFile(config.nextflowBin)) return config.nextflowBin;
    throw new EngineError(`Nextflow was not found: RUNYARD_NEXTFLOW_BIN is ${config.nextflowBin}, which is not an executable file.`);
  }
  const found = findOnPath('nextflow', config.taskPath);
  if (!found)
    throw new EngineError('Nextflow was not found: there is no nextflow executable on the task PATH and RUNYARD_NEXTFLOW_BIN is not set.');
  return found;
}

/**
 * The Java configuration of Debian's JDKs (/etc/java-<n>-openjdk: java.security, the logging and
 * net properties, which the JDK's conf/ links to), shown read-only to the task: without it Java
 * fails before Nextflow starts ("Could not initialize class java.security.Security").
 */
export function javaConfigDirs(etc = '/etc'): string[] {
  try {
    return readdirSync(etc)
      .filter((name) => /^java(-|$)/.test(name))
      .map((name) => path.join(etc, name));
  } catch {
    return [];
  }
}

/** Nextflow's rule for run names: lowercase, starting with a letter, at most 80 characters. */
export function runNameOf(job: JobRow): string {
  return `runyard-${job.id.toLowerCase().replace(/[^a-z0-9]/g, '')}-${job.attempt}`;
}

function mainScript(src: string, workflow: WorkflowRow): string {
  const main = workflow.main_file || 'main.nf';
  const file = path.resolve(src, main);
  if (path.isAbsolute(main) || !file.startsWith(src + path.sep))
    throw new EngineError(`The workflow's main file "${main}" is not inside its repository.`);
  return file;
}

/** The job's trace file, the same for every attempt (the logs listing names it "Trace file"). */
export function traceFileOf(paths: JobPaths): string {
  return path.join(paths.logs, 'trace.txt');
}

/**
 * The configuration Runyard adds to a run's (`nextflow -c`, over the pipeline's own): a re-run of
 * a lost attempt writes the trace file again, which Nextflow 22.10+ refuses unless trace.overwrite
 * is set (TraceHelper.newFileWriter); the option exists in earlier versions too.
 */
export const RUNYARD_NEXTFLOW_CONFIG = '// Written by Runyard for this attempt.\ntrace.overwrite = true\n';

/** Where a Nextflow job publishes its results unless it says otherwise: `results/` in its results folder (the public client looks for a directory named results). */
export function defaultOutdir(paths: JobPaths): string {
  return path.join(paths.results, 'results');
}

/**
 * Nextflow jobs: the workflow is materialised at the job's resolved commit, its parameters are
 * written to a params file (never to the command line): those of its parametersFile, then its
 * own parameters over them, with staged inputs as paths (a glob as `<directory>/<pattern>`, which
 * Nextflow expands), and outdir by default in its results folder. `nextflow run` starts in the
 * job's work directory with Runyard's config (-c), -work-dir, -with-trace, -name, the profile and
 * NXF_VER; a resumed job runs in its parent's work directory with -resume, which resumes the last
 * session of that directory's history. Its Nextflow home is nextflow-home.ts's; with an S3 store it
 * gets the endpoint, region and its workspace's keys (nextflow-s3.ts), nothing of the server's env.
 */
export const nextflowEngine: Engine = {
  async prepare(job: JobRow, workflow: WorkflowRow, paths: JobPaths, config: Config, inputs?: JobInputs): Promise<TaskSpec> {
    const bin = nextflowBinary(config);
    const { parameters, skipped } = taskParameters(job.parameters_json, inputs);
    const src = await materialize(job, workflow, paths, config);
    const params: Record<string, unknown> = { ...inputs?.paramsFile };
    for (const p of parameters) params[p.name] = nextflowParamValue(p.value);
    params.outdir ??= defaultOutdir(paths);
    const paramsFile = path.join(paths.control, `params-${job.attempt}.json`);
    await mkdir(paths.control, { recursive: true });
    await writeFile(paramsFile, JSON.stringify(params, null, 2), { mode: 0o600 });
    // With an S3 store, the endpoint of s3:// paths (which Nextflow takes only from its configuration).
    const s3 = nextflowS3(config, job.workspace_id);
    // Nextflow 22.10+ refuses to overwrite a trace file: a later attempt writes the job's trace.txt again.
    const runyardConfig = path.join(paths.control, `runyard-${job.attempt}.config`);
    await writeFile(runyardConfig, [RUNYARD_NEXTFLOW_CONFIG, ...s3.configLines.map((l) => `${l}\n`)].join(''), { mode: 0o600 });
    const argv = [bin, '-log', path.join(paths.logs, '.nextflow.log'), '-c', runyardConfig, 'run', mainScript(src, workflow)];
    argv.push('-params-file', paramsFile, '-work-dir', paths.work, '-with-trace', traceFileOf(paths), '-name', runNameOf(job));
    if (job.profile) argv.push('-profile', job.profile);
    // A resumed job picks up its parent's work; a re-run of a lost attempt the work the previous attempt finished.
    if (isResumedWorkDir(paths) || (job.resumable && job.attempt > 1)) argv.push('-resume');
    const home = nextflowHomeFor(config, job.workspace_id, job.nextflow_version, paths.work);
    const env = { ...baseTaskEnv(job, paths, config), ...home.env, ...s3.env };
    if (job.nextflow_version) Object.assign(env, { NXF_VER: job.nextflow_version });
    const preamble = skipped.length ? [`Runyard: parameters not passed to the task (kind not supported yet): ${skipped.join(', ')}`] : [];
    preamble.push(...(inputs?.notes ?? []));
    // The processes' images are pulled by Nextflow's own container settings, which Runyard does not log in for.
    if (job.docker_login === 1)
      preamble.push(
        "Runyard: dockerLogin has no effect on Nextflow jobs here: Nextflow pulls its processes' images with its own settings.",
      );
    const readable = [...home.readable, ...javaConfigDirs()];
    return { argv, env, cwd: paths.work, logFile: stdoutFileOf(paths), preamble, readable, writable: home.writable };
  },
};
