import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const MAX_JSON_DEPTH = 64;

/** Depth of nested arrays and objects, walked without recursion so deep input cannot blow the stack. */
function tooDeep(value: unknown): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
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
      parsed = JSON.parse(text, (key, v) => (key === '__proto__' ? undefined : v));
    } catch (e) {
      return done(new AppError('INVALID_JSON', `The request body is not valid JSON: ${(e as Error).message}`), undefined);
    }
    if (tooDeep(parsed)) return done(new AppError('BAD_REQUEST', `The request body is nested deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    done(null, parsed);
  });
}
