import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';

// PostgreSQL cannot store U+0000 in text (a 500), SQLite stores it; a lone surrogate is
// replaced on the way to either. Both are refused here, before any database sees them.
const NUL = /\u0000/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be taken as text, or null when it can. */
function problemOf(text: string): string | null {
  if (NUL.test(text)) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains an invalid Unicode character (lone surrogate)';
  return null;
}

/** `body.params.0.name`; a key that is not a plain word is quoted: `body.params["a b"]`. */
function fieldOf(parent: string, key: string): string {
  return /^[A-Za-z0-9_$-]+$/.test(key) ? `${parent}.${key}` : `${parent}[${quoted(key)}]`;
}

/** An array or a record of plain data (the query object's prototype is a bare null-prototype object). */
function isJsonShaped(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return Array.isArray(value) || proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

/**
 * The first string, key included, in a parsed value that cannot be text: "body.name contains a
 * NUL character". Iterative, like the JSON parser's depth check; only JSON-shaped values are
 * walked (an upload body is a stream, and its bytes are file content, not text).
 */
function findProblem(root: unknown, rootField: string): string | null {
  const stack: [unknown, string][] = [[root, rootField]];
  while (stack.length) {
    const [value, field] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem) return `${field} ${problem}`;
      continue;
    }
    if (value === null || typeof value !== 'object' || !isJsonShaped(value)) continue;
    for (const [key, child] of Object.entries(value)) {
      const problem = problemOf(key);
      if (problem) return `${field} has a key ${quoted(key)} that ${problem}`;
      stack.push([child, fieldOf(field, key)]);
    }
  }
  return null;
}

/**
 * The query string as sent, checked for percent-encodings that are not UTF-8 (`%FF`, `%ED%A0%80`):
 * the query parser keeps such a value as its literal text, which would silently change it.
 */
function badQueryEncoding(url: string): string | null {
  const start = url.indexOf('?');
  if (start < 0) return null;
  for (const pair of url.slice(start + 1).split('&')) {
    const [rawKey, rawValue = ''] = splitOnce(pair.replace(/\+/g, ' '));
    const key = decoded(rawKey);
    if (key === null) return `query has a key ${quoted(rawKey)} that is not valid percent-encoded UTF-8`;
    if (decoded(rawValue) === null) return `${fieldOf('query', key)} is not valid percent-encoded UTF-8`;
  }
  return null;
}

function splitOnce(pair: string): [string, string?] {
  const at = pair.indexOf('=');
  return at < 0 ? [pair] : [pair.slice(0, at), pair.slice(at + 1)];
}

/**
 * The decoded text, or null when its percent-encoded bytes are not UTF-8. A `%` without two hex
 * digits stays literal, as the query parser keeps it (`search=100%`).
 */
function decoded(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  } catch {
    return null;
  }
}

function problemOfRequest(request: FastifyRequest): string | null {
  return (
    badQueryEncoding(request.url) ??
    findProblem(request.query, 'query') ??
    findProblem(request.params, 'params') ??
    findProblem(request.body, 'body')
  );
}

/**
 * Every route's query, path parameters and JSON body, keys included, must be text both
 * databases store as sent: a NUL, a lone surrogate or a query value that is not UTF-8 is a 400
 * naming the field. It runs after authentication and body parsing, before any validation.
 * (A path that is not valid percent-encoding never reaches a route: the router refuses it.)
 */
export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (request.is404) return;
    const problem = problemOfRequest(request);
    if (problem) throw new AppError('VALIDATION_FAILED', problem);
  });
}
