import { mkdirSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { isTaskNetwork } from '../config.js';
import { pullTaskImage } from './image-pull.js';
import { EngineError, WDL_DRIVERS, type EngineServerInfo, type WdlDriverName } from '../engines/engine.js';
import { engineServerOf } from '../store/engine-server-lookup.js';
import type { AttemptControl, Executor, ExternalId, TaskEnd, TaskSpec } from '../executors/executor.js';
import { attemptStatus, markRunning } from './attempt-updates.js';
import type { AttemptRef, SchedulerContext } from './context.js';
import { releaseInputs, stageInputs, type JobInputs } from '../staging/inputs.js';
import { jobPaths, taskPaths, type JobPaths } from './job-paths.js';
import { cappedNote, jobResources } from '../instance-types/job-resources.js';
import { runTimeLimitSeconds } from './cost.js';
import { ignoredOptionNotes } from './job-options.js';
import { pullWorkDir, startLogPusher } from './outputs.js';
import { watchArrayProgress, withArrayOutcome, type ArrayProgress } from './array-progress.js';
import { concludeAttempt, settle, type StartRecord } from './settle.js';
import { withWorkDirLock } from './work-dir-lock.js';
import { preparedQuery } from '../store/prepared-query.js';

const jobById = preparedQuery((db, p: { id: string }) => db.selectFrom('jobs').selectAll().where('id', '=', p.id));
const workflowById = preparedQuery((db, p: { id: string }) => db.selectFrom('workflows').selectAll().where('id', '=', p.id));
const queuePlacement = preparedQuery((db, p: { id: string }) =>
  db.selectFrom('queues').select(['backend', 'task_network', 'pids_limit', 'hpc_id', 'partition']).where('id', '=', p.id),
);

/**
 * How long after launching a task that starts at once (local executor) its job is reported running.
 * A task that ends sooner (most of a batch of small jobs: `true` runs 15-20 ms here) is settled with
 * its id and start time in one commit instead of two: each commit is an fsync that blocks the
 * scheduler thread (p50 0.6 ms, p90 3.3 ms on a loaded 2-core machine). The job's start time is the
 * launch either way; only the status `running` is seen that much later.
 */
export const RUNNING_MARK_DELAY_MS = 50;

/** How long a WDL job waits for its workspace's engine server to start. */
const ENGINE_START_WAIT_MS = 10 * 60_000;

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * One attempt of one job in this scheduler: initializing -> the engine prepares the task -> the
 * executor launches it -> its external id is stored and the job reported running -> wait ->
 * settle. Every write is conditional on the attempt being current and ours, so a stale attempt
 * never records anything. After stop() (ctx.signal) it writes nothing more and leaves the task running.
 */
export class AttemptRunner {
  /** The job's directories: where its control files are from the start, the rest once prepare() read the job. */
  paths: JobPaths;
  readonly control: AttemptControl;
  /** Settles when the attempt is past launching (its id stored, or nothing launched): stop() waits for it. */
  launched: Promise<void> = Promise.resolve();
  private externalId: ExternalId | null = null;
  /** The end of a task that was followed from its launch (set by launch() when it waits RUNNING_MARK_DELAY_MS). */
  private ending: Promise<TaskEnd> | null = null;
  /** A launched task whose job was not reported running (it ended within RUNNING_MARK_DELAY_MS). */
  private unreported: StartRecord | null = null;
  private abortForce: boolean | null = null;
  private killing: Promise<void> | null = null;
  private killingForce = false;
  /** Bash array jobs: how many tasks (read with the job). */
  private arraySize: number | null = null;
  /** What staging held open for the task (released when the attempt's run ends). */
  private inputs: JobInputs | null = null;

  constructor(
    private readonly ctx: SchedulerContext,
    readonly ref: AttemptRef,
    workspaceId: string,
    private readonly executor: Executor,
  ) {
    this.paths = jobPaths(ctx.config.dataDir, workspaceId, ref.id);
    this.control = { dir: this.paths.control, attempt: ref.attempt };
  }

  /** A freshly claimed job: run it from the start. */
  async run(): Promise<void> {
    try {
      const launching = this.launch();
      this.launched = launching.then(
        () => undefined,
        () => undefined,
      );
      const id = await launching;
      if (id) await this.follow(id);
    } finally {
      // The inputs held open for the sandbox's binds, until its task has ended.
      if (this.inputs) await releaseInputs(this.inputs);
    }
  }

  /** A task that is already running (found by the reaper): follow it to its end. */
  async adopt(id: ExternalId, abortForce: boolean | null, arraySize: number | null = null): Promise<void> {
    this.externalId = id;
    this.arraySize = arraySize;
    if (abortForce !== null) this.requestAbort(abortForce);
    await this.follow(id);
  }

  /** Why the scheduler stopped the task (its disk limit): the attempt then fails with it, whatever the task's exit. */
  private failure: string | null = null;

  /** Stops the task at once and fails the attempt with this message (also its log's last line). */
  failWith(message: string): void {
    this.failure ??= message;
    this.requestAbort(true);
  }

  /** Stops the task: gracefully (SIGTERM, then SIGKILL after the grace period) or at once. Idempotent; force wins. */
  requestAbort(force: boolean): void {
    this.abortForce = force || this.abortForce === true;
    if (this.externalId && (!this.killing || (this.abortForce && !this.killingForce))) {
      this.killingForce = this.abortForce;
      this.killing = this.executor
        .kill(this.externalId, { force: this.abortForce, graceMs: this.ctx.config.abortGraceMs })
        .catch((e) => this.ctx.log.error({ jobId: this.ref.id, err: messageOf(e) }, 'could not stop the task'));
    }
  }

  private get stopped(): boolean {
    return this.ctx.signal.aborted;
  }

  /** Up to the stored external id; null when nothing is left to follow. */
  private async launch(): Promise<ExternalId | null> {
    const { db } = this.ctx;
    if (this.stopped) return null;
    // The claim made it initializing. Asked to abort right after the claim: nothing was started.
    const claimed = await attemptStatus(db, this.ref);
    if (claimed?.status === 'aborting') await settle(this.ctx, this.ref, { status: 'aborted' });
    if (claimed?.status !== 'initializing') return null;
    let task: TaskSpec;
    try {
      task = await this.prepare();
    } catch (e) {
      await this.failBeforeLaunch(messageOf(e));
      return null;
    }
    const current = await attemptStatus(db, this.ref);
    if (!current || this.stopped) return null;
    if (current.status === 'aborting') {
      await settle(this.ctx, this.ref, { status: 'aborted' });
      return null;
    }
    // Aborted outright while it was prepared: nothing to launch.
    if (current.status !== 'initializing') return null;
    let id: ExternalId;
    try {
      id = await this.executor.launch(task, this.control);
    } catch (e) {
      await this.failBeforeLaunch(`The task could not be started: ${messageOf(e)}`);
      return null;
    }
    this.externalId = id;
    const startTime = new Date().toISOString();
    if (!this.executor.started && (await this.endedWithin(id, startTime, this.ctx.runningMarkDelayMs ?? RUNNING_MARK_DELAY_MS))) return id;
    // An executor that queues tasks (Slurm) reports when one starts: until then the job stays initializing.
    if (!(await markRunning(db, this.ref, id, !this.executor.started, startTime))) {
      // Aborted outright, or no longer ours: a task nobody will follow must not run.
      this.ctx.log.warn({ jobId: this.ref.id, attempt: this.ref.attempt }, 'launched task is no longer wanted; stopping it');
      await this.executor.kill(id, { force: true, graceMs: 0 });
      return null;
    }
    const after = await attemptStatus(db, this.ref);
    if (after?.status === 'aborting') this.requestAbort(after.abortForce);
    else if (this.abortForce !== null) this.requestAbort(this.abortForce);
    return id;
  }

  /**
   * Follows the launched task (started at startTime) from now on (follow() takes that wait over); true
   * when it ended within ms: its job is then not reported running but settled with its start (a commit less).
   */
  private async endedWithin(id: ExternalId, startTime: string, ms: number): Promise<boolean> {
    const ending = this.executor.wait(this.control, id, this.ctx.signal);
    this.ending = ending;
    const timer = new AbortController();
    const ended = await Promise.race([
      ending.then(
        () => true,
        () => true,
      ),
      delay(ms, false, { signal: timer.signal }).catch(() => false),
    ]);
    timer.abort();
    if (ended) this.unreported = { externalId: id, startTime };
    return ended;
  }

  private async prepare(): Promise<TaskSpec> {
    const job = await jobById.executeTakeFirst(this.ctx.db, { id: this.ref.id });
    if (!job) throw new Error(`job ${this.ref.id} is gone`);
    this.arraySize = job.array_size ?? null;
    const workflow = await workflowById.executeTakeFirst(this.ctx.db, { id: job.workflow_id });
    if (!workflow) throw new Error(`the workflow of job ${this.ref.id} is gone`);
    const { blobs, config, db } = this.ctx;
    this.paths = await taskPaths(config.dataDir, blobs, job);
    const paths = this.paths;
    // The job's directories, made at once: a local mkdir costs 0.1-0.4 ms, less than a round trip through
    // the thread pool, whose queue made them 8 ms on a loaded machine, on the path from claim to start.
    for (const dir of [paths.logs, paths.results, paths.control]) mkdirSync(dir, { recursive: true });
    // Independent of each other, so under way at once: its work directory, made and pulled under
    // the directory's lock (S3, Azure: as the store has it; a resumed job's is its parent's), so that
    // the clean-up of a job that shares it is not half done and does not remove what is being made;
    // its staged inputs; and its queue's placement.
    const [, inputs, queue] = await Promise.all([
      withWorkDirLock(paths.work, async () => {
        mkdirSync(paths.work, { recursive: true });
        await pullWorkDir(this.ctx, paths);
      }),
      // Kept as soon as staged, so that what it holds open is released even when the rest fails.
      stageInputs({ db, blobs, secretKeyFile: config.secretKeyFile }, job, paths.inputs).then((staged) => (this.inputs = staged)),
      job.queue_id ? queuePlacement.executeTakeFirst(db, { id: job.queue_id }) : undefined,
    ]);
    // The queue's network, where it sets one, for the engine (a container's --network) and the sandbox alike.
    const network = isTaskNetwork(queue?.task_network) ? queue.task_network : config.taskNetwork;
    const engineConfig = network === config.taskNetwork ? config : { ...config, taskNetwork: network };
    const server = job.workflow_type === 'wdl' ? await this.runningEngineServer(job.workspace_id) : null;
    const task = await this.ctx.engineFor(job.workflow_type).prepare(job, workflow, this.paths, engineConfig, inputs, server);
    // An engine that must reach a server of its own (a Cromwell client) says so; otherwise the queue's network.
    task.network ??= network;
    // A container job's image, pulled (or found in the cache) with its owner's account before the launch.
    await pullTaskImage(this.ctx, this.ref, job, task);
    // A queue of an HPC cluster: which of the executor's clusters runs the task, and in which partition.
    if (queue?.hpc_id) task.placement = { cluster: queue.hpc_id, ...(queue.partition ? { partition: queue.partition } : {}) };
    // All a sandboxed task sees of the data directory: its own directories, and read-only its control
    // directory (sources, params file, staged inputs) and the files of the store it reads.
    task.writable = [this.paths.work, this.paths.logs, this.paths.results, ...(task.writable ?? [])];
    task.readable = [this.paths.control, ...inputs.readPaths, ...(task.readable ?? [])];
    // The local store's inputs, bound from the handles staging opened when it checked them (never by a path that a
    // running task of the workspace could change meanwhile).
    if (inputs.held.length)
      task.bindSources = Object.fromEntries(inputs.held.map(({ path, handle }) => [path, `/proc/${process.pid}/fd/${handle.fd}`]));
    // What the job asked for (bash: cpus and memory; Nextflow, WDL: its instance type), held by the executor.
    // An array task: what each of its rows is given (the executor holds what the rows running at once need).
    // On the local executor, at most what it has (jobResources): the log says so at the first attempt.
    const placed = { ...job, backend: queue?.backend ?? 'local' };
    const { cpus, memoryGiB } = jobResources(config, placed);
    // The queue's process limit where it sets one (executors/sandbox/cgroup.ts: else by CPUs).
    task.resources = { cpus, memoryGiB, ...(queue?.pids_limit ? { pids: queue.pids_limit } : {}) };
    const timeLimit = runTimeLimitSeconds(config, job);
    if (timeLimit !== undefined) task.timeLimitSeconds = timeLimit;
    if (job.attempt > 1)
      task.preamble = [`Runyard: attempt ${job.attempt} (the previous attempt's task was lost).`, ...(task.preamble ?? [])];
    // Said once, by the first attempt.
    else {
      const capped = cappedNote(config, placed);
      task.preamble = [...(capped ? [`Runyard: ${capped}`] : []), ...ignoredOptionNotes(job), ...(task.preamble ?? [])];
    }
    return task;
  }

  /**
   * A WDL job's engine server, once it runs: a job submitted while it starts waits for it (polling
   * the store, as long as the job is not aborted); one whose server is stopped before it starts fails.
   */
  private async runningEngineServer(workspaceId: string): Promise<EngineServerInfo> {
    const deadline = Date.now() + ENGINE_START_WAIT_MS;
    for (;;) {
      const server = await engineServerOf(this.ctx.db, workspaceId);
      if (server?.status === 'Running' && (WDL_DRIVERS as readonly string[]).includes(server.driver))
        return { id: server.id, driver: server.driver as WdlDriverName, url: server.url, managed: server.process_json !== null };
      if (server?.status !== 'Starting')
        throw new EngineError(
          `The workspace's WDL engine server is ${server?.status.toLowerCase() ?? 'stopped'}: start it ("runyard cromwell start") and run the job again.`,
        );
      if (Date.now() > deadline)
        throw new EngineError(`The workspace's WDL engine server did not start within ${ENGINE_START_WAIT_MS / 60_000} minutes.`);
      if (this.stopped || (await attemptStatus(this.ctx.db, this.ref))?.status !== 'initializing')
        throw new EngineError('The job ended while its engine server started.');
      await delay(1000);
    }
  }

  private async failBeforeLaunch(message: string): Promise<void> {
    if (this.stopped) return;
    const current = await attemptStatus(this.ctx.db, this.ref);
    if (!current) return;
    if (current.status === 'aborting') await settle(this.ctx, this.ref, { status: 'aborted' });
    else await settle(this.ctx, this.ref, { status: 'failed', message });
  }

  /** Until the task runs (at once for executors that do not queue tasks); then the job is running, from now. */
  private async untilStarted(id: ExternalId): Promise<void> {
    if (!this.executor.started) return;
    await this.executor.started(this.control, id, this.ctx.signal);
    if (!this.stopped) await markRunning(this.ctx.db, this.ref, id);
  }

  private async follow(id: ExternalId): Promise<void> {
    let end;
    const logs = startLogPusher(this.ctx, this.ref.id);
    const array = this.watchArray();
    let progress: ArrayProgress | undefined;
    try {
      await this.untilStarted(id);
      end = await (this.ending ?? this.executor.wait(this.control, id, this.ctx.signal));
    } catch (e) {
      if (this.stopped) return;
      throw e;
    } finally {
      progress = await array?.stop();
      await logs.stop();
    }
    if (this.killing) await this.killing;
    if (this.stopped) return;
    // Stopped by the scheduler (its disk limit): that is its end, whether the kill left an exit code or not.
    if (this.failure && (await attemptStatus(this.ctx.db, this.ref))?.status !== 'aborting') {
      const exitCode = end.state === 'exited' ? end.exitCode : null;
      await settle(this.ctx, this.ref, { status: 'failed', exitCode, message: this.failure, logged: true }, this.unreported ?? undefined);
    } else {
      // An array job that failed says which of its tasks did.
      await concludeAttempt(this.ctx, this.ref, withArrayOutcome(end, progress), this.unreported ?? undefined);
    }
    // After the outcome: the next job need not wait for it.
    await this.executor
      .cleanup?.(this.control)
      .catch((e) =>
        this.ctx.log.warn({ jobId: this.ref.id, attempt: this.ref.attempt, err: messageOf(e) }, "could not clean up after the job's task"),
      );
  }

  /** For an array job: its task counts kept on its row while it runs. */
  private watchArray(): { stop(): Promise<ArrayProgress> } | undefined {
    return this.arraySize ? watchArrayProgress(this.ctx, this.ref, this.control.dir, this.arraySize) : undefined;
  }
}
