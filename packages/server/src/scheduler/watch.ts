import { moveJob } from './attempt-updates.js';
import type { SchedulerContext } from './context.js';
import { computeCostCents, costLimitExceeded } from './cost.js';

/** Jobs of this scheduler that the job service (or the cost limit) asked to abort. */
export function abortRequests(ctx: SchedulerContext) {
  return ctx.db
    .selectFrom('jobs')
    .select(['id', 'attempt', 'abort_force'])
    .where('lease_owner', '=', ctx.owner)
    .where('status', '=', 'aborting')
    .execute();
}

/**
 * Updates the running cost of this scheduler's running jobs (every pass, RUNYARD_SCHEDULER_POLL_MS)
 * and moves those past their computeCostLimit to aborting, with a message saying why. Answers their ids.
 */
export async function enforceCostLimits(ctx: SchedulerContext): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('jobs')
    .select(['id', 'attempt', 'instance_type', 'resource_cpu', 'start_time', 'cost_limit', 'array_limit', 'array_tasks_json'])
    .where('lease_owner', '=', ctx.owner)
    .where('status', '=', 'running')
    .execute();
  const exceeded: string[] = [];
  const now = Date.now();
  for (const row of rows) {
    const ref = { id: row.id, attempt: row.attempt, owner: ctx.owner };
    const cost = computeCostCents(ctx.config, row, now);
    if (costLimitExceeded(cost, row.cost_limit)) {
      const message = `The job was aborted: its compute cost (${(cost / 100).toFixed(4)} USD) passed its cost limit of ${row.cost_limit} USD.`;
      if (await moveJob(ctx.db, ref, 'aborting', { compute_cost_cents: cost, status_message: message, abort_force: 0 }, ['running']))
        exceeded.push(row.id);
    } else {
      await ctx.db
        .updateTable('jobs')
        .set({ compute_cost_cents: cost })
        .where('id', '=', ref.id)
        .where('attempt', '=', ref.attempt)
        .where('lease_owner', '=', ctx.owner)
        .where('status', '=', 'running')
        .execute();
    }
  }
  return exceeded;
}
