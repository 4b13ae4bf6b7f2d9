import type { SessionStatus } from '@runyard/contract';
import type { Kysely, Selectable, UpdateObject } from 'kysely';
import type { Database, InteractiveSessionTable } from '../store/schema.js';

/**
 * Every legal status transition of an interactive session, in one place; anything else is a bug
 * or a race lost, and `terminated` never changes.
 *   scheduled -> initializing (a runner took it: home restored, mounts prepared)
 *   -> setup (its process started, its web UI not answering yet) -> ready (it answers: running)
 *   a pause (abort): a scheduled session is aborted at once; a taken one goes through aborting,
 *   its runner saves the home (uploadOnClose, unless forceAbort) and stops it -> aborted (paused).
 *   a run that fails to start or dies is aborted too (stop reason `error`), so it can be resumed.
 *   aborted -> scheduled (resume: the next run); any status but terminated -> terminated (for good).
 */
export const SESSION_TRANSITIONS: Readonly<Record<SessionStatus, readonly SessionStatus[]>> = {
  scheduled: ['initializing', 'aborted', 'terminated'],
  initializing: ['setup', 'aborting', 'aborted', 'terminated'],
  setup: ['ready', 'aborting', 'aborted', 'terminated'],
  ready: ['aborting', 'aborted', 'terminated'],
  aborting: ['aborted', 'terminated'],
  aborted: ['scheduled', 'terminated'],
  terminated: [],
};

/** Statuses in which a run holds (or is getting) a process: its cost accrues from run_started_at. */
export const RUNNING_SESSION_STATUSES: readonly SessionStatus[] = ['initializing', 'setup', 'ready', 'aborting'];

export function canMoveSession(from: SessionStatus, to: SessionStatus): boolean {
  return SESSION_TRANSITIONS[from]?.includes(to) ?? false;
}

/** The statuses a session may be in when it moves to `to` (for UPDATE ... WHERE status IN). */
export function sessionSourcesOf(to: SessionStatus): SessionStatus[] {
  return (Object.keys(SESSION_TRANSITIONS) as SessionStatus[]).filter((from) => SESSION_TRANSITIONS[from].includes(to));
}

export type SessionUpdate = UpdateObject<Database, 'interactive_sessions'>;
export type SessionRow = Selectable<InteractiveSessionTable>;

/** A session, or one run of it: with `attempt` (and `owner`, the runner's lease) a move is refused once that run is no longer current (or ours). */
export type SessionRef = string | { id: string; attempt: number; owner?: string };

/**
 * Moves a session to `to` in one conditional UPDATE: only from a status in `from` that the table
 * above allows to reach `to` (every such status when `from` is omitted), and only while `ref`'s
 * run is current. Answers whether it happened; when two writers race, exactly one wins and the
 * other changes nothing. `set` is written with it (updated_at too).
 */
export async function moveSession(
  db: Kysely<Database>,
  ref: SessionRef,
  from: readonly SessionStatus[] | undefined,
  to: SessionStatus,
  set: SessionUpdate = {},
): Promise<boolean> {
  const allowed = sessionSourcesOf(to).filter((s) => !from || from.includes(s));
  if (!allowed.length) return false;
  const run = typeof ref === 'string' ? null : ref;
  const result = await db
    .updateTable('interactive_sessions')
    .set({ ...set, status: to, updated_at: new Date().toISOString() })
    .where('id', '=', typeof ref === 'string' ? ref : ref.id)
    .where('status', 'in', allowed)
    .$if(run !== null, (q) => q.where('attempt', '=', run!.attempt))
    .$if(run?.owner !== undefined, (q) => q.where('lease_owner', '=', run!.owner!))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Seconds of the current run up to `nowMs` (0 when none runs). */
export function currentRunSeconds(row: Pick<SessionRow, 'run_started_at'>, nowMs: number): number {
  return row.run_started_at ? Math.max(0, nowMs - Date.parse(row.run_started_at)) / 1000 : 0;
}

/** Every run's seconds, the current one up to `nowMs` (totalRunningTimeInSeconds). */
export function totalRunningSeconds(row: Pick<SessionRow, 'run_started_at' | 'running_seconds'>, nowMs: number): number {
  return Number(row.running_seconds) + currentRunSeconds(row, nowMs);
}

/** What every run has cost, in cents, the current one up to `nowMs`: its hourly price x its seconds, per second. */
export function totalCostCents(row: Pick<SessionRow, 'run_started_at' | 'cost_cents' | 'price_per_hour_cents'>, nowMs: number): number {
  const current = (Number(row.price_per_hour_cents) * currentRunSeconds(row, nowMs)) / 3600;
  return Math.round((Number(row.cost_cents) + current) * 10_000) / 10_000;
}

/** A session with no run under way: no process, no UI, no lease, no running cost. */
export const NO_RUN = {
  external_id: null,
  ui_address: null,
  ui_token_sealed: null,
  lease_owner: null,
  lease_expires_at: null,
  run_started_at: null,
} as const satisfies SessionUpdate;

/**
 * The columns that end the current run at `nowMs`: its seconds and cost added to the totals, and
 * no run under way. Written with the move that ends it (to aborted or terminated), so that only
 * the writer that wins the move counts the run.
 */
export function endRunSet(row: SessionRow, nowMs: number): SessionUpdate {
  return {
    running_seconds: totalRunningSeconds(row, nowMs),
    cost_cents: totalCostCents(row, nowMs),
    ...NO_RUN,
  };
}

/** True when the session's cost limit (dollars, -1: none) is reached at `nowMs`. */
export function costLimitReached(row: SessionRow, nowMs: number): boolean {
  return Number(row.cost_limit) >= 0 && totalCostCents(row, nowMs) >= Number(row.cost_limit) * 100;
}

/** True when the session's auto-shutdown date has come at `nowMs`. */
export function autoShutdownDue(row: Pick<SessionRow, 'auto_shutdown_at'>, nowMs: number): boolean {
  return row.auto_shutdown_at !== null && Date.parse(row.auto_shutdown_at) <= nowMs;
}
