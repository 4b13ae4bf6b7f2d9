import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { derivedKey } from '../store/secret-box.js';

/**
 * The tokens that open a session's web UI through the platform's proxy (session-proxy.ts), signed
 * with HMAC-SHA256 under a key derived from the server's key (store/secret-box.ts), so that every
 * server process of the platform (API replicas) takes the tokens any of them issued.
 *
 *   launch - issued by the platform to a person who may open the session (a route checks that);
 *            short-lived, it is put in the URL the person opens (`?token=`), and the proxy takes it
 *            once, in exchange for a cookie. Never the API key: a URL ends up in histories and logs.
 *   cookie - what the proxy sets in exchange: HttpOnly, SameSite=Strict, scoped to the session's path.
 *
 * Both name the session, the person, the API key the person used to ask for the launch (when they
 * used one: the proxy refuses the cookie once that key is revoked) and an expiry; a token of one kind is never taken as the
 * other, nor for another session. Text: `<base64url JSON claims>.<base64url HMAC>`; the HMAC covers
 * the claims text.
 */
export type SessionUiTokenKind = 'launch' | 'cookie';

export interface SessionUiClaims {
  kind: SessionUiTokenKind;
  sessionId: string;
  userId: string;
  /** The API key (its id) with which the launch was asked for, directly or through a dashboard session. */
  keyId?: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** Random: tells two tokens apart (a launch token is taken once). */
  nonce: string;
}

/** Purpose of the derived key (secret-box.ts derivedKey). */
export const SESSION_UI_KEY_PURPOSE = 'session-ui-token';

/** A token longer than this is refused unread. */
const MAX_TOKEN_CHARS = 1024;
const ID = /^[0-9a-f]{24}$/;

export class SessionUiTokens {
  constructor(
    private readonly key: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    if (key.length < 32) throw new Error('The key of session UI tokens must have at least 32 bytes.');
  }

  /** The tokens of this server: keyed from its secret key file (config.secretKeyFile). */
  static fromKeyFile(keyFile: string, now?: () => number): SessionUiTokens {
    return new SessionUiTokens(derivedKey(keyFile, SESSION_UI_KEY_PURPOSE), now);
  }

  issue(kind: SessionUiTokenKind, sessionId: string, userId: string, ttlSeconds: number, keyId?: string): string {
    if (!ID.test(sessionId) || !ID.test(userId) || (keyId !== undefined && !ID.test(keyId)))
      throw new Error('A session UI token names a session id, a user id and maybe a key id (24 hex characters).');
    if (!(ttlSeconds > 0)) throw new Error('A session UI token needs a positive lifetime.');
    const claims: SessionUiClaims = {
      kind,
      sessionId,
      userId,
      ...(keyId !== undefined && { keyId }),
      expiresAt: this.now() + Math.round(ttlSeconds * 1000),
      nonce: randomBytes(12).toString('base64url'),
    };
    const text = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${text}.${this.sign(text)}`;
  }

  /** The claims of a token of that kind for that session, signed by this key and not expired; null otherwise (whatever is wrong). */
  verify(token: string, kind: SessionUiTokenKind, sessionId: string): SessionUiClaims | null {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return null;
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const text = token.slice(0, dot);
    // Compared as text: base64url decoding ignores the last character's spare bits, which would make
    // several texts of one signature valid.
    const given = Buffer.from(token.slice(dot + 1));
    const expected = Buffer.from(this.sign(text));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (!isClaims(claims)) return null;
    if (claims.kind !== kind || claims.sessionId !== sessionId || claims.expiresAt <= this.now()) return null;
    return claims;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}

function isClaims(value: unknown): value is SessionUiClaims {
  const c = value as Partial<SessionUiClaims> | null;
  return (
    typeof c === 'object' &&
    c !== null &&
    (c.kind === 'launch' || c.kind === 'cookie') &&
    typeof c.sessionId === 'string' &&
    typeof c.userId === 'string' &&
    ID.test(c.userId) &&
    (c.keyId === undefined || (typeof c.keyId === 'string' && ID.test(c.keyId))) &&
    typeof c.expiresAt === 'number' &&
    Number.isFinite(c.expiresAt) &&
    typeof c.nonce === 'string'
  );
}
