import { appendFile, readFile } from 'node:fs/promises';
import type { JobStatus } from '@runyard/contract';
import { stdoutFileOf } from '../engines/task-env.js';
import type { TaskEnd } from '../executors/executor.js';
import { jobResources } from '../instance-types/job-resources.js';
import { attemptStatus, markRunning, moveJob } from './attempt-updates.js';
import { computeCostCents } from './cost.js';
import type { AttemptRef, SchedulerContext } from './context.js';
import { controlDirOf, failureFileOf, jobPaths, taskPaths, type JobPaths } from './job-paths.js';
import { preparedQuery } from '../store/prepared-query.js';
import { isRemote, pushOutputs, removeLocalCopies } from './outputs.js';

export type Outcome =
  | { status: 'completed' }
  /** logged: the message is also the last line of the job's log. */
  | { status: 'failed'; exitCode?: number | null; message: string; logged?: boolean }
  | { status: 'aborted'; message?: string };

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
export async function settle(ctx: SchedulerContext, ref: AttemptRef, outcome: Outcome): Promise<boolean> {
  const row = await settlingJob.executeTakeFirst(ctx.db, { id: ref.id });
  if (!row) return false;
  const end = Date.now();
  let paths: JobPaths | null = null;
  if (outcome.status === 'failed' && outcome.logged && (await attemptStatus(ctx.db, ref))) {
    // Before the outputs are pushed, so the store's copy of the log has it too.
    const logs = await taskPaths(ctx.config.dataDir, ctx.blobs, row);
    await appendFile(stdoutFileOf(logs), `${outcome.message}\n`).catch((e: Error) =>
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
  const settled = await moveJob(ctx.db, ref, outcome.status, {
    end_time: new Date(end).toISOString(),
    compute_cost_cents: computeCostCents(ctx.config, row, end),
    lease_owner: null,
    lease_expires_at: null,
    ...(outcome.status === 'completed' && { exit_code: 0 }),
    ...(outcome.status === 'failed' && { exit_code: outcome.exitCode ?? null, status_message: outcome.message }),
    ...(outcome.status === 'aborted' && outcome.message && { status_message: outcome.message }),
  });
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

/** What to record once an attempt's task is over (or never was), given the job's present status. */
export async function concludeAttempt(ctx: SchedulerContext, ref: AttemptRef, end: TaskEnd | { state: 'absent' }): Promise<boolean> {
  const current = await attemptStatus(ctx.db, ref);
  if (!current) return false;
  const status: JobStatus = current.status;
  if (status === 'aborting') return settle(ctx, ref, { status: 'aborted' });
  if (end.state === 'exited') {
    // A task that finished while nobody watched it, before its id was stored: report it running first.
    if (status === 'initializing' && !(await markRunning(ctx.db, ref, null))) return false;
    // A message: the executor ended it (a batch system's time limit, a cancel there), whatever its code.
    if (end.exitCode === 0 && !end.message) return settle(ctx, ref, { status: 'completed' });
    // A kill the task survived (a pipeline's retried step) is not its failure; one it ended of is.
    if (end.outOfMemory) return settle(ctx, ref, await outOfMemory(ctx, ref, end.exitCode));
    return settle(ctx, ref, {
      status: 'failed',
      exitCode: end.exitCode,
      message: end.message ?? (await failureReason(ctx, ref)) ?? `The task exited with code ${end.exitCode}.`,
    });
  }
  // Killed for its memory: running it again would end the same way.
  if (end.state === 'lost' && end.outOfMemory) return settle(ctx, ref, await outOfMemory(ctx, ref, null));
  return requeueOrFail(ctx, ref, end.state === 'lost' ? end.reason : 'the task never started');
}

/** What the task said of its own failure (failureFileOf), at most 2000 characters; null when it said nothing. */
async function failureReason(ctx: SchedulerContext, ref: AttemptRef): Promise<string | null> {
  const text = await readFile(failureFileOf(controlDirOf(ctx.config.dataDir, ref.id), ref.attempt), 'utf8').catch(() => '');
  const reason = text.replace(/\0/g, '').trim();
  if (!reason) return null;
  return reason.length > 2000 ? `${reason.slice(0, 1997)}...` : reason;
}

/** The failure of a task the kernel killed for passing its memory limit, naming the limit as the job asked for it. */
async function outOfMemory(ctx: SchedulerContext, ref: AttemptRef, exitCode: number | null): Promise<Outcome> {
  const job = await ctx.db
    .selectFrom('jobs')
    .select(['workflow_type', 'instance_type', 'resource_cpu', 'resource_ram'])
    .where('id', '=', ref.id)
    .executeTakeFirstOrThrow();
  const { memoryGiB } = jobResources(ctx.config, job);
  return { status: 'failed', exitCode, message: `The task exceeded its memory limit of ${memoryGiB} GiB.`, logged: true };
}
