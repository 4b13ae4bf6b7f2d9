import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import type { Config } from '../config.js';
import type { Engine } from '../engines/engine.js';
import { engineFor } from '../engines/registry.js';
import type { Executor } from '../executors/executor.js';
import { createExecutors } from '../executors/registry.js';
import { hpcClusterLookup } from '../store/hpc-cluster-lookup.js';
import type { BlobStore } from '../storage/blob-store.js';
import { createBlobStore } from '../storage/registry.js';
import type { Store } from '../store/database.js';
import { AttemptRunner, RUNNING_MARK_DELAY_MS } from './attempt-runner.js';
import { claimJobs } from './claim.js';
import { serverImageCache } from './image-use.js';
import { SILENT_LOG, type SchedulerContext, type SchedulerLog } from './context.js';
import { releaseLeases, renewLeases } from './lease.js';
import { reapExpired } from './reaper.js';
import { abortRequests, enforceCostLimits } from './watch.js';
import { enforceDiskLimits } from './disk-limit.js';

export interface SchedulerOptions {
  store: Store;
  config: Config;
  /** By queue backend; default: the local executor. */
  executors?: Record<string, Executor>;
  /** By workflow type; default: engines/registry.ts. */
  engineFor?: (workflowType: string) => Engine;
  /** The workspace blob store; default: the one the configuration chooses. */
  blobs?: BlobStore;
  /** Default: <host>-<pid>-<random>, new for every scheduler (so for every process life). */
  id?: string;
  /** Default: RUNNING_MARK_DELAY_MS (attempt-runner.ts); tests set it to see either path for sure. */
  runningMarkDelayMs?: number;
}

/** A unique id for one scheduler's life; leases name it. */
export function newSchedulerId(): string {
  return `${os.hostname().slice(0, 32)}-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * Claims queued jobs and runs them through their engine and their queue's executor.
 *
 * One pass: take over jobs whose lease expired (reattach or settle or re-queue) and enforce cost
 * limits (at most once a poll interval), notice aborts, claim queued jobs up to each queue's concurrency. A pass runs every
 * schedulerPollMs (how other replicas' submissions are seen) and at once on wake() (how this
 * process's submissions and aborts are). A heartbeat renews the leases of the jobs it runs
 * every third of the lease. A started scheduler keeps the process alive until stop(), which
 * leaves running tasks running; the next scheduler reattaches to them.
 */
export class Scheduler {
  readonly id: string;
  private readonly ctx: SchedulerContext;
  private readonly stopping = new AbortController();
  private readonly runners = new Map<string, AttemptRunner>();
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private passing: Promise<void> | null = null;
  private renewing: Promise<void> | null = null;
  private again = false;
  /** When the last pass that reaped expired leases and enforced cost limits began (performance.now()). */
  private lastPeriodic = -Infinity;
  private lastDiskCheck = 0;
  private diskChecking: Promise<void> | null = null;
  /** Settles whose final UPDATE is under way (ctx.settling). */
  private settlesUnderWay = 0;
  /** Ends the wakes on the store's commits (start()); null where the store tells none. */
  private stopWakingOnCommits: (() => void) | null = null;
  private readonly store: Store;

  constructor(options: SchedulerOptions) {
    this.id = options.id ?? newSchedulerId();
    this.store = options.store;
    // Every running job's wait listens to this one signal: hundreds of listeners are expected, not a leak.
    setMaxListeners(0, this.stopping.signal);
    this.ctx = {
      db: options.store.db,
      kind: options.store.kind,
      config: options.config,
      owner: this.id,
      executors:
        options.executors ??
        createExecutors(options.config, { slurmClusters: hpcClusterLookup(options.store.db), slurmPollMs: options.config.slurmPollMs }),
      engineFor: options.engineFor ?? engineFor,
      blobs: options.blobs ?? createBlobStore(options.config),
      images: serverImageCache(options.config, options.store.db),
      log: SILENT_LOG,
      signal: this.stopping.signal,
      // Where the store tells its commits, the commit of the settle woke a pass already (start()).
      slotFreed: () => {
        if (!this.stopWakingOnCommits) this.wake();
      },
      settling: (underWay) => {
        this.settlesUnderWay += underWay ? 1 : -1;
      },
      runningMarkDelayMs: options.runningMarkDelayMs ?? RUNNING_MARK_DELAY_MS,
    };
  }

  /** Starts the passes and the heartbeat; the first pass (reattach, then claim) runs at once. */
  start(log: SchedulerLog = SILENT_LOG): void {
    if (this.started) return;
    this.started = true;
    this.ctx.log = log;
    // A settle frees its slot when it commits: readers (the next pass's plan) see it then, and a claim
    // made meanwhile is synced after it (one WAL). Waiting for the settle's sync, as its callers do,
    // held the next job back by a sync (2-4 ms) on every job. A commit while a settle is under way
    // may be another's: a pass then finds no slot free, and the settle's own commit wakes one again.
    this.stopWakingOnCommits =
      this.store.onCommitted?.(() => {
        if (this.settlesUnderWay > 0) this.wake();
      }) ?? null;
    this.heartbeat = setInterval(() => this.renew(), Math.max(50, Math.floor(this.ctx.config.schedulerLeaseMs / 3)));
    this.wake();
  }

  /** Runs a pass now (or right after the one under way): call it after inserting a queued job or requesting an abort. */
  wake(): void {
    if (!this.started || this.stopping.signal.aborted) return;
    if (this.passing) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.passing = this.passes();
  }

  /**
   * Stops claiming and watching; running tasks keep running. With releaseLeases (default) their
   * leases end now so the next scheduler reattaches at once; without, they are held until the
   * lease runs out, as after a crash.
   */
  async stop(options: { releaseLeases?: boolean } = {}): Promise<void> {
    if (this.stopping.signal.aborted) return;
    this.stopping.abort();
    this.stopWakingOnCommits?.();
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    await this.passing;
    await this.renewing;
    await this.diskChecking;
    await Promise.all([...this.runners.values()].map((r) => r.launched));
    // The clean-ups after tasks that ended (a cgroup the kernel still held) run on this thread's timers: not cut short.
    await Promise.all(Object.values(this.ctx.executors).map((e) => e.drain?.()));
    if (this.started && options.releaseLeases !== false) await releaseLeases(this.ctx);
  }

  /** Ids of the jobs this scheduler is running now. */
  runningJobs(): string[] {
    return [...this.runners.keys()];
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (e) {
        this.ctx.log.error({ err: (e as Error).message, scheduler: this.id }, 'scheduler pass failed');
      }
    } while (this.again && !this.stopping.signal.aborted);
    this.passing = null;
    if (!this.stopping.signal.aborted) {
      this.timer = setTimeout(() => this.wake(), this.ctx.config.schedulerPollMs);
    }
  }

  private async pass(): Promise<void> {
    const { ctx } = this;
    // Leases and costs change with time, not with submissions: they are looked at once a poll
    // interval, not on every wake (under load every submission wakes the scheduler).
    const now = performance.now();
    const periodic = now - this.lastPeriodic >= ctx.config.schedulerPollMs;
    if (periodic) {
      this.lastPeriodic = now;
      await reapExpired(
        ctx,
        (id) => this.runners.has(id),
        (runner, start) => this.follow(runner, start),
      );
    }
    for (const request of await abortRequests(ctx)) {
      const runner = this.runners.get(request.id);
      if (runner?.ref.attempt === request.attempt) runner.requestAbort(request.abort_force === 1);
    }
    if (periodic) for (const id of await enforceCostLimits(ctx)) this.runners.get(id)?.requestAbort(false);
    if (periodic) this.checkDisks(now);
    if (ctx.signal.aborted) return;
    for (const job of await claimJobs(ctx)) {
      const ref = { id: job.id, attempt: job.attempt, owner: this.id };
      const runner = new AttemptRunner(ctx, ref, job.workspace_id, ctx.executors[job.backend]);
      this.follow(runner, () => runner.run());
    }
  }

  /**
   * Every diskCheckSeconds, what the running jobs wrote against their disk limits: walked beside the
   * passes (a large work directory takes a while), one check at a time.
   */
  private checkDisks(now: number): void {
    if (this.diskChecking || now - this.lastDiskCheck < this.ctx.config.diskCheckSeconds * 1000) return;
    this.lastDiskCheck = now;
    this.diskChecking = enforceDiskLimits(this.ctx, this.runners)
      .catch((e) => this.ctx.log.error({ err: (e as Error).message }, 'could not check the disk use of running jobs'))
      .finally(() => (this.diskChecking = null));
  }

  /** Keeps a runner while its attempt lasts (its lease is renewed meanwhile); then wakes a pass, as a slot is free. */
  private follow(runner: AttemptRunner, start: () => Promise<void>): void {
    const { id } = runner.ref;
    this.runners.set(id, runner);
    start()
      .catch((e) => this.ctx.log.error({ jobId: id, attempt: runner.ref.attempt, err: (e as Error).message }, 'job attempt failed'))
      .finally(() => {
        if (this.runners.get(id) === runner) this.runners.delete(id);
        this.wake();
      });
  }

  private renew(): void {
    if (this.renewing || this.stopping.signal.aborted || !this.runners.size) return;
    this.renewing = renewLeases(this.ctx, [...this.runners.keys()])
      .catch((e) => this.ctx.log.error({ err: (e as Error).message, scheduler: this.id }, 'could not renew leases'))
      .finally(() => (this.renewing = null));
  }
}
