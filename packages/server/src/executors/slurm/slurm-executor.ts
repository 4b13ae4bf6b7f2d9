import { appendLogLines, makeTaskDirectories } from '../task-files.js';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HpcClusterRecord } from '../../store/hpc-cluster-lookup.js';
import { isPathInside } from '../../storage/local.js';
import type { AttemptControl, Executor, ExternalId, KillOptions, LimitCounts, TaskEnd, TaskSpec, TaskState } from '../executor.js';
import { pidsLimitOf } from '../sandbox/cgroup.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { fenceAttempt, readExitFile, wrapperArgv } from '../wrapper.js';
import { BATCH_SCRIPT } from './batch-script.js';
import { imageArgvOnNode, placeEnter, removeEnter, splitImageEnv } from './image-on-node.js';
import {
  ArrayLogs,
  arrayElementArgv,
  arrayOption,
  arrayOutputPattern,
  concludeArray,
  readArrayRecord,
  slurmFileName,
  writeArrayRecord,
  type ArrayEnd,
} from './slurm-array.js';
import { runSlurm, slurmError } from './slurm-commands.js';
import { SlurmPoller, type SlurmStatus } from './slurm-poller.js';
import { meaningOf } from './slurm-states.js';

/** A task on Slurm: the cluster (its registry id) and Slurm's job id. */
export interface SlurmId extends ExternalId {
  backend: 'slurm';
  cluster: string;
  jobId: string;
}

export function isSlurmId(id: ExternalId | null): id is SlurmId {
  return id?.backend === 'slurm' && typeof id.cluster === 'string' && typeof id.jobId === 'string' && /^\d+(_\d+)?$/.test(id.jobId);
}

export interface SlurmExecutorOptions {
  clusters: (id: string) => Promise<HpcClusterRecord | null>;
  sandbox: Sandbox;
  pollMs?: number;
}

const GIB = 1024 ** 3;

/** `runyard-<job id>-a<attempt>`: what squeue shows, and how a task is found when its id was never stored. */
function jobNameOf(control: AttemptControl): string {
  return `runyard-${path.basename(control.dir)}-a${control.attempt}`;
}

/** `<cluster>` before sbatch, `<cluster> <job id>` after: a server that died in between still finds the job. */
function idFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.slurm`);
}

/** What the batch script's cgroups stopped (batch-script.ts): a line per script (an array's elements each add one) that stopped anything. */
function limitsFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.slurm-limits`);
}

/** The limits record summed over its lines; null when nothing was stopped (or no line can be read). */
async function readLimits(control: AttemptControl): Promise<LimitCounts | null> {
  const text = await readFile(limitsFileOf(control), 'utf8').catch(() => '');
  const counts: LimitCounts = { oomKills: 0, forksRefused: 0 };
  for (const m of text.matchAll(/^oom_kills (\d+) forks_refused (\d+) pids_limit (\d+)$/gm)) {
    counts.oomKills += Number(m[1]);
    counts.forksRefused += Number(m[2]);
    if (Number(m[2]) > 0) counts.pidsLimit = Number(m[3]);
  }
  return counts.oomKills > 0 || counts.forksRefused > 0 ? counts : null;
}

/**
 * Runs tasks as Slurm batch jobs: one `sbatch` per task, with the job's partition, CPUs, memory and
 * log; inside the allocation the same wrapper (pid and exit files in the control directory, on the
 * cluster's shared directory) and sandbox as a local task. Followed by polling in batches per
 * cluster (slurm-poller.ts), stopped with scancel. See docs/slurm.md.
 */
export class SlurmExecutor implements Executor {
  readonly backend = 'slurm';
  private readonly pollers = new Map<string, SlurmPoller>();
  private readonly pollMs: number;

  constructor(private readonly options: SlurmExecutorOptions) {
    this.pollMs = options.pollMs ?? 1000;
  }

  async launch(task: TaskSpec, control: AttemptControl): Promise<SlurmId> {
    const cluster = await this.clusterOf(task.placement?.cluster);
    if (task.confinement === 'container') throw new Error('Container jobs do not run on Slurm clusters yet: run them on a local queue.');
    const partition = task.placement?.partition ?? cluster.partitions[0];
    if (!partition) throw new Error(`HPC cluster ${cluster.name} has no partition.`);
    for (const [what, dir] of [
      ['control directory', control.dir],
      ['working directory', task.cwd],
      ['log', task.logFile],
    ] as const) {
      if (!isPathInside(cluster.sharedDirectory, path.resolve(dir)))
        throw new Error(
          `The job's ${what} ${dir} is not in HPC cluster ${cluster.name}'s shared directory ${cluster.sharedDirectory}: ` +
            "the nodes would not see it (put the server's data directory, RUNYARD_DATA_DIR, inside it).",
        );
    }
    const image = task.image?.run;
    if (image && !isPathInside(cluster.sharedDirectory, path.resolve(image.rootfs)))
      throw new Error(
        `The image ${task.image?.name ?? ''} is unpacked in ${image.rootfs}, not in HPC cluster ${cluster.name}'s shared directory ` +
          `${cluster.sharedDirectory}: the nodes would not see it (put the image cache, RUNYARD_IMAGE_CACHE_DIR, inside it).`,
      );
    await makeTaskDirectories(task, control);
    await this.options.sandbox.prepare?.(task);
    await appendLogLines(task.logFile, [this.options.sandbox.note, ...(task.preamble ?? [])]);
    const script = path.join(control.dir, 'runyard-batch.sh');
    await writeFile(script, BATCH_SCRIPT, { mode: 0o700 });
    // The task's whole environment (it may hold parameter values) and the wrapper's argv, in a file only
    // its user reads, never on a command line (which a submit prefix such as ssh hands to a shell).
    const envFile = path.join(control.dir, `attempt-${control.attempt}.env`);
    // An array task: a Slurm array, each element running one row (slurm-array.ts); else the wrapper around the task.
    const array = task.array ? { ...task.array, logFile: task.logFile } : null;
    // In an image: the node's programs run without the variables that would steer them (image-on-node.ts).
    const env = image ? splitImageEnv(task.env) : { host: task.env, inSandbox: {} };
    let sandboxed = this.options.sandbox.argv({ ...task, env: env.host, array: undefined });
    if (image) sandboxed = imageArgvOnNode(sandboxed, task, await placeEnter(control), env.inSandbox);
    const argv = array ? arrayElementArgv(control, array, sandboxed) : wrapperArgv(control, sandboxed);
    const carried = {
      ...env.host,
      RUNYARD_SLURM_ARGC: String(argv.length),
      ...Object.fromEntries(argv.map((a, i) => [`RUNYARD_SLURM_ARGV_${i}`, a])),
    };
    await writeFile(
      envFile,
      Object.entries(carried)
        .map(([k, v]) => `${k}=${v}\0`)
        .join(''),
      { mode: 0o600 },
    );
    await rm(limitsFileOf(control), { force: true });
    const cpus = Math.max(1, Math.ceil(task.resources?.cpus ?? 1));
    const memoryGiB = task.resources?.memoryGiB ?? 0;
    const args = [
      '--parsable',
      `--job-name=${jobNameOf(control)}`,
      `--partition=${partition}`,
      ...(array ? [arrayOption(array)] : []),
      `--cpus-per-task=${cpus}`,
      ...(memoryGiB > 0 ? [`--mem=${Math.ceil(memoryGiB * 1024)}M`] : []),
      ...(task.timeLimitSeconds ? [`--time=${Math.max(1, Math.ceil(task.timeLimitSeconds / 60))}`] : []),
      // Slurm opens the output as the submitting user, following links, whenever a job (an array's element) starts:
      // an array's elements start while other rows run and write logs/, so theirs is in the control directory
      // (slurm-array.ts, the server copies it into logs/); a single task's log is opened before its task runs.
      `--output=${array ? arrayOutputPattern(array) : slurmFileName(task.logFile)}`,
      `--error=${array ? arrayOutputPattern(array) : slurmFileName(task.logFile)}`,
      '--open-mode=append',
      // Never run again by Slurm (a node's failure, a preemption): the log would be opened again after the
      // task could replace it; Runyard retries a lost attempt itself.
      '--no-requeue',
      `--chdir=${task.cwd}`,
      '--export=ALL',
      `--export-file=${envFile}`,
      script,
      String(Math.ceil(memoryGiB * GIB)),
      limitsFileOf(control),
      // A sandboxed task's process limit, as on the local executor (none for a task without resources).
      String(task.resources ? pidsLimitOf(task.resources.cpus, task.resources.pids) : 0),
    ];
    // Paths and numbers only: still, what a shell would read otherwise is refused rather than quoted.
    const unsafe = args.find((a) => !/^[A-Za-z0-9_./=:,+@%-]+$/.test(a));
    if (unsafe && cluster.submitPrefix.length)
      throw new Error(
        `The sbatch argument ${JSON.stringify(unsafe)} has characters that the submit prefix's remote shell would read: ` +
          'choose a data directory (RUNYARD_DATA_DIR) whose path has only letters, digits and . _ - /.',
      );
    if (array) await writeArrayRecord(control, array);
    await writeFile(idFileOf(control), `${cluster.id}\n`);
    const reply = await runSlurm(cluster.submitPrefix, 'sbatch', args);
    const jobId = /^(\d+)(;\S*)?\s*$/.exec(reply.stdout)?.[1];
    if (reply.code !== 0 || !jobId) throw new Error(`Slurm refused the job: ${slurmError(reply)}`);
    await writeFile(idFileOf(control), `${cluster.id} ${jobId}\n`);
    return { backend: 'slurm', cluster: cluster.id, jobId };
  }

  async inspect(control: AttemptControl, stored: ExternalId | null): Promise<TaskState> {
    const id = isSlurmId(stored) ? stored : await this.idFromFiles(control);
    if (!id) {
      // No Slurm job found: fenced, a job that its scheduler's sbatch still submits never runs the task.
      if (await fenceAttempt(control)) return { state: 'absent' };
      // Its wrapper ran, under a job Slurm no longer shows.
      const exitCode = await this.recordedExit(control, await this.concludedArray(control));
      if (exitCode !== null) return { state: 'exited', exitCode };
      return { state: 'lost', reason: 'The task started on the cluster, but Slurm no longer knows its job and it recorded no exit code.' };
    }
    const status = await (await this.pollerOf(id.cluster)).status(id.jobId);
    if (status.kind === 'active') return { state: 'running', id };
    return this.ended(control, id, status);
  }

  async started(control: AttemptControl, stored: ExternalId, signal?: AbortSignal): Promise<void> {
    const id = this.slurmId(stored);
    await (await this.pollerOf(id.cluster)).started(id.jobId, signal);
  }

  async wait(control: AttemptControl, stored: ExternalId, signal?: AbortSignal): Promise<TaskEnd> {
    const id = this.slurmId(stored);
    // Waited for first: waits that start together join the same poll.
    const ending = (await this.pollerOf(id.cluster)).ended(id.jobId, signal);
    const record = await readArrayRecord(control).catch((e: unknown) => {
      ending.catch(() => undefined);
      throw e;
    });
    if (!record) return this.ended(control, id, await ending);
    // An array: its rows' output is copied into the job's logs while it runs, every poll.
    const logs = new ArrayLogs(record);
    const status = await this.following(ending, () => logs.follow());
    return this.ended(control, id, status, logs);
  }

  /** What ending settles with; meanwhile step, every poll (its failures are left to the next one and to the end). */
  private async following<T>(ending: Promise<T>, step: () => Promise<void>): Promise<T> {
    let settled = false;
    const done = ending.finally(() => {
      settled = true;
    });
    const quiet = done.then(
      () => undefined,
      () => undefined,
    );
    while (!settled) {
      await step().catch(() => undefined);
      if (settled) break;
      const pause = new AbortController();
      await Promise.race([quiet, sleep(this.pollMs, undefined, { signal: pause.signal }).catch(() => undefined)]);
      pause.abort();
    }
    return done;
  }

  async kill(stored: ExternalId, { force, graceMs }: KillOptions): Promise<void> {
    const id = this.slurmId(stored);
    const cluster = await this.clusterOf(id.cluster);
    const poller = await this.pollerOf(id.cluster);
    const scancel = (...args: string[]) => runSlurm(cluster.submitPrefix, 'scancel', [...args, id.jobId]);
    // --full: a batch job has no steps; the signal must reach the batch shell and all it started.
    if (!force) {
      await scancel('--signal=TERM', '--full');
      if (await this.gone(poller, id.jobId, graceMs)) return;
    }
    await scancel('--signal=KILL', '--full');
    // A job still pending takes no signal: cancelled outright.
    await scancel();
    await this.gone(poller, id.jobId, 30_000);
  }

  /** Whether Slurm ends the job (or forgets it) within ms. */
  private async gone(poller: SlurmPoller, jobId: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if ((await poller.status(jobId)).kind !== 'active') return true;
      if (Date.now() >= deadline) return false;
      await sleep(Math.min(200, this.pollMs));
    }
  }

  /**
   * The exit code the task recorded: the wrapper's, or for an array (concluded once Slurm holds none
   * of its elements) how its rows went; null when there is none (an array: not every row ran).
   */
  private async recordedExit(control: AttemptControl, array: ArrayEnd | null): Promise<number | null> {
    if (!array) return readExitFile(control);
    return array.allRan ? array.exitCode : null;
  }

  /** An array's end (null for a task that is not one); logs: what followed it while it ran. */
  private async concludedArray(control: AttemptControl, logs?: ArrayLogs): Promise<ArrayEnd | null> {
    const record = logs?.record ?? (await readArrayRecord(control));
    return record ? concludeArray(record, logs) : null;
  }

  private async ended(control: AttemptControl, id: SlurmId, status: SlurmStatus, logs?: ArrayLogs): Promise<TaskEnd> {
    if (status.kind !== 'active') await removeEnter(control);
    const array = status.kind === 'active' ? null : await this.concludedArray(control, logs);
    const exitCode = await this.recordedExit(control, array);
    const stopped = await readLimits(control);
    const limits = stopped ? { limits: stopped } : {};
    const oom = (stopped?.oomKills ?? 0) > 0;
    if (status.kind === 'unknown') {
      if (exitCode !== null) return { state: 'exited', exitCode, ...(oom ? { outOfMemory: true as const } : {}), ...limits };
      return { state: 'lost', reason: `Slurm no longer knows job ${id.jobId} (it ended without a recorded exit code).` };
    }
    if (status.kind === 'active') throw new Error(`Slurm job ${id.jobId} has not ended`);
    const meaning = meaningOf(id.jobId, status.end);
    const outOfMemory = oom || meaning.outOfMemory ? { outOfMemory: true as const } : {};
    const message = meaning.message ? { message: meaning.message } : {};
    if (meaning.kind === 'lost') return { state: 'lost', reason: meaning.message ?? status.end.state, ...outOfMemory, ...limits };
    // The wrapper's record is the task's own code; Slurm's is the batch script's (or 128 + its signal).
    // An array's rows that did not all run (cancelled while pending) make it fail.
    const code = array ? array.exitCode : (exitCode ?? (status.end.signal ? 128 + status.end.signal : status.end.exitCode));
    return { state: 'exited', exitCode: code, ...outOfMemory, ...message, ...limits };
  }

  private async idFromFiles(control: AttemptControl): Promise<SlurmId | null> {
    const text = await readFile(idFileOf(control), 'utf8').catch(() => '');
    const [cluster, jobId] = text.trim().split(' ');
    if (!cluster) return null;
    if (jobId && /^\d+$/.test(jobId)) return { backend: 'slurm', cluster, jobId };
    // Died during sbatch: the job, if Slurm took it, is found by its name.
    const c = await this.options.clusters(cluster);
    if (!c) return null;
    // --states=all: a job that ended already is still listed (for MinJobAge).
    const found = await runSlurm(c.submitPrefix, 'squeue', ['-h', '--states=all', `--name=${jobNameOf(control)}`, '-o', '%F']);
    const first = found.stdout.split('\n').find((l) => /^\d+$/.test(l.trim()));
    return first ? { backend: 'slurm', cluster, jobId: first.trim() } : null;
  }

  private slurmId(id: ExternalId): SlurmId {
    if (!isSlurmId(id)) throw new Error(`Not a Slurm task id: ${JSON.stringify(id)}`);
    return id;
  }

  private async clusterOf(id: string | undefined): Promise<HpcClusterRecord> {
    if (!id) throw new Error('The task names no HPC cluster (its queue has none).');
    const cluster = await this.options.clusters(id);
    if (!cluster) throw new Error(`HPC cluster ${id} is not registered (any more).`);
    return cluster;
  }

  /** One poller per cluster, so that all its jobs share each poll. */
  private async pollerOf(clusterId: string): Promise<SlurmPoller> {
    let poller = this.pollers.get(clusterId);
    if (!poller) {
      const cluster = await this.clusterOf(clusterId);
      poller = this.pollers.get(clusterId) ?? new SlurmPoller(cluster.submitPrefix, this.pollMs);
      this.pollers.set(clusterId, poller);
    }
    return poller;
  }
}
