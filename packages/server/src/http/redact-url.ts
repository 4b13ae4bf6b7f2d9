/**
 * A URL made safe to log. People paste keys into URLs (`?apikey=ry_...`, a key as a path segment):
 * anything shaped like a Runyard key loses its secret (its id, which is not secret, stays to tell
 * keys apart), and the values of query keys named like credentials are dropped whatever they hold.
 */

// `ry_<24 hex id>_<secret>` (services/api-keys.ts); a secret cut short is still redacted.
const RUNYARD_KEY = /ry_([0-9a-fA-F]{24})_[A-Za-z0-9_-]*/g;

// Query keys compared lower-case with `-`, `_` and `.` removed.
const CREDENTIAL_NAMES = new Set(['key', 'sig', 'auth', 'pwd', 'passwd', 'pass', 'jwt', 'cookie']);
const CREDENTIAL_PARTS = ['apikey', 'token', 'secret', 'password', 'authorization', 'credential', 'signature', 'privatekey'];

export const REDACTED = '[redacted]';

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Whether a query key's value must never be logged. */
export function isCredentialName(name: string): boolean {
  const plain = decoded(name).toLowerCase().replace(/[-_.]/g, '');
  return CREDENTIAL_NAMES.has(plain) || CREDENTIAL_PARTS.some((part) => plain.includes(part));
}

function redactKeys(text: string): string {
  return text.replace(RUNYARD_KEY, `ry_$1_${REDACTED}`);
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return redactKeys(pair);
      const name = pair.slice(0, eq);
      return isCredentialName(name) ? `${redactKeys(name)}=${REDACTED}` : `${redactKeys(name)}=${redactKeys(pair.slice(eq + 1))}`;
    })
    .join('&');
}

/** The request URL (path and query) with keys and credential values replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return redactKeys(url);
  return `${redactKeys(url.slice(0, q))}?${redactQuery(url.slice(q + 1))}`;
}
