import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { ACTIVE_STATUSES } from './job-state.js';
import { leaseUntil, nowIso, type SchedulerContext } from './context.js';

export interface ClaimedJob {
  id: string;
  workspace_id: string;
  attempt: number;
  backend: string;
}

type Claimed = Omit<ClaimedJob, 'backend'>;

/** Queues of the given backends that have queued jobs. */
async function queuesWithWork(db: Kysely<Database>, backends: string[]) {
  return db
    .selectFrom('queues')
    .select(['queues.id', 'queues.backend', 'queues.concurrency'])
    .where('queues.backend', 'in', backends)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('jobs').select('jobs.id').whereRef('jobs.queue_id', '=', 'queues.id').where('jobs.status', '=', 'queued')),
    )
    .execute();
}

function claimSet(ctx: SchedulerContext) {
  const now = nowIso();
  return {
    status: 'scheduled',
    lease_owner: ctx.owner,
    lease_expires_at: leaseUntil(ctx.config),
    attempt: sql<number>`attempt + 1`,
    updated_at: now,
  };
}

/**
 * PostgreSQL: one short transaction per queue. The queue row is locked (SKIP LOCKED: another
 * scheduler claiming for it now is left alone), its active jobs are counted over the whole
 * database, and at most the free slots are claimed among the oldest queued jobs, FOR UPDATE SKIP LOCKED.
 */
async function claimPostgres(ctx: SchedulerContext, queueId: string, limit: number): Promise<Claimed[]> {
  return ctx.db.transaction().execute(async (trx) => {
    const queue = await trx
      .selectFrom('queues')
      .select('concurrency')
      .where('id', '=', queueId)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!queue) return [];
    const { n } = await trx
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('queue_id', '=', queueId)
      .where('status', 'in', ACTIVE_STATUSES)
      .executeTakeFirstOrThrow();
    const free = Math.min(limit, queue.concurrency - Number(n));
    if (free <= 0) return [];
    const ids = await trx
      .selectFrom('jobs')
      .select('id')
      .where('queue_id', '=', queueId)
      .where('status', '=', 'queued')
      .orderBy('created_at')
      .orderBy('id')
      .limit(free)
      .forUpdate()
      .skipLocked()
      .execute();
    if (!ids.length) return [];
    return trx
      .updateTable('jobs')
      .set(claimSet(ctx))
      .where(
        'id',
        'in',
        ids.map((r) => r.id),
      )
      .where('status', '=', 'queued')
      .returning(['id', 'workspace_id', 'attempt'])
      .execute();
  });
}

/**
 * SQLite: each claim is one compare-and-set UPDATE (atomic under SQLite's write lock, across
 * processes too): the job must still be queued and its queue must still have a free slot.
 */
async function claimSqlite(ctx: SchedulerContext, queueId: string, limit: number): Promise<Claimed[]> {
  const candidates = await ctx.db
    .selectFrom('jobs')
    .select('id')
    .where('queue_id', '=', queueId)
    .where('status', '=', 'queued')
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  const claimed: Claimed[] = [];
  for (const { id } of candidates) {
    const row = await ctx.db
      .updateTable('jobs')
      .set(claimSet(ctx))
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .where(({ eb, selectFrom }) =>
        eb(
          selectFrom('jobs as a')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('a.queue_id', '=', queueId)
            .where('a.status', 'in', ACTIVE_STATUSES),
          '<',
          selectFrom('queues').select('concurrency').where('queues.id', '=', queueId),
        ),
      )
      .returning(['id', 'workspace_id', 'attempt'])
      .executeTakeFirst();
    if (!row) break;
    claimed.push(row);
  }
  return claimed;
}

/** Claims queued jobs for this scheduler: status scheduled, a lease, attempt + 1; each queue's concurrency holds across schedulers. */
export async function claimJobs(ctx: SchedulerContext, limit = 50): Promise<ClaimedJob[]> {
  const claimed: ClaimedJob[] = [];
  for (const queue of await queuesWithWork(ctx.db, Object.keys(ctx.executors))) {
    if (claimed.length >= limit) break;
    const claim = ctx.kind === 'postgres' ? claimPostgres : claimSqlite;
    for (const job of await claim(ctx, queue.id, limit - claimed.length)) claimed.push({ ...job, backend: queue.backend });
  }
  return claimed;
}
