import {
  ANY_JOB_ROLE,
  DEFAULT_SESSION_PAGE_SIZE,
  SESSION_STATUSES,
  hasRole,
  type InteractiveSession,
  type SessionListQuery,
  type SessionListReply,
  type SessionStatus,
} from '@runyard/contract';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import type { SessionRow } from '../scheduler/session-state.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { sessionDocument, sessionDocuments } from './interactive-session-document.js';

/**
 * Reading interactive sessions. Every lookup is scoped by the caller's workspace, and a private
 * session is seen only by its owner and the workspace's admins and owners: for anyone else it is
 * not found (404), the same as one of another workspace or one that does not exist.
 */

/** Whether the caller sees every private session of the workspace (the role that acts on every job). */
const seesAll = (ctx: Context) => hasRole(ctx.role, ANY_JOB_ROLE);

export function sessionNotFound(id: string): AppError {
  return new AppError('SESSION_NOT_FOUND', `Interactive session with ID '${id}' not found in this workspace.`);
}

/** The session's row, when the caller may see it; 404 otherwise. */
export async function sessionRow(db: Kysely<Database>, ctx: Context, id: string): Promise<SessionRow> {
  const row = await db
    .selectFrom('interactive_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', ctx.workspaceId)
    .executeTakeFirst();
  if (!row || (row.visibility === 'private' && row.user_id !== ctx.user.id && !seesAll(ctx))) throw sessionNotFound(id);
  return row;
}

/** A member pauses and resumes its own sessions; an admin or owner any session of the workspace. */
export function requireSessionOwnerOrAdmin(ctx: Context, row: SessionRow, action: string): void {
  if (row.user_id === ctx.user.id || seesAll(ctx)) return;
  throw new AppError(
    'FORBIDDEN',
    `Interactive session ${row.id} belongs to another user: to ${action} it you need the ${ANY_JOB_ROLE} role in this workspace; you are ${/^[aeiou]/i.test(ctx.role) ? 'an' : 'a'} ${ctx.role}.`,
  );
}

/** `GET /api/v2/interactive-sessions/{id}`. */
export async function getSession(db: Kysely<Database>, ctx: Context, id: string): Promise<InteractiveSession> {
  return sessionDocument(db, await sessionRow(db, ctx, id));
}

/** The `status[]` filter: statuses as the wire spells them; any other is refused, naming those there are. */
function statusFilter(values: string[] | undefined): SessionStatus[] | null {
  if (!values?.length) return null;
  const unknown = values.filter((v) => !(SESSION_STATUSES as readonly string[]).includes(v));
  if (unknown.length) {
    throw new AppError(
      'VALIDATION_FAILED',
      `querystring.status[] ${quoted(unknown[0])} is not a session status; the statuses are ${SESSION_STATUSES.join(', ')}.`,
    );
  }
  return values as SessionStatus[];
}

/**
 * `GET /api/v3/interactive-sessions` (wire-api §2.11 "List"): the sessions of the workspace the
 * caller may see, newest first, one page of them, with their total count under the filters.
 * `archived.status` true lists only archived sessions, false (the default) only the others.
 */
export async function listSessions(db: Kysely<Database>, ctx: Context, q: SessionListQuery): Promise<SessionListReply> {
  const page = q.page ?? 1;
  const limit = q.limit ?? DEFAULT_SESSION_PAGE_SIZE;
  const statuses = statusFilter(q['status[]']);
  const base = db
    .selectFrom('interactive_sessions')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('archived', '=', q['archived.status'] ? 1 : 0)
    .$if(statuses !== null, (b) => b.where('status', 'in', statuses!))
    .$if(q.onlyOwnerSessions === true, (b) => b.where('user_id', '=', ctx.user.id))
    .$if(!seesAll(ctx), (b) => b.where((eb) => eb.or([eb('visibility', '!=', 'private'), eb('user_id', '=', ctx.user.id)])));
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
  ]);
  return {
    sessions: await sessionDocuments(db, rows),
    paginationMetadata: { 'Pagination-Count': Number(count.n), 'Pagination-Page': page, 'Pagination-Limit': limit },
  };
}
