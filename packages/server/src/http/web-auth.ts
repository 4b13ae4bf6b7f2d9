import { CSRF_HEADER, WEB_SESSION_COOKIE } from '@runyard/contract';
import type { Config } from '../config.js';
import { cookieValues } from './cookies.js';
import { AppError } from '../errors/app-error.js';
import type { AuthUser } from '../services/context.js';
import { authenticateWebSession, csrfTokenMatches, type WebSession } from '../services/web-sessions.js';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/**
 * The dashboard's session cookie on the HTTP side (services/web-sessions.ts keeps the sessions).
 * A route that takes the apikey header also takes the cookie when no apikey (nor engine token) is
 * sent; a cookie-authenticated request that is not a read must then carry the session's CSRF token
 * in the x-runyard-csrf header, and must not come from another origin. The cookie is
 * SameSite=Strict already; the token and the Origin check also hold against a sibling site
 * (same-site, other origin) and browsers that ignore SameSite.
 */

type Headers = Record<string, string | string[] | undefined>;

/** Methods that change nothing: no CSRF token needed. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The session cookie's value in the Cookie header, or undefined when the request has none. */
export function sessionTokenOf(headers: Headers): string | undefined {
  return cookieValues(first(headers.cookie), WEB_SESSION_COOKIE)[0];
}

/** Whether the server is reached over HTTPS (directly, or behind a proxy whose public URL is https): its cookies are Secure then. */
export function secureCookies(config: Config): boolean {
  return Boolean(config.tlsCertFile) || config.publicUrl.startsWith('https:');
}

/** The Set-Cookie of a new session (or, with maxAge 0, of its end). */
export function sessionCookie(config: Config, token: string, maxAgeSeconds: number): string {
  return `${WEB_SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secureCookies(config) ? '; Secure' : ''}`;
}

/** The Set-Cookie that makes the browser forget the session cookie. */
export function clearedSessionCookie(config: Config): string {
  return sessionCookie(config, '', 0);
}

/**
 * Refuses (403 CSRF_FAILED) a request whose Origin header is present and is not the server's own:
 * the Host it was sent to, or the configured public URL's origin (behind a proxy that changes Host).
 */
export function requireSameOrigin(config: Config, headers: Headers): void {
  const origin = first(headers.origin);
  if (origin === undefined) return;
  if (config.publicUrl && origin === new URL(config.publicUrl).origin) return;
  if (!sameHost(origin, first(headers.host)))
    throw new AppError('CSRF_FAILED', 'This request comes from another site (its Origin is not this server).');
}

/** Whether an Origin names the Host a request was sent to (`http://h:80` is `h:80`: the default port compared as URLs do). */
function sameHost(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    const from = new URL(origin);
    return from.host !== '' && from.host === new URL(`${from.protocol}//${host}`).host;
  } catch {
    return false;
  }
}

/** The CSRF checks of a cookie-authenticated request: none for a read; the same origin and the session's token for a write. */
export function requireCsrf(config: Config, method: string, headers: Headers, session: WebSession): void {
  if (READ_METHODS.has(method)) return;
  requireSameOrigin(config, headers);
  if (!csrfTokenMatches(session, first(headers[CSRF_HEADER]))) throw new AppError('CSRF_FAILED');
}

/**
 * The user of a request authenticated by the session cookie `token` (a request with no apikey
 * header): 401 when the session is unknown or has ended, 403 CSRF_FAILED for a write without the
 * session's CSRF token. Called before the body is read: a refusal changes nothing.
 */
export async function cookieUser(db: Kysely<Database>, config: Config, method: string, headers: Headers, token: string): Promise<AuthUser> {
  const session = await authenticateWebSession(db, config, token);
  if (!session)
    throw new AppError('UNAUTHENTICATED', 'The dashboard session has ended (signed out, expired, or its API key revoked): sign in again.');
  requireCsrf(config, method, headers, session);
  return session.user;
}

/** What an auth route answers: a JSON body (or none), the Set-Cookie to send with it, never cached. */
export class SessionReply {
  constructor(
    readonly body: unknown,
    readonly setCookie?: string,
  ) {}
}
