import { Type, type Static } from '@sinclair/typebox';
import { IsoTime } from './common.js';
import { UserMe } from './user.js';

/**
 * The dashboard's sign-in (docs/dashboard.md): an API key is exchanged once for a session cookie
 * (HttpOnly, so the key is never kept by the browser), and cookie-authenticated writes carry the
 * session's CSRF token in the `x-runyard-csrf` header.
 */

/** `POST /api/runyard/auth/login`. */
export const AuthLoginBody = Type.Object({ apikey: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });
export type AuthLoginBody = Static<typeof AuthLoginBody>;

/** What login and `GET /api/runyard/auth/session` answer: who is signed in, the CSRF token of the session, and when it ends. */
export const AuthSession = Type.Object({
  user: UserMe,
  /** Sent back in the `x-runyard-csrf` header on every cookie-authenticated request that is not a GET. */
  csrfToken: Type.String(),
  expiresAt: IsoTime,
});
export type AuthSession = Static<typeof AuthSession>;

/** The cookie that holds a dashboard session, and the header of its CSRF token. */
export const WEB_SESSION_COOKIE = 'runyard_session';
export const CSRF_HEADER = 'x-runyard-csrf';
