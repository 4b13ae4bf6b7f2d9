import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { ACTIVE_STATUSES } from './job-state.js';
import { leaseUntil, nowIso, type SchedulerContext } from './context.js';
import { capacityOf } from '../instance-types/capacity.js';
import { admit, type Candidate, type Usage } from './admission.js';
import { preparedQuery } from '../store/prepared-query.js';

export interface ClaimedJob {
  id: string;
  workspace_id: string;
  attempt: number;
  backend: string;
}

type Db = Kysely<Database>;

/** Queues of the given backends that have queued jobs, with their free slots (concurrency minus active jobs). */
async function queuesWithWork(db: Db, backends: string[]): Promise<Map<string, { backend: string; free: number }>> {
  const rows = await queuesWithWorkOf(backends).execute(db, {});
  return new Map(rows.map((q) => [q.id, { backend: q.backend, free: q.concurrency - Number(q.active ?? 0) }]));
}

/** By the backends of a scheduler (fixed for its life): the query of queuesWithWork, compiled once. */
const queuesWithWorkQueries = new Map<string, ReturnType<typeof queuesWithWorkQuery>>();

function queuesWithWorkOf(backends: string[]) {
  const key = backends.join(',');
  let query = queuesWithWorkQueries.get(key);
  if (!query) queuesWithWorkQueries.set(key, (query = queuesWithWorkQuery(backends)));
  return query;
}

function queuesWithWorkQuery(backends: string[]) {
  return preparedQuery((db) =>
    db
      .selectFrom('queues')
      .select(['queues.id', 'queues.backend', 'queues.concurrency'])
      .select((eb) =>
        eb
          .selectFrom('jobs')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('jobs.queue_id', '=', 'queues.id')
          .where('jobs.status', 'in', ACTIVE_STATUSES)
          .as('active'),
      )
      .where('queues.backend', 'in', backends)
      .where(({ exists, selectFrom }) =>
        exists(selectFrom('jobs').select('jobs.id').whereRef('jobs.queue_id', '=', 'queues.id').where('jobs.status', '=', 'queued')),
      ),
  );
}

const usageOfBackend = preparedQuery((db, p: { backend: string }) =>
  db
    .selectFrom('jobs')
    .innerJoin('queues', 'queues.id', 'jobs.queue_id')
    .select((eb) => [eb.fn.sum<number>('jobs.cpus').as('cpus'), eb.fn.sum<number>('jobs.memory_gib').as('memory')])
    .where('queues.backend', '=', p.backend)
    .where('jobs.status', 'in', ACTIVE_STATUSES),
);

/** CPUs and memory held by the active jobs of every queue of a backend. */
async function usageOf(db: Db, backend: string): Promise<Usage> {
  const row = await usageOfBackend.executeTakeFirst(db, { backend });
  return { cpus: Number(row?.cpus ?? 0), memoryGiB: Number(row?.memory ?? 0) };
}

const oldestQueued = preparedQuery((db, p: { queueId: string; limit: number }) =>
  db
    .selectFrom('jobs')
    .select(['id', 'queue_id', 'cpus', 'memory_gib', 'created_at'])
    .where('status', '=', 'queued')
    .where('queue_id', '=', p.queueId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(p.limit),
);

/** Candidates read beyond a queue's free slots: jobs admit() may pass over (larger than the capacity now). */
const CANDIDATES_BEYOND_FREE = 10;

/**
 * The oldest queued jobs of each queue that has a free slot, as many as it has free slots and
 * CANDIDATES_BEYOND_FREE more (the rest could not start this pass), oldest first across the
 * queues. One query per queue reads only those rows in the index's order (jobs_claim_order): one
 * over all the queues sorted every queued job of them first (0.7 ms a pass with thousands queued, B2).
 */
async function candidatesOf(db: Db, queues: Map<string, { backend: string; free: number }>, limit: number): Promise<Candidate[]> {
  const rows = [];
  for (const [queueId, q] of queues) {
    const take = Math.min(2 * limit, q.free + CANDIDATES_BEYOND_FREE);
    if (q.free > 0) rows.push(...(await oldestQueued.execute(db, { queueId, limit: take })));
  }
  rows.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return rows.slice(0, limit * 2).map((r) => ({
    id: r.id,
    queueId: r.queue_id!,
    backend: queues.get(r.queue_id!)!.backend,
    cpus: Number(r.cpus),
    memoryGiB: Number(r.memory_gib),
  }));
}

/** What this pass may claim: the candidates admit() picks, given every backend's capacity and use. */
async function plan(ctx: SchedulerContext, db: Db, limit: number): Promise<Candidate[]> {
  const queues = await queuesWithWork(db, Object.keys(ctx.executors));
  if (!queues.size) return [];
  const backends = new Set([...queues.values()].map((q) => q.backend));
  const capacity = new Map<string, { capacity: NonNullable<ReturnType<typeof capacityOf>>; used: Usage }>();
  for (const backend of backends) {
    const c = capacityOf(ctx.config, backend);
    if (c) capacity.set(backend, { capacity: c, used: await usageOf(db, backend) });
  }
  // More candidates than the limit: a full queue's jobs or a job that can never fit are passed over.
  return admit(await candidatesOf(db, queues, limit), queues, capacity, limit);
}

function claimSet(ctx: SchedulerContext) {
  const now = nowIso();
  return {
    status: 'initializing',
    lease_owner: ctx.owner,
    lease_expires_at: leaseUntil(ctx.config),
    attempt: sql<number>`attempt + 1`,
    updated_at: now,
  };
}

/**
 * PostgreSQL: one transaction that first takes a transaction-scoped advisory lock (one per schema,
 * so per Runyard database): schedulers claim one at a time, so the capacity and the queue limits
 * they read cannot be spent twice. Claims are short; jobs ending or aborted meanwhile only free
 * room. The UPDATE still requires `queued` (an abort may have come first).
 */
async function claimPostgres(ctx: SchedulerContext, limit: number): Promise<ClaimedJob[]> {
  return ctx.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(current_schema() || '.runyard.claim'))`.execute(trx);
    const chosen = await plan(ctx, trx, limit);
    if (!chosen.length) return [];
    const rows = await trx
      .updateTable('jobs')
      .set(claimSet(ctx))
      .where(
        'id',
        'in',
        chosen.map((c) => c.id),
      )
      .where('status', '=', 'queued')
      .returning(['id', 'workspace_id', 'attempt'])
      .execute();
    const backend = new Map(chosen.map((c) => [c.id, c.backend]));
    return rows.map((r) => ({ ...r, backend: backend.get(r.id)! }));
  });
}

/**
 * SQLite: each claim is one compare-and-set UPDATE, all of a pass in one transaction (which holds
 * SQLite's write lock, across processes too): the job must still be queued, its queue must still have a free slot, and its
 * CPUs and memory must still fit in what the active jobs of its backend leave. The first that
 * fails ends the pass (another scheduler was quicker); the next pass plans again.
 */
async function claimSqlite(ctx: SchedulerContext, limit: number): Promise<ClaimedJob[]> {
  const chosen = await plan(ctx, ctx.db, limit);
  if (!chosen.length) return [];
  // One transaction: the claims of a pass share one commit.
  return ctx.db.transaction().execute((trx) => claimEachSqlite(ctx, trx, chosen));
}

async function claimEachSqlite(ctx: SchedulerContext, db: Db, chosen: Candidate[]): Promise<ClaimedJob[]> {
  const claimed: ClaimedJob[] = [];
  for (const c of chosen) {
    const capacity = capacityOf(ctx.config, c.backend);
    const held = (column: 'cpus' | 'memory_gib') =>
      sql<number>`(select coalesce(sum(a.${sql.ref(column)}), 0) from jobs a join queues q on q.id = a.queue_id
        where q.backend = ${c.backend} and a.status in (${sql.join([...ACTIVE_STATUSES])})) + jobs.${sql.ref(column)}`;
    const row = await db
      .updateTable('jobs')
      .set(claimSet(ctx))
      .where('id', '=', c.id)
      .where('status', '=', 'queued')
      .where(({ eb, selectFrom }) =>
        eb(
          selectFrom('jobs as a')
            .select((e) => e.fn.countAll<number>().as('n'))
            .where('a.queue_id', '=', c.queueId)
            .where('a.status', 'in', ACTIVE_STATUSES),
          '<',
          selectFrom('queues').select('concurrency').where('queues.id', '=', c.queueId),
        ),
      )
      .$if(capacity !== null, (q) =>
        q.where(held('cpus'), '<=', capacity!.cpus + 1e-9).where(held('memory_gib'), '<=', capacity!.memoryGiB + 1e-9),
      )
      .returning(['id', 'workspace_id', 'attempt'])
      .executeTakeFirst();
    if (!row) break;
    claimed.push({ ...row, backend: c.backend });
  }
  return claimed;
}

/**
 * Claims queued jobs for this scheduler: status initializing, a lease, attempt + 1. Each queue's
 * concurrency holds across schedulers, and so does each backend's capacity (admission.ts says
 * in which order jobs are admitted).
 */
export async function claimJobs(ctx: SchedulerContext, limit = 50): Promise<ClaimedJob[]> {
  return ctx.kind === 'postgres' ? claimPostgres(ctx, limit) : claimSqlite(ctx, limit);
}
