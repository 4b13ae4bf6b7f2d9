import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../../test/support/server.js';

const completed = (logs: string[]) => logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');

describe('request log lines', () => {
  it('at info (the default), a request writes no log line', async () => {
    const s = await startTestServer({ env: { RUNYARD_LOG_LEVEL: 'info' } });
    try {
      const before = s.logs.length;
      assert.equal((await s.app.inject({ url: '/api/v1/users/me', headers: { apikey: s.admin.apikey } })).statusCode, 200);
      assert.equal((await s.app.inject({ url: '/no/such/route' })).statusCode, 404);
      assert.deepEqual(s.logs.slice(before), []);
    } finally {
      await s.close();
    }
  });

  it('at debug, one line per finished request: method, URL, status and milliseconds', async () => {
    const s = await startTestServer({ env: { RUNYARD_LOG_LEVEL: 'debug' } });
    try {
      await s.app.inject({ url: '/api/v1/users/me?page=1', headers: { apikey: s.admin.apikey } });
      const lines = completed(s.logs);
      assert.equal(lines.length, 1, s.logs.join('\n'));
      const [line] = lines;
      assert.equal(line.level, 20);
      assert.deepEqual([line.method, line.url, line.statusCode, typeof line.ms], ['GET', '/api/v1/users/me?page=1', 200, 'number']);
      assert.equal(
        s.logs.some((l) => l.includes('incoming request')),
        false,
      );
    } finally {
      await s.close();
    }
  });
});

describe('keys in URLs never reach the log (debug level)', () => {
  let s: TestServer;
  let secrets: string[];
  before(async () => {
    s = await startTestServer({ env: { RUNYARD_LOG_LEVEL: 'debug' } });
    const key = s.admin.apikey;
    secrets = [key.split('_').slice(2).join('_'), 'tok-SECRET-1', 'pw-SECRET-2', 'bearer-SECRET-3', 'sig-SECRET-4'];
  });
  after(() => s.close());

  it('in the query string, a path segment, or a query key named like a credential', async () => {
    const key = s.admin.apikey;
    const headers = { apikey: key };
    const urls = [
      `/api/v1/users/me?apikey=${key}`,
      `/api/v1/users/me?api_key=${encodeURIComponent(key)}&token=tok-SECRET-1&password=pw-SECRET-2`,
      `/api/v1/users/me?Authorization=bearer-SECRET-3&X-Amz-Signature=sig-SECRET-4`,
      `/api/v1/users/${key}`,
      `/api/v2/projects?teamId=${key}&pageSize=10&page=1`,
      `/no/such/route/${key}?q=${key}`,
    ];
    for (const url of urls) {
      await s.app.inject({ url, headers });
      await s.app.inject({ url, headers: { apikey: `${key}x` } });
    }
    assert.equal(completed(s.logs).length, urls.length * 2, 'every request was logged');
    for (const line of s.logs) for (const secret of secrets) assert.ok(!line.includes(secret), `a secret in: ${line}`);
    const keyId = key.split('_')[1];
    assert.ok(
      s.logs.some((l) => l.includes(`ry_${keyId}_[redacted]`)),
      'the key id stays, to tell keys apart',
    );
  });

  it('in the line of an unexpected error (500)', async () => {
    const broken = await startTestServer({ env: { RUNYARD_LOG_LEVEL: 'debug' } });
    const key = broken.admin.apikey;
    // With its database gone, the server fails every authenticated request.
    await broken.store.close();
    try {
      const r = await broken.app.inject({ url: `/api/v1/users/me?apikey=${key}&token=tok-SECRET-1`, headers: { apikey: key } });
      assert.equal(r.statusCode, 500);
      const errors = broken.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'unexpected error');
      assert.equal(errors.length, 1, broken.logs.join('\n'));
      assert.equal(errors[0].url, '/api/v1/users/me?apikey=[redacted]&token=[redacted]');
      const secret = key.split('_').slice(2).join('_');
      for (const line of broken.logs) for (const s of [secret, 'tok-SECRET-1']) assert.ok(!line.includes(s), `a secret in: ${line}`);
    } finally {
      await broken.app.close();
    }
  });
});
