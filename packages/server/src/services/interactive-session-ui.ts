import { ANY_JOB_ROLE, hasRole } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import type { Database } from '../store/schema.js';
import { unseal } from '../store/secret-box.js';
import type { Context } from './context.js';
import { sessionRow } from './interactive-sessions.js';

/**
 * Who may open a session's web UI, through the platform's proxy: whoever sees the session (a
 * member of its workspace; a private one, its owner and the workspace's admins and owners), while
 * it is ready. Checked when a launch link is asked for, and again on every proxied request, as
 * the API key is: a deactivated user, a revoked key (the one the link was asked with), a removal
 * from the workspace or a demotion to viewer ends the UI at the next request.
 */

/** The session, when the caller may open its UI now: 404 when they do not see it, 409 when it is not ready. */
export async function sessionForUi(db: Kysely<Database>, ctx: Context, id: string): Promise<{ id: string }> {
  const row = await sessionRow(db, ctx, id);
  if (row.status !== 'ready') {
    throw new AppError(
      'SESSION_STATE_CONFLICT',
      `Interactive session ${id} is ${row.status}: its web UI opens once it is ready${row.status === 'aborted' ? ' (resume it first)' : ''}.`,
    );
  }
  return { id: row.id };
}

/** Where the session listens and its own token, when `userId` may use it now; null otherwise. */
export async function sessionUpstream(
  db: Kysely<Database>,
  config: Pick<Config, 'secretKeyFile'>,
  sessionId: string,
  userId: string,
  keyId?: string,
): Promise<{ socketPath: string; token: string } | null> {
  const row = await db
    .selectFrom('interactive_sessions')
    .select(['workspace_id', 'user_id', 'visibility', 'status', 'ui_address', 'ui_token_sealed'])
    .where('id', '=', sessionId)
    .executeTakeFirst();
  if (!row || row.status !== 'ready' || !row.ui_address || !row.ui_token_sealed) return null;
  const member = await db
    .selectFrom('memberships')
    .select('role')
    .where('workspace_id', '=', row.workspace_id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  // Viewers read; opening a session's UI runs code in it.
  if (!member || !hasRole(member.role, 'member')) return null;
  const user = await db.selectFrom('users').select('active').where('id', '=', userId).executeTakeFirst();
  if (!user?.active) return null;
  if (keyId !== undefined) {
    const key = await db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!key || key.revoked_at) return null;
  }
  if (row.visibility === 'private' && row.user_id !== userId && !hasRole(member.role, ANY_JOB_ROLE)) return null;
  try {
    return { socketPath: row.ui_address, token: unseal(config.secretKeyFile, row.ui_token_sealed) };
  } catch {
    return null;
  }
}
