import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { newObjectId } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import { derivedKey } from '../store/secret-box.js';
import { authenticate as authenticateApiKey } from './api-keys.js';
import type { AuthUser } from './context.js';

/**
 * The dashboard's sign-ins. A person gives an API key once (checked as the apikey header is) and
 * gets a session: a random token (32 bytes, base64url) for an HttpOnly cookie, of which the
 * database keeps only the SHA-256, and a CSRF token that the dashboard sends back on writes. The
 * CSRF token is the HMAC-SHA256 of the cookie's token under a key derived from the server's key
 * (store/secret-box.ts), so it is never stored, every process on the same key file agrees on it,
 * and a page that cannot read the cookie cannot compute it.
 *
 * A session ends at its expiry (fixed, not sliding), at sign-out, when the API key it was made
 * with is revoked, and (while it lasts) when its user is deactivated. Expired rows are removed
 * when they are next presented, and a few at each sign-in: no background job is needed.
 */

/** Purpose of the derived key of CSRF tokens (secret-box.ts derivedKey). */
export const WEB_SESSION_CSRF_PURPOSE = 'web-session-csrf';

/** A cookie token as this service issues them: anything else is refused without a lookup. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** The key id part of an API key (`ry_<keyId>_<secret>`, services/api-keys.ts), once the key is known to be valid. */
const API_KEY_ID = /^ry_([0-9a-f]{24})_/;
/** Expired rows removed at each sign-in. */
const PURGE_BATCH = 50;

export interface WebSession {
  user: AuthUser;
  csrfToken: string;
  expiresAt: string;
}

export interface NewWebSession extends WebSession {
  /** The cookie's value: given to the browser once, never stored. */
  token: string;
  maxAgeSeconds: number;
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/** The CSRF token of a session, from its cookie token. */
export function csrfTokenOf(config: Config, token: string): string {
  return createHmac('sha256', derivedKey(config.secretKeyFile, WEB_SESSION_CSRF_PURPOSE)).update(token).digest('base64url');
}

/** Whether `given` is the session's CSRF token, compared in constant time. */
export function csrfTokenMatches(session: WebSession, given: string | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A new session for a user who signed in with the API key `apiKeyId`. */
export async function createWebSession(db: Kysely<Database>, config: Config, user: AuthUser, apiKeyId: string): Promise<NewWebSession> {
  const token = randomBytes(32).toString('base64url');
  const maxAgeSeconds = Math.max(1, Math.round(config.webSessionHours * 3600));
  const now = Date.now();
  const expiresAt = new Date(now + maxAgeSeconds * 1000).toISOString();
  await db
    .insertInto('web_sessions')
    .values({
      id: newObjectId(),
      token_hash: hashOf(token),
      user_id: user.id,
      api_key_id: apiKeyId,
      created_at: new Date(now).toISOString(),
      expires_at: expiresAt,
    })
    .execute();
  return { user, token, csrfToken: csrfTokenOf(config, token), expiresAt, maxAgeSeconds };
}

/** Signs in with an API key: a new session, or null when the key is not valid (nothing is stored then). */
export async function signIn(db: Kysely<Database>, config: Config, apikey: string): Promise<NewWebSession | null> {
  const user = await authenticateApiKey(db, apikey);
  if (!user) return null;
  await purgeExpired(db);
  return createWebSession(db, config, user, API_KEY_ID.exec(apikey)![1]);
}

/** The session of a cookie token, or null when there is none, it has expired, its key was revoked or its user deactivated. */
export async function authenticateWebSession(db: Kysely<Database>, config: Config, token: string): Promise<WebSession | null> {
  if (!TOKEN.test(token)) return null;
  const row = await db
    .selectFrom('web_sessions')
    .innerJoin('api_keys', 'api_keys.id', 'web_sessions.api_key_id')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select([
      'web_sessions.id as session_id',
      'web_sessions.expires_at',
      'web_sessions.api_key_id',
      'api_keys.revoked_at',
      'users.id as user_id',
      'users.username',
      'users.name',
      'users.surname',
      'users.email',
      'users.is_admin',
      'users.active',
    ])
    .where('web_sessions.token_hash', '=', hashOf(token))
    .executeTakeFirst();
  if (!row) return null;
  // Neither an expired session nor one of a revoked key can come back: their row goes.
  if (row.expires_at <= new Date().toISOString() || row.revoked_at) {
    await db.deleteFrom('web_sessions').where('id', '=', row.session_id).execute();
    return null;
  }
  if (!row.active) return null;
  return {
    user: {
      id: row.user_id,
      username: row.username,
      name: row.name,
      surname: row.surname,
      email: row.email,
      isAdmin: row.is_admin === 1,
      apiKeyId: row.api_key_id,
    },
    csrfToken: csrfTokenOf(config, token),
    expiresAt: row.expires_at,
  };
}

/** Ends the session of a cookie token (nothing when there is none). */
export async function deleteWebSession(db: Kysely<Database>, token: string): Promise<void> {
  if (!TOKEN.test(token)) return;
  await db.deleteFrom('web_sessions').where('token_hash', '=', hashOf(token)).execute();
}

/** Removes a few expired sessions (those nobody presents again would otherwise stay). */
async function purgeExpired(db: Kysely<Database>): Promise<void> {
  const expired = await db
    .selectFrom('web_sessions')
    .select('id')
    .where('expires_at', '<=', new Date().toISOString())
    .limit(PURGE_BATCH)
    .execute();
  if (expired.length)
    await db
      .deleteFrom('web_sessions')
      .where(
        'id',
        'in',
        expired.map((r) => r.id),
      )
      .execute();
}
