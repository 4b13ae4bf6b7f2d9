/**
 * A URL made safe to log. People paste keys into URLs (`?apikey=ry_...`, a key as a path segment):
 * anything shaped like a Runyard key loses its secret (its id, which is not secret, stays to tell
 * keys apart), and the values of query keys named like credentials are dropped whatever they hold.
 */

// `ry_<24 hex id>_<secret>` (services/api-keys.ts); a secret cut short is still redacted.
const RUNYARD_KEY = /ry_([0-9a-fA-F]{24})_[A-Za-z0-9_-]*/g;
const HAS_RUNYARD_KEY = /ry_[0-9a-fA-F]{24}_/;

// What separates the parts of a path or query; a part is decoded on its own.
const SEPARATORS = /([/?&=;,])/;

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

/**
 * Keys in plain text, and keys percent-encoded in any way (`ry%5F...`): a part that holds one once
 * decoded is logged decoded, with the secret dropped.
 */
function redactKeys(text: string): string {
  return text
    .split(SEPARATORS)
    .map((part) => {
      if (HAS_RUNYARD_KEY.test(part)) return part.replace(RUNYARD_KEY, `ry_$1_${REDACTED}`);
      const plain = part.includes('%') ? decoded(part) : part;
      return HAS_RUNYARD_KEY.test(plain) ? plain.replace(RUNYARD_KEY, `ry_$1_${REDACTED}`) : part;
    })
    .join('');
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
