import path from 'node:path';
import type { Config } from '../config.js';
import type { TaskSpec } from '../executors/executor.js';
import type { JobPaths } from '../scheduler/job-paths.js';
import { BASH_JOB_SCRIPT, argumentsEnv } from './bash-arguments.js';
import { EngineError, type Engine, type JobRow, type WorkflowRow } from './engine.js';
import { containerNameOf, containerRuntimeOf, limitOptions, oomProbeArgv, stopArgv } from './container-runtime.js';
import { jobResources } from '../instance-types/job-resources.js';
import type { JobInputs } from '../staging/inputs.js';
import { parameterEnvName, parameterFilesEnvName, taskParameters, type TaskParameter } from './parameters.js';
import { arrayTaskParameters } from './array-rows.js';
import { registryAuthEnv, withRegistryLogin } from './registry-login.js';
import { arrayDirOf, taskLogsDirOf, writeArrayRows } from '../executors/array-run.js';
import { baseTaskEnv, stdoutFileOf } from './task-env.js';
import { leftOutNote, leftOutOf } from '../executors/sandbox/task-path.js';

/** $0 of the job's bash. */
const JOB_NAME = 'runyard-job';

/** An image reference as registries write it; anything else (a leading "-" above all) is refused. */
const IMAGE_REF = /^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/;

/**
 * Container (bash) jobs: `bash -c BASH_JOB_SCRIPT runyard-job` in the job's work directory, which
 * runs the command (RUNYARD_COMMAND) as written with `<prefix><name>`, `<value>` for each parameter
 * appended as arguments (bash-arguments.ts: through the environment and constant text, so that no
 * command line shows them), and RUNYARD_PARAM_<NAME> variables; values are never spliced into shell
 * text. With a container runtime configured and found, the
 * same runs in the workflow's image (a configured runtime that is missing fails the job, never falls back to
 * the host); without one, on the host, and the log's first line says so.
 *
 * In a container the task gets the job's CPUs and memory as the runtime's limits, the network only
 * when RUNYARD_TASK_NETWORK allows it, its work and results directories read-write and its inputs
 * read-only (nothing else of the host). The container is named per attempt, and the task's stop
 * argv removes it: killing the runtime's CLI alone would leave it running.
 */
export const containerEngine: Engine = {
  async prepare(job: JobRow, workflow: WorkflowRow, paths: JobPaths, config: Config, inputs?: JobInputs): Promise<TaskSpec> {
    const command = (job.command || workflow.default_command || '').trim();
    if (!command) throw new EngineError('The job has no command to run.');
    const env = baseTaskEnv(job, paths, config);
    // With a customScriptFile the command names the script: bash runs the staged file, with the parameters as "$@".
    if (inputs?.customScript) env.RUNYARD_SCRIPT = inputs.customScript;
    env.RUNYARD_COMMAND = inputs?.customScript ? 'exec bash "$RUNYARD_SCRIPT"' : command;
    const bash = ['bash', '-c', BASH_JOB_SCRIPT, JOB_NAME];
    // An array job's parameters differ by task: they go to each task's environment file, not the task's own.
    const { parameters, skipped } = job.array_size ? { parameters: [], skipped: [] } : taskParameters(job.parameters_json, inputs);
    if (!job.array_size) Object.assign(env, parameterEnv(parameters));
    const preamble = skipped.length ? [`Runyard: parameters not passed to the task (kind not supported yet): ${skipped.join(', ')}`] : [];
    const pathNote = leftOutNote(leftOutOf(config.taskPath), 'Runyard');
    if (pathNote) preamble.push(pathNote);
    preamble.push(...(inputs?.notes ?? []));
    if (inputs?.paramsFile) preamble.push('Runyard: the parametersFile is not used by bash jobs; pass its values as parameters.');
    const image = workflow.container_name ?? '';
    let runtime: string | null;
    try {
      runtime = containerRuntimeOf(config);
    } catch (e) {
      // Checked at start; the runtime was removed since. The job fails rather than run without its image.
      throw new EngineError((e as Error).message);
    }
    // An array job: each row's variables, read before the task is made (a container is told their names).
    const rows = job.array_size ? await arrayRowEnvs(job, inputs) : null;
    if (!runtime) {
      // In the sandbox: in the workflow's image (pulled by the scheduler before the launch, scheduler/image-pull.ts), its root read-only.
      const task: TaskSpec = { argv: bash, env, cwd: paths.work, logFile: stdoutFileOf(paths), preamble };
      if (image && config.sandbox === 'bwrap' && config.jobImages === 'pull') task.image = { name: image };
      else {
        if (job.docker_login === 1)
          preamble.push('Runyard: dockerLogin has no effect here: this job runs on the host, so no image is pulled.');
        preamble.unshift(
          image
            ? `Runyard: this job runs on the host, not in the image ${image}: ${
                config.jobImages === 'host'
                  ? 'RUNYARD_JOB_IMAGES=host'
                  : 'images run in the sandbox only (RUNYARD_SANDBOX=bwrap), and it is off'
              }.`
            : 'Runyard: the workflow names no container image; this job runs on the host (in the sandbox).',
        );
      }
      return rows ? arrayTask(job, paths, rows, task) : task;
    }
    if (!IMAGE_REF.test(image)) throw new EngineError(`The workflow's container image "${image.slice(0, 100)}" is not a valid image name.`);
    const uid = process.getuid?.();
    const gid = process.getgid?.();
    const name = containerNameOf(job);
    const runOptions = [
      // An init as PID 1 passes the SIGTERM that the CLI proxies on to the job (a shell as PID 1 ignores it).
      '--init',
      // A setuid program of the image cannot make the job root (and leave root's files in its directories).
      '--security-opt',
      'no-new-privileges',
      // Computed here, whoever fills TaskSpec.resources: the container's limits are the runtime's to enforce.
      // Container jobs run on the local executor only: at most what it has (jobResources' cap).
      ...limitOptions(jobResources(config, { ...job, backend: 'local' })),
      // `host` is the runtime's default network (outbound access), never the host's own: its local services stay out of reach.
      ...(config.taskNetwork === 'none' ? ['--network', 'none'] : []),
      ...(uid !== undefined && gid !== undefined ? ['--user', `${uid}:${gid}`] : []),
      '-v',
      `${paths.work}:${paths.work}`,
      '-v',
      `${paths.results}:${paths.results}`,
      // Inputs are read where they are (a file of the local store, or a staged copy), never written.
      ...(inputs?.readPaths ?? []).filter((p) => !p.includes(':')).flatMap((p) => ['-v', `${p}:${p}:ro`]),
      '-w',
      paths.work,
      // Variables are named, not given: their values come from the runtime's environment, never from its argv.
      ...[...Object.keys(env), ...Object.keys(rows?.[0] ?? {})].filter((k) => k !== 'PATH').flatMap((k) => ['-e', k]),
      image,
      ...bash,
    ];
    // No --rm: the container's record says whether it was killed for its memory (oomProbe); the stop removes it after.
    // An array job's rows: a container each, named <name>-<row index>.
    const argv = rows
      ? ['/bin/sh', '-c', ROW_CONTAINER, ROW_CONTAINER_NAME, runtime, name, ...runOptions]
      : [runtime, 'run', '--name', name, ...runOptions];
    // batch.dockerLogin: first a login with the user's account at the image's registry (its variables are not the container's).
    // The rows of an array job, which run at once, each keep their login apart.
    const authDir = path.join(paths.control, `registry-auth-${job.attempt}`);
    const login =
      job.docker_login === 1 ? withRegistryLogin(runtime, argv, image, inputs?.registryAccounts ?? [], rows ? null : authDir) : null;
    if (login && rows) rows.forEach((row, i) => Object.assign(row, registryAuthEnv(runtime, `${authDir}-${i}`)));
    const task: TaskSpec = {
      argv: login?.argv ?? argv,
      env: login ? { ...env, ...login.env } : env,
      cwd: paths.work,
      logFile: stdoutFileOf(paths),
      preamble,
      // A stopped array stops every row's container (rm -f of one that never ran is no error).
      stop: rows ? [runtime, 'rm', '-f', ...rows.map((_, i) => `${name}-${i}`)] : stopArgv(runtime, name),
      // A row's container killed for its memory shows in that row's exit code (137), not as the job's.
      ...(rows ? {} : { oomProbe: oomProbeArgv(runtime, name) }),
      confinement: 'container',
    };
    return rows ? arrayTask(job, paths, rows, task) : task;
  },
};

/**
 * Runs one row of an array job in a container of its own: `<runtime> run --name <name>-<row index>
 * <options...>`. Constant text: the runtime, the name and the options are its arguments, the index
 * the row's RUNYARD_ARRAY_INDEX (digits, set by the array's runner from the row's file).
 */
const ROW_CONTAINER = 'r=$1 n=$2\nshift 2\nexec "$r" run --name "$n-$RUNYARD_ARRAY_INDEX" "$@"';
const ROW_CONTAINER_NAME = 'runyard-row-container';

/** The variables of a task's parameters, and its arguments. */
function parameterEnv(parameters: TaskParameter[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const p of parameters) {
    env[parameterEnvName(p.name)] = p.text;
    if (p.files) env[parameterFilesEnvName(p.name)] = p.files.join('\n');
  }
  return Object.assign(env, argumentsEnv(parameters.flatMap((p) => [`${p.prefix}${p.name}`, p.text])));
}

/** The variables of each row of an array job: its parameters', and its index and the count as RUNYARD_ARRAY_INDEX (from 0) and RUNYARD_ARRAY_SIZE. */
async function arrayRowEnvs(job: JobRow, inputs: JobInputs | undefined): Promise<Record<string, string>[]> {
  const rows = await arrayTaskParameters(job, inputs);
  return rows.map((parameters, i) => ({
    ...parameterEnv(parameters),
    RUNYARD_ARRAY_INDEX: String(i),
    RUNYARD_ARRAY_SIZE: String(rows.length),
  }));
}

/** A bash array job as one array task (executors/array-run.ts): `one.argv` runs once per row, with the row's variables. */
async function arrayTask(job: JobRow, paths: JobPaths, rows: Record<string, string>[], one: TaskSpec): Promise<TaskSpec> {
  const size = rows.length;
  const limit = Math.min(size, Math.max(1, job.array_limit ?? 1));
  const arrayDir = arrayDirOf(paths.control, job.attempt);
  const taskLogs = taskLogsDirOf(paths.logs);
  await writeArrayRows(arrayDir, taskLogs, rows);
  return {
    ...one,
    array: { size, limit, dir: arrayDir, taskLogsDir: taskLogs },
    preamble: [
      ...(one.preamble ?? []),
      `Runyard: an array job of ${size} tasks (one per row of its array file), ${limit} at a time; each task's output follows ` +
        'its "=== task <index>" line when it ends, and is in logs/tasks/task-<index>.log while it runs.',
    ],
  };
}
