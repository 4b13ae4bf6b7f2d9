import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Engine } from '../engines/engine.js';
import type { Executor } from '../executors/executor.js';
import type { ImageCache } from '../images/image-cache.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { DatabaseKind } from '../store/database.js';
import type { Database } from '../store/schema.js';

/** pino-compatible: (context object, message). */
export type LogFn = (obj: object, msg?: string) => void;
export interface SchedulerLog {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export const SILENT_LOG: SchedulerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** What the scheduler's parts share: the database, settings, this scheduler's id, executors and engines. */
export interface SchedulerContext {
  db: Kysely<Database>;
  kind: DatabaseKind;
  config: Config;
  /** This scheduler's id (one per process life): the lease owner of the jobs it runs. */
  owner: string;
  executors: Readonly<Record<string, Executor>>;
  engineFor(workflowType: string): Engine;
  /** The workspace blob store: where job inputs come from and (S3, Azure) where job outputs are pushed. */
  blobs: BlobStore;
  /** Where container jobs' images are pulled to and run from. */
  images: ImageCache;
  log: SchedulerLog;
  /** Set by stop(): from then on nothing is written. */
  readonly signal: AbortSignal;
  /** A job of this scheduler was settled, so its slot is free: a pass may claim the next (before the job's clean-up is done). */
  slotFreed?: () => void;
  /**
   * A settle's final UPDATE is under way (true), or answered (false): meanwhile a commit of the
   * scheduler's database may be the one that frees a slot, before it is synced (Scheduler).
   */
  settling?: (underWay: boolean) => void;
  /** How long after launching a task that starts at once its job is reported running (AttemptRunner); default RUNNING_MARK_DELAY_MS. */
  runningMarkDelayMs?: number;
}

/** One dispatch of a job: results are accepted only from the current attempt of its lease owner. */
export interface AttemptRef {
  id: string;
  attempt: number;
  owner: string;
}

export function nowIso(): string {
  return new Date().toISOString();
}

export function leaseUntil(config: Config, from = Date.now()): string {
  return new Date(from + config.schedulerLeaseMs).toISOString();
}
