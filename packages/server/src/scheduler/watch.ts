import { preparedQuery } from '../store/prepared-query.js';
import { moveJob } from './attempt-updates.js';
import type { SchedulerContext } from './context.js';
import { computeCostCents, costLimitExceeded } from './cost.js';

const abortingJobsOf = preparedQuery((db, p: { owner: string }) =>
  db.selectFrom('jobs').select(['id', 'attempt', 'abort_force']).where('lease_owner', '=', p.owner).where('status', '=', 'aborting'),
);

/** Jobs of this scheduler that the job service (or the cost limit) asked to abort. */
export function abortRequests(ctx: SchedulerContext) {
  return abortingJobsOf.execute(ctx.db, { owner: ctx.owner });
}

/**
 * Updates the running cost of this scheduler's running jobs and moves those past their
 * computeCostLimit to aborting, with a message saying why. Answers their ids. Checked every pass
 * (RUNYARD_SCHEDULER_POLL_MS); a job's stored cost is rewritten only once it is a second or more
 * behind (what it cost a second ago is more than what is stored), and all of a pass's rewrites are
 * one transaction: a pass over many short jobs is not a commit per job.
 */
export async function enforceCostLimits(ctx: SchedulerContext): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('jobs')
    .select([
      'id',
      'attempt',
      'instance_type',
      'resource_cpu',
      'start_time',
      'cost_limit',
      'array_limit',
      'array_tasks_json',
      'compute_cost_cents',
    ])
    .where('lease_owner', '=', ctx.owner)
    .where('status', '=', 'running')
    .execute();
  const exceeded: string[] = [];
  const behind: { id: string; attempt: number; cost: number }[] = [];
  const now = Date.now();
  for (const row of rows) {
    const ref = { id: row.id, attempt: row.attempt, owner: ctx.owner };
    const cost = computeCostCents(ctx.config, row, now);
    if (costLimitExceeded(cost, row.cost_limit)) {
      const message = `The job was aborted: its compute cost (${(cost / 100).toFixed(4)} USD) passed its cost limit of ${row.cost_limit} USD.`;
      if (await moveJob(ctx.db, ref, 'aborting', { compute_cost_cents: cost, status_message: message, abort_force: 0 }, ['running']))
        exceeded.push(row.id);
    } else if (computeCostCents(ctx.config, row, now - 1000) > Number(row.compute_cost_cents)) {
      behind.push({ id: row.id, attempt: row.attempt, cost });
    }
  }
  if (behind.length)
    await ctx.db.transaction().execute(async (trx) => {
      for (const { id, attempt, cost } of behind)
        await trx
          .updateTable('jobs')
          .set({ compute_cost_cents: cost })
          .where('id', '=', id)
          .where('attempt', '=', attempt)
          .where('lease_owner', '=', ctx.owner)
          .where('status', '=', 'running')
          .execute();
    });
  return exceeded;
}
