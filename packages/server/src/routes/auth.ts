import type { AuthLoginBody, AuthSession } from '@runyard/contract';
import { AppError } from '../errors/app-error.js';
import type { Handlers } from '../http/handler.js';
import { clearedSessionCookie, requireCsrf, requireSameOrigin, sessionCookie, SessionReply, sessionTokenOf } from '../http/web-auth.js';
import { getMe } from '../services/users.js';
import { authenticateWebSession, deleteWebSession, signIn, type WebSession } from '../services/web-sessions.js';

/**
 * The dashboard's sign-in (docs/dashboard.md). These routes are open in the route table: login
 * takes its API key in the body, session and logout the session cookie, which they check here.
 */

const SIGNED_OUT = 'Not signed in to the dashboard, or the session has ended: sign in with an API key.';

async function sessionBody(db: Parameters<typeof getMe>[0], session: WebSession): Promise<AuthSession> {
  return { user: await getMe(db, session.user), csrfToken: session.csrfToken, expiresAt: session.expiresAt };
}

export const authHandlers: Handlers = {
  authLogin: async (req, { db, config }) => {
    // No other site may sign a person in (to an account of its choosing).
    requireSameOrigin(config, req.headers);
    const session = await signIn(db, config, (req.body as AuthLoginBody).apikey);
    if (!session) throw new AppError('UNAUTHENTICATED', 'The API key is not valid or has been revoked.');
    // The session cookie the browser held before, if any, ends: one browser, one session.
    const previous = sessionTokenOf(req.headers);
    if (previous !== undefined) await deleteWebSession(db, previous);
    return new SessionReply(await sessionBody(db, session), sessionCookie(config, session.token, session.maxAgeSeconds));
  },

  authSession: async (req, { db, config }) => {
    const token = sessionTokenOf(req.headers);
    const session = token === undefined ? null : await authenticateWebSession(db, config, token);
    if (!session) throw new AppError('UNAUTHENTICATED', SIGNED_OUT);
    return new SessionReply(await sessionBody(db, session));
  },

  authLogout: async (req, { db, config }) => {
    const token = sessionTokenOf(req.headers);
    const session = token === undefined ? null : await authenticateWebSession(db, config, token);
    // A live session ends only with its CSRF token (another site cannot sign a person out); an ended one just loses its cookie.
    if (session) requireCsrf(config, 'POST', req.headers, session);
    if (token !== undefined) await deleteWebSession(db, token);
    return new SessionReply(undefined, clearedSessionCookie(config));
  },
};
