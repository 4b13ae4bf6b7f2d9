import path from 'node:path';
import type { JobStatus } from '@runyard/contract';
import { stdoutFileOf } from '../engines/task-env.js';
import type { ExternalId, LimitCounts, TaskEnd } from '../executors/executor.js';
import { pidsLimitOf } from '../executors/sandbox/cgroup.js';
import { jobResources } from '../instance-types/job-resources.js';
import { attemptStatus, moveJob } from './attempt-updates.js';
import { computeCostCents } from './cost.js';
import type { AttemptRef, SchedulerContext } from './context.js';
import { controlDirOf, failureFileOf, jobPaths, taskPaths, type JobPaths } from './job-paths.js';
import { preparedQuery } from '../store/prepared-query.js';
import { appendBeneath, lstatBeneath, readBeneath } from '../storage/beneath.js';
import { isRemote, pushOutputs, removeLocalCopies } from './outputs.js';

export type Outcome =
  /** message: what its limits stopped while it still completed (a child killed for its memory); also the log's last line. */
  | { status: 'completed'; message?: string }
  /** logged: the message is also the last line of the job's log. */
  | { status: 'failed'; exitCode?: number | null; message: string; logged?: boolean }
  | { status: 'aborted'; message?: string };

/**
 * What reporting the job running would have stored, for a task that ended before that report
 * (AttemptRunner's running-mark delay, or a task that ended while nobody watched it): stored with
 * its outcome, in the same UPDATE.
 */
export interface StartRecord {
  externalId: ExternalId | null;
  /** When the task was launched (ISO); a start time the job already has is kept. */
  startTime: string;
}

const settlingJob = preparedQuery((db, p: { id: string }) =>
  db
    .selectFrom('jobs')
    .select([
      'id',
      'workspace_id',
      'work_bucket',
      'work_prefix',
      'instance_type',
      'resource_cpu',
      'start_time',
      'abort_force',
      'array_limit',
      'array_tasks_json',
    ])
    .where('id', '=', p.id),
);

/**
 * Records the final status of an attempt with its end time and compute cost, only if the
 * attempt is still current and ours: a result reported by any other attempt is refused (false).
 * On S3 and Azure the job's outputs are pushed to the store first (only its logs after a forced
 * abort, which saves nothing); a completed job whose outputs cannot be saved fails.
 */
export async function settle(ctx: SchedulerContext, ref: AttemptRef, outcome: Outcome, started?: StartRecord): Promise<boolean> {
  const found = await settlingJob.executeTakeFirst(ctx.db, { id: ref.id });
  if (!found) return false;
  const row = started ? { ...found, start_time: found.start_time ?? started.startTime } : found;
  const end = Date.now();
  let paths: JobPaths | null = null;
  const logLine =
    outcome.status === 'failed' ? (outcome.logged ? outcome.message : null) : outcome.status === 'completed' ? outcome.message : null;
  if (logLine && (await attemptStatus(ctx.db, ref))) {
    // Before the outputs are pushed, so the store's copy of the log has it too.
    const logs = await taskPaths(ctx.config.dataDir, ctx.blobs, row);
    // The task writes its logs directory: a link it left there as its log is refused, never written through.
    await appendBeneath(logs.logs, path.basename(stdoutFileOf(logs)), `${logLine}\n`).catch((e: Error) =>
      ctx.log.warn({ jobId: ref.id, err: e.message }, 'could not write the end of a job to its log'),
    );
  }
  if (isRemote(ctx) && (await attemptStatus(ctx.db, ref))) {
    try {
      paths = await taskPaths(ctx.config.dataDir, ctx.blobs, row);
      await pushOutputs(ctx, paths, outcome.status === 'aborted' && row.abort_force === 1);
    } catch (e) {
      const message = `The job's outputs could not be saved to the store: ${(e as Error).message}`;
      ctx.log.error({ jobId: ref.id, attempt: ref.attempt, err: (e as Error).message }, 'could not save the outputs of a job');
      if (outcome.status === 'completed') outcome = { status: 'failed', message };
    }
  }
  ctx.settling?.(true);
  const settled = await moveJob(ctx.db, ref, outcome.status, {
    ...(started && { start_time: row.start_time, ...(started.externalId && { external_id: JSON.stringify(started.externalId) }) }),
    end_time: new Date(end).toISOString(),
    compute_cost_cents: computeCostCents(ctx.config, row, end),
    lease_owner: null,
    lease_expires_at: null,
    ...(outcome.status === 'completed' && { exit_code: 0, ...(outcome.message && { status_message: outcome.message }) }),
    ...(outcome.status === 'failed' && { exit_code: outcome.exitCode ?? null, status_message: outcome.message }),
    ...(outcome.status === 'aborted' && outcome.message && { status_message: outcome.message }),
  }).finally(() => ctx.settling?.(false));
  if (settled) {
    ctx.log.info({ jobId: ref.id, attempt: ref.attempt, status: outcome.status }, 'job settled');
    ctx.slotFreed?.();
    await removeLocalCopies(ctx, ref.id, paths ?? jobPaths(ctx.config.dataDir, row.workspace_id, row.id));
  } else ctx.log.warn({ jobId: ref.id, attempt: ref.attempt, status: outcome.status }, 'result refused: the attempt is no longer current');
  return settled;
}

/**
 * A task that provably did not finish (never started, or vanished without an exit code) runs
 * again as the next attempt, until RUNYARD_JOB_MAX_ATTEMPTS; then the job fails.
 */
export async function requeueOrFail(ctx: SchedulerContext, ref: AttemptRef, reason: string): Promise<boolean> {
  if (ref.attempt >= ctx.config.jobMaxAttempts) {
    return settle(ctx, ref, { status: 'failed', message: `The job's task was lost ${ref.attempt} times (last: ${reason}).` });
  }
  const requeued = await moveJob(ctx.db, ref, 'queued', { lease_owner: null, lease_expires_at: null, external_id: null, start_time: null });
  if (requeued) ctx.log.warn({ jobId: ref.id, attempt: ref.attempt, reason }, 'job queued again');
  return requeued;
}

/**
 * What to record once an attempt's task is over (or never was), given the job's present status.
 * started: the launch of a task whose job was not reported running yet (stored with the outcome).
 */
export async function concludeAttempt(
  ctx: SchedulerContext,
  ref: AttemptRef,
  end: TaskEnd | { state: 'absent' },
  started?: StartRecord,
): Promise<boolean> {
  const current = await attemptStatus(ctx.db, ref);
  if (!current) return false;
  const status: JobStatus = current.status;
  if (status === 'aborting') return settle(ctx, ref, { status: 'aborted' }, started);
  if (end.state === 'exited') {
    // A task that ended before its job was reported running (a short one, or one that finished while
    // nobody watched it): its start is stored with its outcome, in one UPDATE, not two.
    const start = status === 'initializing' ? (started ?? { externalId: null, startTime: new Date().toISOString() }) : undefined;
    // A message: the executor ended it (a batch system's time limit, a cancel there), whatever its code.
    // What its limits stopped is always said: a kill the task survived (a pipeline's retried step) is not its failure, but it is reported.
    const stopped = end.limits ? await limitsNote(ctx, ref, end.limits) : null;
    if (end.exitCode === 0 && !end.message) return settle(ctx, ref, { status: 'completed', ...(stopped && { message: stopped }) }, start);
    // One it ended of is its failure.
    if (end.outOfMemory) return settle(ctx, ref, await outOfMemory(ctx, ref, end.exitCode), start);
    const reason = end.message ?? (await failureReason(ctx, ref)) ?? (await exitReason(ctx, ref, end.exitCode));
    return settle(
      ctx,
      ref,
      { status: 'failed', exitCode: end.exitCode, message: stopped ? `${reason} ${stopped}` : reason, ...(stopped && { logged: true }) },
      start,
    );
  }
  // Killed for its memory: running it again would end the same way.
  if (end.state === 'lost' && end.outOfMemory) return settle(ctx, ref, await outOfMemory(ctx, ref, null));
  return requeueOrFail(ctx, ref, end.state === 'lost' ? end.reason : 'the task never started');
}

/** What the task said of its own failure (failureFileOf), at most 2000 characters; null when it said nothing. */
async function failureReason(ctx: SchedulerContext, ref: AttemptRef): Promise<string | null> {
  // The task writes its failure file (bound into its sandbox): read beneath the control directory, never through a link.
  const file = failureFileOf(controlDirOf(ctx.config.dataDir, ref.id), ref.attempt);
  const bytes = await readBeneath(path.dirname(file), path.basename(file), 0, 64 * 1024).catch(() => null);
  const text = bytes?.toString('utf8') ?? '';
  const reason = text.replace(/\0/g, '').trim();
  if (!reason) return null;
  return reason.length > 2000 ? `${reason.slice(0, 1997)}...` : reason;
}

/** Lines of a failed bash job's log that its status message ends with, and their characters at most. */
const TAIL_LINES = 5;
const TAIL_CHARS = 1000;

/**
 * The failure of a task that said nothing of it: its exit code, and for a bash job the last lines
 * of its log (its stdout and stderr, which share the file), where its error usually is.
 */
async function exitReason(ctx: SchedulerContext, ref: AttemptRef, exitCode: number | null): Promise<string> {
  const reason = `The task exited with code ${exitCode}.`;
  const job = await ctx.db
    .selectFrom('jobs')
    .select(['id', 'workspace_id', 'work_bucket', 'work_prefix', 'workflow_type'])
    .where('id', '=', ref.id)
    .executeTakeFirst();
  if (job?.workflow_type !== 'docker') return reason;
  const tail = await logTail(ctx, job).catch(() => null);
  return tail ? `${reason} The end of its log:\n${tail}` : reason;
}

/** The last TAIL_LINES lines of the job's log, without Runyard's own; read beneath its logs directory (the task writes it). */
async function logTail(ctx: SchedulerContext, job: Parameters<typeof taskPaths>[2]): Promise<string | null> {
  const paths = await taskPaths(ctx.config.dataDir, ctx.blobs, job);
  const name = path.basename(stdoutFileOf(paths));
  const size = (await lstatBeneath(paths.logs, name))?.size ?? 0;
  const start = Math.max(0, size - 4 * TAIL_CHARS);
  const bytes = await readBeneath(paths.logs, name, start, size - start);
  if (!bytes) return null;
  const lines = bytes
    .toString('utf8')
    .split('\n')
    .slice(start > 0 ? 1 : 0)
    .filter((line) => line.trim() && !line.startsWith('Runyard: '));
  const tail = lines.slice(-TAIL_LINES).join('\n');
  return tail ? tail.slice(-TAIL_CHARS) : null;
}

/** What the task's limits stopped while it ran, as a sentence naming them; null when nothing. */
async function limitsNote(ctx: SchedulerContext, ref: AttemptRef, limits: LimitCounts): Promise<string | null> {
  const { cpus, memoryGiB } = jobResources(ctx.config, await resourcedJob(ctx, ref));
  const parts: string[] = [];
  if (limits.oomKills > 0)
    parts.push(`${plural(limits.oomKills, 'process was', 'processes were')} killed for exceeding the memory limit of ${memoryGiB} GiB`);
  if (limits.forksRefused > 0)
    parts.push(
      `${plural(limits.forksRefused, 'new process was', 'new processes were')} refused at the limit of ${limits.pidsLimit ?? pidsLimitOf(cpus)} processes`,
    );
  return parts.length ? `Runyard: ${parts.join('; ')}.` : null;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The columns that size the job (instance-types/job-resources.ts), with its queue's executor (the local one caps). */
async function resourcedJob(ctx: SchedulerContext, ref: AttemptRef) {
  const job = await ctx.db
    .selectFrom('jobs')
    .leftJoin('queues', 'queues.id', 'jobs.queue_id')
    .select(['jobs.workflow_type', 'jobs.instance_type', 'jobs.resource_cpu', 'jobs.resource_ram', 'queues.backend'])
    .where('jobs.id', '=', ref.id)
    .executeTakeFirstOrThrow();
  // A job with no queue runs on the local executor (attempt-runner.ts).
  return { ...job, backend: job.backend ?? 'local' };
}

/** The failure of a task the kernel killed for passing its memory limit, naming the limit as the job asked for it. */
async function outOfMemory(ctx: SchedulerContext, ref: AttemptRef, exitCode: number | null): Promise<Outcome> {
  const { memoryGiB } = jobResources(ctx.config, await resourcedJob(ctx, ref));
  return { status: 'failed', exitCode, message: `The task exceeded its memory limit of ${memoryGiB} GiB.`, logged: true };
}
