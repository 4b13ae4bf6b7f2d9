import { quoted } from '../errors/quoted.js';
import { BlobKeyError, type ListOptions } from './blob-store.js';

/**
 * Validation of bucket names, keys, prefixes and list options, shared by every blob store and run before any I/O
 * (T9 of the reliability and security design: path traversal is refused whatever store is behind).
 */

/** S3's limit, and Azure's (1024 characters) is not smaller for the keys we accept. */
export const MAX_KEY_BYTES = 1024;

/** Names the local store gives its temporary files; no key may use them. */
export const TMP_SEGMENT_PREFIX = '.runyard-tmp-';

/** How many rounds of percent-decoding are looked through for a hidden `..`, `/`, `\` or control character. */
const DECODE_ROUNDS = 4;

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The reason a path (a key, or a key with a trailing slash) is unsafe in its literal form, or null. */
function structuralProblem(text: string, allowTrailingSlash: boolean): string | null {
  if (CONTROL.test(text)) return 'contains a NUL or control character';
  if (text.includes('\\')) return 'contains a backslash';
  if (text.startsWith('/')) return 'is an absolute path';
  const body = allowTrailingSlash && text.endsWith('/') ? text.slice(0, -1) : text;
  const segments = body.split('/');
  if (/^[A-Za-z]:$/.test(segments[0])) return 'starts with a drive letter';
  for (const segment of segments) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return `has a "${segment}" segment`;
  }
  return null;
}

/** Percent-decodes once; null when the text has no valid escape to decode (a bare `%` is an ordinary character). */
function decodeOnce(text: string): string | null {
  if (!/%[0-9A-Fa-f]{2}/.test(text)) return null;
  try {
    const decoded = decodeURIComponent(text);
    return decoded === text ? null : decoded;
  } catch {
    // Not valid UTF-8 escapes as a whole: decode the ASCII escapes, which are the ones that can hide `.`, `/` and `\`.
    const decoded = text.replace(/%([0-7][0-9A-Fa-f])/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return decoded === text ? null : decoded;
  }
}

function check(what: string, value: unknown, allowTrailingSlash: boolean): string {
  if (typeof value !== 'string') throw new BlobKeyError(`${what} must be a string`);
  if (value === '') throw new BlobKeyError(`${what} must not be empty`);
  if (LONE_SURROGATE.test(value)) throw new BlobKeyError(`${what} ${quoted(value)} is not valid Unicode`);
  if (Buffer.byteLength(value, 'utf8') > MAX_KEY_BYTES) throw new BlobKeyError(`${what} is longer than ${MAX_KEY_BYTES} bytes`);
  const literal = structuralProblem(value, allowTrailingSlash);
  if (literal) throw new BlobKeyError(`${what} ${quoted(value)} ${literal}`);
  let text = value;
  for (let round = 1; ; round++) {
    const decoded = decodeOnce(text);
    if (decoded === null) break;
    if (round > DECODE_ROUNDS) throw new BlobKeyError(`${what} ${quoted(value)} is percent-encoded too many times`);
    const problem = structuralProblem(decoded, allowTrailingSlash);
    if (problem) throw new BlobKeyError(`${what} ${quoted(value)} ${problem} once percent-decoded${round > 1 ? ` ${round} times` : ''}`);
    text = decoded;
  }
  if (value.split('/').some((segment) => segment.startsWith(TMP_SEGMENT_PREFIX))) {
    throw new BlobKeyError(`${what} ${quoted(value)} uses the reserved name ${TMP_SEGMENT_PREFIX}*`);
  }
  return value;
}

/** An object key: relative, `/`-separated, no empty, `.` or `..` segment (literal or percent-encoded), at most 1024 bytes. */
export function checkKey(key: unknown): string {
  return check('key', key, false);
}

/**
 * A folder prefix, normalised to `''` (the bucket's root) or a path ending with `/`. The same rules as keys; a
 * trailing slash is optional.
 */
export function checkPrefix(prefix: unknown): string {
  if (prefix === '' || prefix === undefined) return '';
  const checked = check('prefix', prefix, true);
  return checked.endsWith('/') ? checked : `${checked}/`;
}

/** A bucket (or container) name by S3's rules: 3-63 characters of lowercase letters, digits, dots and hyphens. */
export function checkBucket(bucket: unknown): string {
  if (typeof bucket !== 'string') throw new BlobKeyError('bucket name must be a string');
  const problem =
    bucket.length < 3 || bucket.length > 63
      ? 'must be 3 to 63 characters long'
      : !/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(bucket)
        ? 'may hold only lowercase letters, digits, dots and hyphens, and must start and end with a letter or digit'
        : /\.\.|\.-|-\./.test(bucket)
          ? 'must not have two dots, or a dot and a hyphen, next to each other'
          : /^\d+\.\d+\.\d+\.\d+$/.test(bucket)
            ? 'must not look like an IP address'
            : null;
  if (problem) throw new BlobKeyError(`bucket name ${quoted(bucket)} ${problem}`);
  return bucket;
}

/** A container name by Azure's rules: S3's, but no dots and no two hyphens together. */
export function checkContainer(container: unknown): string {
  checkBucket(container);
  const name = container as string;
  if (name.includes('.') || name.includes('--')) {
    throw new BlobKeyError(`container name ${quoted(name)} may hold only lowercase letters, digits and single hyphens`);
  }
  return name;
}

/** The limit of a list call: undefined (everything) or a positive integer. */
export function checkListOptions(options: ListOptions | undefined): { delimiter: boolean; limit?: number; cursor?: string } {
  const { delimiter = false, limit, cursor } = options ?? {};
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) throw new BlobKeyError('list limit must be a positive integer');
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor === ''))
    throw new BlobKeyError('list cursor must be a non-empty string');
  return { delimiter: Boolean(delimiter), limit, cursor };
}

/** The last segment of a key or folder key, without its trailing slash. */
export function nameOf(key: string): string {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** Bytewise (UTF-8) order of keys, the order in which S3 and Azure list them. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * A cursor that is the last key (or folder key) a listing returned, base64url-encoded; the local and S3 stores page
 * with it (S3 through StartAfter), so a page can end anywhere.
 */
export function encodeKeyCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** The key in a cursor of encodeKeyCursor, checked to lie under the folder being listed. */
export function decodeKeyCursor(cursor: string, folder: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (encodeKeyCursor(key) !== cursor || !key.startsWith(folder) || key === folder) throw new BlobKeyError('invalid list cursor');
  try {
    if (key.endsWith('/')) checkPrefix(key);
    else checkKey(key);
  } catch {
    throw new BlobKeyError('invalid list cursor');
  }
  return key;
}
