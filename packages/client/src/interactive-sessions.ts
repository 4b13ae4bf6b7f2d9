// Interactive sessions (seed contract §4.5, wire reference §2.11): create, list, read, resume, pause.
import type {
  InteractiveSession,
  SessionAbortBody,
  SessionUiLink,
  SessionCreateBody,
  SessionListReply,
  SessionResumeBody,
  SessionStatus,
} from '@runyard/contract';
import { RunyardValueError } from './errors.js';
import { errorOfReply } from './api-transport.js';
import { requireWorkspace } from './jobs-api/types.js';
import type { ApiTransport } from './api-transport.js';
import { MAX_SESSION_PAGE_SIZE, SESSION_STATUSES } from '@runyard/contract';

/**
 * Status names a caller may filter on, and the wire statuses each stands for: the seed's
 * (`running`, `stopped`, `provisioning`, `scheduled`), the public client's other names (`paused`,
 * `initialising`), and the wire's own. `provisioning` is a session being started: `initializing`
 * or `setup`.
 */
export const SESSION_STATUS_NAMES: Readonly<Record<string, readonly SessionStatus[]>> = {
  running: ['ready'],
  stopped: ['aborted'],
  paused: ['aborted'],
  provisioning: ['initializing', 'setup'],
  initialising: ['initializing'],
  ...Object.fromEntries(SESSION_STATUSES.map((s) => [s, [s]])),
};

/** The wire statuses of the names given (any case), each once; an unknown name is a RunyardValueError naming those there are. */
export function wireSessionStatuses(names: readonly string[]): SessionStatus[] {
  const out = new Set<SessionStatus>();
  for (const name of names) {
    const wire = SESSION_STATUS_NAMES[name.toLowerCase()];
    if (!wire) throw new RunyardValueError(`Invalid status '${name}'. Valid values: ${Object.keys(SESSION_STATUS_NAMES).join(', ')}`);
    for (const s of wire) out.add(s);
  }
  return [...out];
}

function requireSession(sessionId: string): void {
  if (!sessionId || typeof sessionId !== 'string') throw new RunyardValueError('Invalid session_id: must be a non-empty string');
}

/** `/api/v1/interactive-sessions/{id}/{action}` (resume and abort are v1 routes; the GET is v2). */
const actionPath = (sessionId: string, action: 'resume' | 'abort') =>
  `/api/v1/interactive-sessions/${encodeURIComponent(sessionId)}/${action}`;

/** create_interactive_session: `POST /api/v1/interactive-sessions?teamId=W`; the new session (scheduled) with its `_id`. */
export async function createInteractiveSession(t: ApiTransport, teamId: string, payload: SessionCreateBody): Promise<InteractiveSession> {
  requireWorkspace(teamId);
  return t.request<InteractiveSession>('POST', '/api/v1/interactive-sessions', { query: { teamId }, body: payload });
}

export interface SessionListOptions {
  /** 1-based page (default 1). */
  page?: number;
  /** Sessions per page, 1 to 100 (default 10). */
  limit?: number;
  /** Statuses to keep (SESSION_STATUS_NAMES: the seed's `running`, `stopped`, `provisioning`, `scheduled`, or the wire's). */
  status?: readonly string[];
  /** Only the caller's sessions. */
  ownerOnly?: boolean;
  /** true lists the archived sessions (the public client's `archived.status=true`). */
  includeArchived?: boolean;
}

export interface SessionListResult {
  sessions: InteractiveSession[];
  /** As the public client computes it from the reply's Pagination-Count. */
  paginationMetadata: { count: number; page: number; limit: number; totalPages: number };
}

/** get_interactive_session_list: one page of `GET /api/v3/interactive-sessions`, with the public client's checks and parameters. */
export async function getInteractiveSessionList(
  t: ApiTransport,
  teamId: string,
  { page = 1, limit = 10, status, ownerOnly = false, includeArchived = false }: SessionListOptions = {},
): Promise<SessionListResult> {
  requireWorkspace(teamId);
  if (!Number.isInteger(page) || page <= 0) throw new RunyardValueError('Please use a positive integer (>= 1) for the page parameter');
  if (!Number.isInteger(limit) || limit <= 0) throw new RunyardValueError('Please use a positive integer (>= 1) for the limit parameter');
  if (limit > MAX_SESSION_PAGE_SIZE) throw new RunyardValueError(`Limit cannot exceed ${MAX_SESSION_PAGE_SIZE}`);
  const statuses = status?.length ? wireSessionStatuses(status) : undefined;
  const reply = await t.request<SessionListReply>('GET', '/api/v3/interactive-sessions', {
    query: {
      teamId,
      page,
      limit,
      'status[]': statuses,
      onlyOwnerSessions: ownerOnly ? 'true' : undefined,
      'archived.status': includeArchived ? 'true' : 'false',
    },
  });
  const count = reply.paginationMetadata?.['Pagination-Count'] ?? reply.sessions.length;
  return { sessions: reply.sessions, paginationMetadata: { count, page, limit, totalPages: Math.ceil(count / limit) } };
}

/** The session document of `GET /api/v2/interactive-sessions/{id}` (the public client's session status). */
export async function getInteractiveSession(t: ApiTransport, sessionId: string, teamId: string): Promise<InteractiveSession> {
  requireSession(sessionId);
  requireWorkspace(teamId);
  return t.request<InteractiveSession>('GET', `/api/v2/interactive-sessions/${encodeURIComponent(sessionId)}`, { query: { teamId } });
}

/** resume_interactive_session: `PUT .../resume` with optional `dataItems` and `newInteractiveSessionConfiguration`; the updated session. */
export async function resumeInteractiveSession(
  t: ApiTransport,
  sessionId: string,
  teamId: string,
  payload: SessionResumeBody = {},
): Promise<InteractiveSession> {
  requireSession(sessionId);
  requireWorkspace(teamId);
  return t.request<InteractiveSession>('PUT', actionPath(sessionId, 'resume'), { query: { teamId }, body: payload });
}

/**
 * abort_interactive_session (the CLI's pause): `PUT .../abort` with `{uploadOnClose, forceAbort}`
 * (defaults true and false); answers the HTTP status, 204.
 */
export async function abortInteractiveSession(
  t: ApiTransport,
  sessionId: string,
  teamId: string,
  uploadOnClose = true,
  forceAbort = false,
): Promise<number> {
  requireSession(sessionId);
  requireWorkspace(teamId);
  const path = actionPath(sessionId, 'abort');
  const body: SessionAbortBody = { uploadOnClose, forceAbort };
  const res = await t.raw('PUT', path, { query: { teamId }, body });
  if (res.status >= 400) throw errorOfReply(res.status, res.body, 'PUT', path);
  return res.status;
}

/**
 * A link that opens a ready session's web UI through the platform's proxy, with a launch token for
 * this person, good for a minute and taken once (for a cookie): `url` is an absolute URL on the
 * sessions' own origin when the server has one, else a path on the platform (resolve it against the platform's URL).
 */
export async function getInteractiveSessionUiLink(t: ApiTransport, sessionId: string, teamId: string): Promise<SessionUiLink> {
  requireSession(sessionId);
  requireWorkspace(teamId);
  return t.request<SessionUiLink>('POST', `/api/runyard/interactive-sessions/${encodeURIComponent(sessionId)}/ui-link`, {
    query: { teamId },
  });
}
