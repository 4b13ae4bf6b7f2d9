import { isoNow, type InteractiveSession, type SessionBackend, type SessionResumeBody } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { moveSession, NO_RUN, type SessionUpdate } from '../scheduler/session-state.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { checkCostLimit, checkShutdownDate, sessionCommand, sessionSizing } from './interactive-session-config.js';
import { sessionDocument } from './interactive-session-document.js';
import { resolveSessionItems, type ResolvedSessionItem } from './interactive-session-items.js';
import { requireSessionOwnerOrAdmin, sessionRow } from './interactive-sessions.js';

/**
 * `PUT /api/v1/interactive-sessions/{id}/resume` (wire-api §2.11 "Resume"): only a paused
 * (`aborted`) session resumes; it becomes `scheduled` for its next run (attempt + 1), with the
 * changes of `newInteractiveSessionConfiguration` (instance type, storage, cost limit, auto-shutdown
 * date, each checked as at creation) and the new data items and linked folders added to those it
 * has. Any other status is refused (409) with "not in a resumable status", as the public client
 * expects; nothing changes on a refusal.
 */
export async function resumeSession(
  db: Kysely<Database>,
  config: Config,
  ctx: Context,
  id: string,
  body: SessionResumeBody,
): Promise<InteractiveSession> {
  const row = await sessionRow(db, ctx, id);
  requireSessionOwnerOrAdmin(ctx, row, 'resume');
  if (row.status !== 'aborted') {
    const running = row.status === 'ready' ? ' (it is already running)' : '';
    throw new AppError(
      'SESSION_STATE_CONFLICT',
      `Interactive session ${id} is not in a resumable status: it is ${row.status}${running}; only a paused (aborted) session can be resumed.`,
    );
  }
  sessionCommand(config, row.backend as SessionBackend);
  const change = body.newInteractiveSessionConfiguration ?? {};
  const now = isoNow();
  const set: SessionUpdate = {};
  if (change.instanceType !== undefined) {
    const sizing = sessionSizing(config, change.instanceType);
    Object.assign(set, {
      instance_type: sizing.instanceType,
      cpus: sizing.cpus,
      memory_gib: sizing.memoryGiB,
      price_per_hour_cents: sizing.pricePerHourCents,
    });
  }
  if (change.storageSizeInGb !== undefined) set.storage_size_gb = change.storageSizeInGb;
  const limit = change.execution?.computeCostLimit;
  if (limit !== undefined) set.cost_limit = checkCostLimit(limit, 'newInteractiveSessionConfiguration.execution.computeCostLimit');
  const shutdown = change.execution?.autoShutdownAtDate;
  if (shutdown !== undefined) {
    set.auto_shutdown_at = checkShutdownDate(shutdown, 'newInteractiveSessionConfiguration.execution.autoShutdownAtDate', Date.parse(now));
  }
  const have = {
    files: JSON.parse(row.data_items_json) as ResolvedSessionItem[],
    folders: JSON.parse(row.fuse_file_systems_json) as ResolvedSessionItem[],
  };
  const items = await resolveSessionItems(db, ctx.workspaceId, have, body);
  // Moved and read back in one transaction: the reply is the session as resumed, `scheduled`, even when a
  // scheduler's pass starts it (initializing) before a read after the commit would come.
  const resumed = await db.transaction().execute(async (trx) => {
    const moved = await moveSession(trx, { id, attempt: row.attempt }, ['aborted'], 'scheduled', {
      ...set,
      data_items_json: JSON.stringify(items.files),
      fuse_file_systems_json: JSON.stringify(items.folders),
      attempt: row.attempt + 1,
      status_message: null,
      stop_reason: null,
      upload_on_close: 1,
      abort_force: 0,
      ...NO_RUN,
    });
    if (!moved) throw new AppError('SESSION_STATE_CONFLICT', `Interactive session ${id} changed while it was being resumed; try again.`);
    return sessionRow(trx, ctx, id);
  });
  return sessionDocument(db, resumed);
}
