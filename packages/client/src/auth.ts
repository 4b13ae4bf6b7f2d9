// The dashboard's sign-in (contract schemas/auth.ts): an API key exchanged once for an HttpOnly
// session cookie and the CSRF token that cookie-authenticated writes carry.
import type { AuthSession } from '@runyard/contract';
import { errorOfReply, type ApiTransport } from './api-transport.js';
import { RunyardValueError } from './errors.js';

export type { AuthSession };

const AUTH = '/api/runyard/auth';

/** `POST /api/runyard/auth/login` with `{apikey}`: the session (user, CSRF token, end); the cookie is set by the reply. */
export function login(t: ApiTransport, apikey: string): Promise<AuthSession> {
  if (!apikey || typeof apikey !== 'string') return Promise.reject(new RunyardValueError('An API key is required.'));
  return t.request<AuthSession>('POST', `${AUTH}/login`, { body: { apikey } });
}

/** `GET /api/runyard/auth/session`: the session of the cookie, or null when there is none (401). */
export async function currentSession(t: ApiTransport): Promise<AuthSession | null> {
  const res = await t.raw('GET', `${AUTH}/session`);
  if (res.status === 401) return null;
  if (res.status >= 400) throw errorOfReply(res.status, res.body, 'GET', `${AUTH}/session`);
  return res.body as AuthSession;
}

/** `POST /api/runyard/auth/logout` (204): ends the session and clears its cookie. */
export async function logout(t: ApiTransport): Promise<void> {
  await t.request('POST', `${AUTH}/logout`);
}
