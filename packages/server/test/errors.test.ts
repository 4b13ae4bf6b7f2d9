import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { assertError, call } from './wire.js';

// T5/T7 and wire §1.6, §8: one error body, clear 4xx for bad input, tolerant paths.
describe('errors and limits', () => {
  let s: TestServer;
  let projectsUrl: string;
  before(async () => {
    s = await startTestServer({ listen: true });
    projectsUrl = `/api/v1/projects?teamId=${s.admin.workspaceId}`;
  });
  after(() => s.close());

  const total = async () => (await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}&pageSize=0`)).json().total as number;

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    for (const text of ['{bad json', '{"name": "x"', '{"name": \'x\'}', 'nul']) {
      assertError(await call(s, 'POST', projectsUrl, text), 400, 'INVALID_JSON');
    }
    assertError(await call(s, 'POST', '/api/runyard/admin/users', '{"username":'), 400, 'INVALID_JSON');
    assert.equal(await total(), 0);
  });

  it('answers a body over 1 MiB with 413 and stores nothing', async () => {
    const big = JSON.stringify({ name: 'big', pad: 'x'.repeat(1024 * 1024) });
    assertError(await call(s, 'POST', projectsUrl, big), 413, 'BODY_TOO_LARGE');
    const twoMiB = JSON.stringify({ username: 'big', email: 'big@example.org', name: 'x'.repeat(2 * 1024 * 1024) });
    assertError(await call(s, 'POST', '/api/runyard/admin/users', twoMiB), 413, 'BODY_TOO_LARGE');
    // Over real HTTP too, where the body arrives in chunks.
    const r = await fetch(`${s.url}${projectsUrl}`, {
      method: 'POST',
      headers: { apikey: s.admin.apikey, 'content-type': 'application/json' },
      body: big,
    });
    assertError({ statusCode: r.status, body: await r.text() }, 413, 'BODY_TOO_LARGE');
    assert.equal(await total(), 0);
  });

  it('refuses JSON nested 10,000 deep with a 400 that says so, and keeps serving', async () => {
    for (const deep of ['['.repeat(10_000) + ']'.repeat(10_000), '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)]) {
      assert.match(assertError(await call(s, 'POST', projectsUrl, deep), 400, 'BAD_REQUEST'), /nested deeper/);
    }
    const wrapped = `{"name":"deep","x":${'['.repeat(100)}${']'.repeat(100)}}`;
    assertError(await call(s, 'POST', projectsUrl, wrapped), 400, 'BAD_REQUEST');
    assert.equal((await call(s, 'GET', '/api/runyard/health')).statusCode, 200);
    assert.equal(await total(), 0);
  });

  it('answers an unknown route or method with a 404 wire body', async () => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/api/v1/nope?teamId=x'],
      ['DELETE', '/api/v2/projects'],
      ['PUT', '/api/v1/users/me'],
    ] as const) {
      assert.match(assertError(await call(s, method, url), 404, 'ROUTE_NOT_FOUND'), /No route/);
    }
  });

  it('serves //api/... (a base URL with a trailing slash) and a trailing slash like the plain path', async () => {
    const plain = await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}`);
    for (const url of [`//api/v2/projects?teamId=${s.admin.workspaceId}`, `/api/v2/projects/?teamId=${s.admin.workspaceId}`]) {
      const r = await call(s, 'GET', url);
      assert.equal(r.statusCode, 200, url);
      assert.deepEqual(r.json(), plain.json());
    }
    const r = await fetch(`${s.url}//api/v1/users/me`, { headers: { apikey: s.admin.apikey } });
    assert.equal(r.status, 200);
    const created = await call(s, 'POST', `//api/v1/projects/?teamId=${s.admin.workspaceId}`, { name: 'slashes' });
    assert.equal(created.statusCode, 200);
    assert.equal(await total(), 1);
  });

  it('treats an empty body with Content-type: application/json as no body on DELETE and PUT', async () => {
    const key = (await call(s, 'POST', '/api/runyard/admin/apikeys', { userId: s.admin.userId })).json();
    for (const method of ['DELETE', 'PUT'] as const) {
      const r = await fetch(`${s.url}/api/runyard/admin/apikeys/${key.id}`, {
        method,
        headers: { apikey: s.admin.apikey, 'Content-type': 'application/json' },
        body: '',
      });
      const body = await r.text();
      // DELETE is a route: it runs. PUT is not: 404, not a complaint about the body.
      if (method === 'DELETE') assert.equal(r.status, 200, body);
      else assertError({ statusCode: r.status, body }, 404, 'ROUTE_NOT_FOUND');
    }
    assertError(await call(s, 'GET', '/api/v1/users/me', undefined, key.apikey), 401, 'UNAUTHENTICATED');
    assertError(await call(s, 'DELETE', `/api/runyard/admin/apikeys/${'f'.repeat(24)}`, ''), 404, 'API_KEY_NOT_FOUND');
  });

  it('does not apply __proto__ keys', async () => {
    const r = await call(
      s,
      'POST',
      '/api/runyard/admin/users',
      '{"username":"proto","email":"proto@example.org","__proto__":{"isAdmin":true}}',
    );
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().isAdmin, false);
    const p = await call(s, 'POST', projectsUrl, '{"name":"proto","__proto__":{"name":"evil","team":{"id":"ffffffffffffffffffffffff"}}}');
    assert.equal(p.statusCode, 200, p.body);
    assert.equal(p.json().name, 'proto');
    assert.deepEqual(p.json().team, { id: s.admin.workspaceId });
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
    assert.equal(({} as Record<string, unknown>).team, undefined);
    const c = await call(s, 'POST', '/api/runyard/admin/users', {
      username: 'ctor',
      email: 'ctor@example.org',
      constructor: { prototype: { isAdmin: true } },
    });
    assert.match(assertError(c, 400, 'VALIDATION_FAILED'), /unknown key "constructor"/);
  });

  it('answers a path that is not valid percent-encoding with a 400 wire body', async () => {
    for (const url of ['/api/v2/projects%E0%A4%A', '/%']) assertError(await call(s, 'GET', url), 400, 'BAD_REQUEST');
  });

  it('answers a request HTTP cannot parse with a 400 wire body', async () => {
    const raw = await rawHttp(s.url, 'GET /api/runyard/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: bogus\r\n\r\n');
    const [head, body] = raw.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 400 /);
    assertError({ statusCode: 400, body }, 400, 'BAD_REQUEST');
  });

  it('answers every bad request with a 4xx, never a 5xx', async () => {
    const bad: [string, string, string | undefined][] = [
      ['POST', projectsUrl, '"just a string"'],
      ['POST', projectsUrl, '[1,2,3]'],
      ['POST', projectsUrl, 'null'],
      ['POST', projectsUrl, '{"name":{"$gt":""}}'],
      ['POST', `/api/v1/projects?teamId=${s.admin.workspaceId}&teamId=${s.admin.workspaceId}`, '{"name":"twice"}'],
      ['GET', `/api/v2/projects?teamId=${s.admin.workspaceId}&search=${'s'.repeat(5000)}`, undefined],
      ['GET', `/api/v2/projects?teamId=${s.admin.workspaceId}&pageSize=1e9`, undefined],
      ['GET', `/api/v2/projects?teamId[]=${s.admin.workspaceId}`, undefined],
      ['GET', '/api/v1/users/search-assist?teamId=None&q=%', undefined],
      ['POST', '/api/runyard/admin/members', '{"workspaceId":null,"userId":[]}'],
      ['DELETE', '/api/runyard/admin/members/x/y', undefined],
    ];
    for (const [method, url, body] of bad) {
      const r = await call(s, method as 'GET', url, body);
      assert.ok(r.statusCode >= 400 && r.statusCode < 500, `${method} ${url} ${body}: ${r.statusCode} ${r.body}`);
      assertError(r, r.statusCode, r.json().code);
    }
    const wrongType = await s.app.inject({
      method: 'POST',
      url: projectsUrl,
      headers: { apikey: s.admin.apikey, 'content-type': 'text/xml' },
      payload: '<x/>',
    });
    assert.ok(wrongType.statusCode >= 400 && wrongType.statusCode < 500, wrongType.body);
    assert.equal(await total(), 2);
  });
});

/** Sends raw bytes and returns whatever comes back before the server closes (at most 5 s). */
function rawHttp(base: string, data: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (d) => (out += d));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', () => socket.destroy()); // a reset after the reply still leaves the reply
    socket.write(data);
  });
}
