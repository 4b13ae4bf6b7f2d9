import type { SessionAbortBody, SessionStatus } from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { moveSession } from '../scheduler/session-state.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { requireSessionOwnerOrAdmin, sessionRow } from './interactive-sessions.js';

/**
 * `PUT /api/v1/interactive-sessions/{id}/abort` (the CLI's pause). A session no runner has taken
 * yet (scheduled) is aborted at once; a taken one becomes `aborting`, with what the pause asks
 * for recorded for its runner: save the home first (`uploadOnClose`, default true) or stop at
 * once without saving (`forceAbort`, default false; it wins). Each step is a conditional update,
 * so a session that moves meanwhile is looked at again, never overwritten. A session that is not
 * starting or running is refused with 409, in the words the public client looks for
 * ("... aborted in aborted status").
 */
export async function abortSession(db: Kysely<Database>, ctx: Context, id: string, body: SessionAbortBody): Promise<void> {
  const force = body.forceAbort === true;
  const upload = !force && body.uploadOnClose !== false;
  for (let tries = 0; tries < 5; tries++) {
    const row = await sessionRow(db, ctx, id);
    requireSessionOwnerOrAdmin(ctx, row, 'pause');
    const status = row.status as SessionStatus;
    if (status === 'aborting' || status === 'aborted' || status === 'terminated') {
      throw new AppError('SESSION_STATE_CONFLICT', `Interactive session ${id} cannot be aborted in ${status} status.`);
    }
    const asked = { upload_on_close: upload ? 1 : 0, abort_force: force ? 1 : 0, stop_reason: 'user' as const };
    const moved =
      status === 'scheduled'
        ? await moveSession(db, id, ['scheduled'], 'aborted', { ...asked, status_message: 'Paused before it started.' })
        : await moveSession(db, id, [status], 'aborting', {
            ...asked,
            status_message: force ? 'Stopping at once, without saving.' : 'Pausing.',
          });
    if (moved) return;
  }
  throw new AppError('SESSION_STATE_CONFLICT', `Interactive session ${id} changed while it was being paused; try again.`);
}
