import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_JSON_DEPTH = 64;
// Fatal: bytes that are not UTF-8 are refused rather than silently replaced with U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Walks the parsed body without recursion (so deep input cannot blow the stack): false when it
 * is nested deeper than MAX_JSON_DEPTH; otherwise drops every own `__proto__` key on the way, so
 * that no later spread or merge can set a prototype from a request.
 */
function sanitise(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return false;
    if (Object.hasOwn(v, '__proto__')) delete (v as Record<string, unknown>)['__proto__'];
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return true;
}

/** V8's reason, without the copy of the input it may include (`Unexpected token 'x', "{x..." is not valid JSON`). */
function reasonOf(e: Error): string {
  const token = /^Unexpected token '(.+?)', .* is not valid JSON$/su.exec(e.message);
  return token ? `unexpected character ${quoted(token[1])}` : e.message;
}

/**
 * JSON bodies: an empty body is no body (the public client sends `Content-type: application/json`
 * on bodiless PUT and DELETE calls), malformed or absurdly nested JSON is a clear 400.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer).trim();
    } catch {
      return done(new AppError('INVALID_JSON', 'The request body is not valid UTF-8.'), undefined);
    }
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      // No reviver: V8 parses deep nesting iteratively, but a reviver recurses and overflows.
      parsed = JSON.parse(text);
    } catch (e) {
      return done(new AppError('INVALID_JSON', `The request body is not valid JSON: ${reasonOf(e as Error)}.`), undefined);
    }
    if (!sanitise(parsed))
      return done(new AppError('BAD_REQUEST', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    done(null, parsed);
  });
}
