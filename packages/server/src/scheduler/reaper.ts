import type { ExternalId } from '../executors/executor.js';
import { markRunning, parseExternalId } from './attempt-updates.js';
import { recordArrayProgress, withArrayOutcome } from './array-progress.js';
import { AttemptRunner } from './attempt-runner.js';
import type { AttemptRef, SchedulerContext } from './context.js';
import { expiredJobs, takeOver, type ExpiredJob } from './lease.js';
import { concludeAttempt, requeueOrFail, settle } from './settle.js';

/** Where the reaper hands a task that is still running: the scheduler follows it like one it launched. */
export type Adopt = (runner: AttemptRunner, start: () => Promise<void>) => void;

/**
 * Recovers one job taken over from a scheduler whose lease ran out. Reattach before relaunch:
 * the executor is asked about the attempt (by its stored id, or by its control files when the
 * id was never stored); a running task is followed, a finished one settled from its exit file,
 * and only a task that provably never ran (or vanished without an exit code) runs again.
 */
async function recover(ctx: SchedulerContext, job: ExpiredJob, adopt: Adopt): Promise<void> {
  const ref: AttemptRef = { id: job.id, attempt: job.attempt, owner: ctx.owner };
  // Claimed by an earlier Runyard scheduler, which wrote scheduled before it prepared or launched anything.
  if (job.status === 'scheduled') {
    await requeueOrFail(ctx, ref, 'claimed but never started');
    return;
  }
  const stored = parseExternalId(job.external_id);
  const backend = stored?.backend ?? job.queue_backend ?? '';
  const executor = ctx.executors[backend];
  if (!executor) {
    if (job.status === 'aborting') await settle(ctx, ref, { status: 'aborted' });
    else await settle(ctx, ref, { status: 'failed', message: `This server has no executor for the backend "${backend}".` });
    return;
  }
  const runner = new AttemptRunner(ctx, ref, job.workspace_id, executor);
  const state = await executor.inspect(runner.control, stored);
  if (state.state !== 'running') {
    // Followed like a running task: concluding may upload the job's outputs (S3, Azure), under a renewed lease.
    adopt(runner, async () => {
      const progress = job.array_size ? await recordArrayProgress(ctx, ref, runner.control.dir, job.array_size) : undefined;
      await concludeAttempt(ctx, ref, withArrayOutcome(state, progress));
    });
    return;
  }
  const id: ExternalId = state.id;
  if (!stored && !(await markRunning(ctx.db, ref, id, !executor.started))) return;
  ctx.log.info({ jobId: job.id, attempt: job.attempt, externalId: id }, 'reattached to a running task');
  adopt(runner, () => runner.adopt(id, job.status === 'aborting' ? job.abort_force === 1 : null, job.array_size ?? null));
}

/** Takes over every active job whose lease expired (except those this scheduler is running) and recovers it. */
export async function reapExpired(ctx: SchedulerContext, isMine: (jobId: string) => boolean, adopt: Adopt): Promise<void> {
  for (const job of await expiredJobs(ctx)) {
    if (ctx.signal.aborted) return;
    if (isMine(job.id) || !(await takeOver(ctx, job))) continue;
    try {
      await recover(ctx, job, adopt);
    } catch (e) {
      ctx.log.error({ jobId: job.id, err: (e as Error).message }, 'could not recover the job');
    }
  }
}
