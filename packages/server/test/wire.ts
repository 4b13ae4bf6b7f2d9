import assert from 'node:assert/strict';
import type { TestServer } from '../../../test/support/server.js';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A JSON request through app.inject, as the public client sends it (apikey + Content-type). */
export function call(s: TestServer, method: Method, url: string, body?: unknown, apikey: string | null = s.admin.apikey) {
  return s.app.inject({
    method,
    url,
    headers: { 'content-type': 'application/json', ...(apikey !== null && { apikey }) },
    ...(body !== undefined && { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

export function assertIsoTime(value: unknown, what = 'time'): void {
  assert.equal(typeof value, 'string', `${what} is not a string`);
  assert.match(value as string, ISO_UTC, `${what} is not ISO-8601 UTC`);
  assert.ok(!Number.isNaN(Date.parse(value as string)), `${what} is not a date`);
}

/**
 * The reply is the wire error body and nothing else: exactly {statusCode, code, message, time},
 * with the given status and code. Returns the message, for checks on what it names.
 */
export function assertError(r: { statusCode: number; body: string }, status: number, code: string): string {
  assert.equal(r.statusCode, status, `expected ${status} ${code}, got ${r.statusCode}: ${r.body}`);
  const body = JSON.parse(r.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'statusCode', 'time']);
  assert.equal(body.statusCode, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.message, 'string');
  assert.ok((body.message as string).length > 0, 'empty message');
  assertIsoTime(body.time);
  return body.message as string;
}
