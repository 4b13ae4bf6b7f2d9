import type { JobStatus } from '@runyard/contract';
import { sql, type Kysely, type UpdateObject } from 'kysely';
import type { ExternalId } from '../executors/executor.js';
import { preparedQuery, type PreparedQuery } from '../store/prepared-query.js';
import type { Database } from '../store/schema.js';
import { sourcesOf } from './job-state.js';
import type { AttemptRef } from './context.js';

type JobUpdate = UpdateObject<Database, 'jobs'>;

/**
 * Moves a job to `to`, only if the attempt is still the current one, its lease is still ours,
 * and job-state.ts allows the move from its present status (or from `from`, a subset). Answers
 * whether it happened: false means the result is refused (a stale attempt, a lost lease, an abort).
 */
export async function moveJob(
  db: Kysely<Database>,
  ref: AttemptRef,
  to: JobStatus,
  set: JobUpdate = {},
  from?: JobStatus[],
): Promise<boolean> {
  const allowed = sourcesOf(to).filter((s) => !from || from.includes(s));
  if (!allowed.length) return false;
  const values: JobUpdate = { ...set, status: to, updated_at: new Date().toISOString() };
  // Left out, as Kysely leaves them out of a SET.
  const entries = Object.entries(values).filter(([, v]) => v !== undefined);
  // A move of a shape met before (its statuses and columns) runs the statement compiled then; one that sets an expression is built anew.
  const prepared = entries.every(([, v]) => v === null || typeof v !== 'object')
    ? moveQuery(
        allowed,
        entries.map(([c]) => c),
      )
    : null;
  const changed = prepared
    ? (
        await prepared.run(db, {
          id: ref.id,
          attempt: ref.attempt,
          owner: ref.owner,
          ...Object.fromEntries(entries.map(([, v], i) => [`set${i}`, v])),
        })
      ).numAffectedRows
    : (
        await db
          .updateTable('jobs')
          .set(values)
          .where('id', '=', ref.id)
          .where('attempt', '=', ref.attempt)
          .where('lease_owner', '=', ref.owner)
          .where('status', 'in', allowed)
          .executeTakeFirst()
      ).numUpdatedRows;
  return changed > 0n;
}

/** By statuses moved from and columns set: the UPDATE of moveJob, compiled once (prepared-query.ts). */
const moves = new Map<string, PreparedQuery<Record<string, unknown>, unknown>>();

function moveQuery(allowed: JobStatus[], columns: string[]): PreparedQuery<Record<string, unknown>, unknown> {
  const key = `${allowed.join(',')}|${columns.join(',')}`;
  let query = moves.get(key);
  if (!query) {
    query = preparedQuery((db, p: Record<string, unknown>) =>
      db
        .updateTable('jobs')
        .set(Object.fromEntries(columns.map((c, i) => [c, p[`set${i}`]])) as JobUpdate)
        .where('id', '=', p.id as string)
        .where('attempt', '=', p.attempt as number)
        .where('lease_owner', '=', p.owner as string)
        .where('status', 'in', allowed),
    );
    moves.set(key, query);
  }
  return query;
}

const statusOfAttempt = preparedQuery((db, p: { id: string; attempt: number; owner: string }) =>
  db
    .selectFrom('jobs')
    .select(['status', 'abort_force'])
    .where('id', '=', p.id)
    .where('attempt', '=', p.attempt)
    .where('lease_owner', '=', p.owner),
);

/** The status of the attempt while it is current and ours; null when it is not (anymore). */
export async function attemptStatus(db: Kysely<Database>, ref: AttemptRef): Promise<{ status: JobStatus; abortForce: boolean } | null> {
  const row = await statusOfAttempt.executeTakeFirst(db, { id: ref.id, attempt: ref.attempt, owner: ref.owner });
  return row ? { status: row.status as JobStatus, abortForce: row.abort_force === 1 } : null;
}

/**
 * Stores the task's external id and reports the job running, in one conditional UPDATE. A job
 * aborted meanwhile stays `aborting` but gets the id too, so the task can be stopped after a
 * restart. False when the attempt is no longer current and ours, or the job was aborted outright.
 * With running false only the id is stored: the task was submitted but waits in its executor's
 * queue (a Slurm job pending), so the job stays initializing and its run time does not start.
 * startTime: when the task started (default now); a start time the job already has is kept.
 */
export async function markRunning(
  db: Kysely<Database>,
  ref: AttemptRef,
  id: ExternalId | null,
  running = true,
  startTime?: string,
): Promise<boolean> {
  const now = new Date().toISOString();
  const values = {
    id: ref.id,
    attempt: ref.attempt,
    owner: ref.owner,
    externalId: id && JSON.stringify(id),
    start: startTime ?? now,
    now,
  };
  const result = await (running ? markStarted : storeExternalId).run(db, values);
  return result.numAffectedRows > 0n;
}

type MarkValues = { id: string; attempt: number; owner: string; externalId: string | null; start: string; now: string };

const markQuery = (running: boolean) =>
  preparedQuery((db, p: MarkValues) =>
    db
      .updateTable('jobs')
      .set({
        external_id: p.externalId,
        ...(running
          ? {
              status: sql<string>`case when status = 'initializing' then 'running' else status end`,
              start_time: sql<string>`coalesce(start_time, ${p.start})`,
            }
          : {}),
        updated_at: p.now,
      })
      .where('id', '=', p.id)
      .where('attempt', '=', p.attempt)
      .where('lease_owner', '=', p.owner)
      .where('status', 'in', ['initializing', 'aborting', 'running']),
  );
const markStarted = markQuery(true);
const storeExternalId = markQuery(false);

export function parseExternalId(text: string | null): ExternalId | null {
  if (!text) return null;
  try {
    const id = JSON.parse(text) as unknown;
    return id && typeof id === 'object' && typeof (id as ExternalId).backend === 'string' ? (id as ExternalId) : null;
  } catch {
    return null;
  }
}
