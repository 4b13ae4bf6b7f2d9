import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_JSON_DEPTH = 64;

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

/**
 * JSON bodies: an empty body is no body (the public client sends `Content-type: application/json`
 * on bodiless PUT and DELETE calls), malformed or absurdly nested JSON is a clear 400.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    let parsed: unknown;
    try {
      // No reviver: V8 parses deep nesting iteratively, but a reviver recurses and overflows.
      parsed = JSON.parse(text);
    } catch (e) {
      return done(new AppError('INVALID_JSON', `The request body is not valid JSON: ${(e as Error).message}`), undefined);
    }
    if (!sanitise(parsed))
      return done(new AppError('BAD_REQUEST', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    done(null, parsed);
  });
}
