import type { JobStatus } from '@runyard/contract';
import { sql, type Kysely, type UpdateObject } from 'kysely';
import type { ExternalId } from '../executors/executor.js';
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
  const result = await db
    .updateTable('jobs')
    .set({ ...set, status: to, updated_at: new Date().toISOString() })
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .where('status', 'in', allowed)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The status of the attempt while it is current and ours; null when it is not (anymore). */
export async function attemptStatus(db: Kysely<Database>, ref: AttemptRef): Promise<{ status: JobStatus; abortForce: boolean } | null> {
  const row = await db
    .selectFrom('jobs')
    .select(['status', 'abort_force'])
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .executeTakeFirst();
  return row ? { status: row.status as JobStatus, abortForce: row.abort_force === 1 } : null;
}

/**
 * Stores the task's external id and reports the job running, in one conditional UPDATE. A job
 * aborted meanwhile stays `aborting` but gets the id too, so the task can be stopped after a
 * restart. False when the attempt is no longer current and ours, or the job was aborted outright.
 * With running false only the id is stored: the task was submitted but waits in its executor's
 * queue (a Slurm job pending), so the job stays initializing and its run time does not start.
 */
export async function markRunning(db: Kysely<Database>, ref: AttemptRef, id: ExternalId | null, running = true): Promise<boolean> {
  const now = new Date().toISOString();
  const result = await db
    .updateTable('jobs')
    .set({
      external_id: id && JSON.stringify(id),
      ...(running
        ? {
            status: sql<string>`case when status = 'initializing' then 'running' else status end`,
            start_time: sql<string>`coalesce(start_time, ${now})`,
          }
        : {}),
      updated_at: now,
    })
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .where('status', 'in', ['initializing', 'aborting', 'running'])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function parseExternalId(text: string | null): ExternalId | null {
  if (!text) return null;
  try {
    const id = JSON.parse(text) as unknown;
    return id && typeof id === 'object' && typeof (id as ExternalId).backend === 'string' ? (id as ExternalId) : null;
  } catch {
    return null;
  }
}
