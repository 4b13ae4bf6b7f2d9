import type { Selectable } from 'kysely';
import type { JobTable } from '../store/schema.js';
import { ACTIVE_STATUSES } from './job-state.js';
import { leaseUntil, nowIso, type SchedulerContext } from './context.js';

/** Renews the leases of the jobs this scheduler is running (the heartbeat). */
export async function renewLeases(ctx: SchedulerContext, jobIds: string[]): Promise<void> {
  for (let i = 0; i < jobIds.length; i += 500) {
    await ctx.db
      .updateTable('jobs')
      .set({ lease_expires_at: leaseUntil(ctx.config) })
      .where('lease_owner', '=', ctx.owner)
      .where('status', 'in', ACTIVE_STATUSES)
      .where('id', 'in', jobIds.slice(i, i + 500))
      .execute();
  }
}

/** On a clean stop: the leases end now, so the next scheduler takes the running tasks over at once. */
export async function releaseLeases(ctx: SchedulerContext): Promise<void> {
  await ctx.db
    .updateTable('jobs')
    .set({ lease_expires_at: nowIso() })
    .where('lease_owner', '=', ctx.owner)
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
}

export type ExpiredJob = Selectable<JobTable> & { queue_backend: string | null };

/** Active jobs whose lease has run out: their scheduler died (or stopped) and they need a new owner. */
export function expiredJobs(ctx: SchedulerContext, limit = 100): Promise<ExpiredJob[]> {
  const now = nowIso();
  return ctx.db
    .selectFrom('jobs')
    .leftJoin('queues', 'queues.id', 'jobs.queue_id')
    .selectAll('jobs')
    .select('queues.backend as queue_backend')
    .where('jobs.status', 'in', ACTIVE_STATUSES)
    .where((eb) => eb.or([eb('jobs.lease_expires_at', 'is', null), eb('jobs.lease_expires_at', '<', now)]))
    .orderBy('jobs.lease_expires_at')
    .limit(limit)
    .execute();
}

/** Takes an expired job over (compare-and-set: of two schedulers trying, one wins). */
export async function takeOver(ctx: SchedulerContext, job: Selectable<JobTable>): Promise<boolean> {
  const now = nowIso();
  const result = await ctx.db
    .updateTable('jobs')
    .set({ lease_owner: ctx.owner, lease_expires_at: leaseUntil(ctx.config), updated_at: now })
    .where('id', '=', job.id)
    .where('attempt', '=', job.attempt)
    .where('status', '=', job.status)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
