import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApiError, FetchTransport, RunyardApi, type AuthSession, type JobEvent } from '@runyard/client/core';

// What FetchTransport puts on the wire, seen by a small server that records every request: the
// base path, the JSON headers, the CSRF token on writes only, the sign-in routes, and an events
// stream whose characters are split across chunks and whose connection drops.

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const SESSION: AuthSession = {
  user: {
    id: '0123456789abcdef01234567',
    _id: '0123456789abcdef01234567',
    username: 'ada',
    name: 'Ada',
    surname: 'Lovelace',
    email: 'ada@example.org',
    isAdmin: false,
    dockerRegistriesCredentials: [],
    workspaces: [],
    createdAt: '2024-01-01T00:00:00.000Z',
  },
  csrfToken: 'csrf-1',
  expiresAt: '2024-01-02T00:00:00.000Z',
};

const JOB = '0123456789abcdef01234567';
const WS = '0123456789abcdef01234568';
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

describe('FetchTransport on the wire', () => {
  let server: Server;
  let url = '';
  const seen: Seen[] = [];
  let signedIn = false;
  /** Events requests that drop after their first line before one runs to the end. */
  let drops = 0;

  function events(from: number, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (from === 0) {
      // "héllo ✓\n" with its é and ✓ cut in the middle of their bytes, in three writes.
      const bytes = Buffer.from(sse('log', { offset: 10, text: 'héllo ✓\n' }));
      const cuts = [bytes.indexOf(0xc3) + 1, bytes.indexOf(0xe2) + 2];
      res.write(bytes.subarray(0, cuts[0]));
      setTimeout(() => res.write(bytes.subarray(cuts[0], cuts[1])), 20);
      setTimeout(() => {
        res.write(bytes.subarray(cuts[1]));
        if (drops > 0) {
          drops--;
          setTimeout(() => res.socket?.destroy(), 20);
        } else res.end(sse('end', { status: 'completed', statusMessage: null, exitCode: 0 }));
      }, 40);
      return;
    }
    res.write(sse('status', { status: 'running', statusMessage: null }));
    res.write(sse('log', { offset: 14, text: 'bye\n' }));
    res.end(sse('end', { status: 'completed', statusMessage: null, exitCode: 0 }));
  }

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const u = new URL(req.url!, 'http://x');
        const json = (status: number, value?: unknown) => {
          res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
          res.end(value === undefined ? undefined : JSON.stringify(value));
        };
        if (u.pathname === '/prefix/api/runyard/auth/login') {
          signedIn = JSON.parse(body).apikey === 'ry_good';
          return signedIn ? json(200, SESSION) : json(401, { message: 'The API key is not valid.', code: 'UNAUTHENTICATED' });
        }
        if (u.pathname === '/prefix/api/runyard/auth/session') return signedIn ? json(200, SESSION) : json(401, { message: 'No session.' });
        if (u.pathname === '/prefix/api/runyard/auth/logout') {
          signedIn = false;
          return json(204);
        }
        if (u.pathname === `/prefix/api/runyard/jobs/${JOB}/events`) return events(Number(u.searchParams.get('offset')), res);
        if (u.pathname === '/prefix/gateway') {
          res.writeHead(502, { 'content-type': 'text/html' });
          return res.end('<html>bad gateway</html>');
        }
        json(200, { echoed: u.pathname, items: [1, 2] });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
  });

  let token: string | undefined;
  const transport = () => new FetchTransport({ baseUrl: `${url}/prefix/`, csrfToken: () => token });

  it('sends the CSRF token on writes and never on reads, with JSON headers, below the base path', async () => {
    token = 'tok-1';
    const api = new RunyardApi(transport());
    assert.deepEqual(await api.request('GET', '/api/things', { query: { teamId: WS, tag: ['a', 'b'] } }), {
      echoed: '/prefix/api/things',
      items: [1, 2],
    });
    await api.request('HEAD', '/api/things');
    await api.request('POST', '/api/things', { body: { name: 'x' } });
    await api.request('PUT', 'api/things/1', { body: { name: 'y' } });
    await api.request('DELETE', '/api/things/1');
    token = undefined;
    await api.request('POST', '/api/things', { body: { name: 'z' } });

    assert.deepEqual(
      seen.map((r) => [r.method, r.url, r.headers['x-runyard-csrf'] ?? null]),
      [
        ['GET', `/prefix/api/things?teamId=${WS}&tag=a&tag=b`, null],
        ['HEAD', '/prefix/api/things', null],
        ['POST', '/prefix/api/things', 'tok-1'],
        ['PUT', '/prefix/api/things/1', 'tok-1'],
        ['DELETE', '/prefix/api/things/1', 'tok-1'],
        ['POST', '/prefix/api/things', null],
      ],
    );
    const post = seen[2];
    assert.equal(post.headers.accept, 'application/json');
    assert.equal(post.headers['content-type'], 'application/json');
    assert.equal(post.body, '{"name":"x"}');
    assert.equal(seen[0].headers['content-type'], undefined);
    assert.equal(seen[0].headers.apikey, undefined);
  });

  it('signs in with the key in the body, reads the session (null once signed out) and signs out', async () => {
    const api = new RunyardApi(transport());
    assert.equal(await api.currentSession(), null);
    await assert.rejects(api.login('ry_bad'), (e: unknown) => e instanceof ApiError && e.status === 401 && e.code === 'UNAUTHENTICATED');
    const session = await api.login('ry_good');
    assert.deepEqual(session, SESSION);
    token = session.csrfToken;
    assert.deepEqual(await api.currentSession(), SESSION);
    assert.equal(await api.logout(), undefined);
    assert.equal(await api.currentSession(), null);
    await assert.rejects(api.login(''), /API key is required/);

    assert.deepEqual(
      seen.map((r) => `${r.method} ${r.url} ${r.body || '-'} ${r.headers['x-runyard-csrf'] ?? '-'}`),
      [
        'GET /prefix/api/runyard/auth/session - -',
        'POST /prefix/api/runyard/auth/login {"apikey":"ry_bad"} -',
        'POST /prefix/api/runyard/auth/login {"apikey":"ry_good"} -',
        'GET /prefix/api/runyard/auth/session - -',
        'POST /prefix/api/runyard/auth/logout - csrf-1',
        'GET /prefix/api/runyard/auth/session - -',
      ],
    );
    // The key is only ever in the login body: never in a URL or a header.
    assert.ok(seen.every((r) => !r.url.includes('ry_good') && !JSON.stringify(r.headers).includes('ry_good')));
  });

  it('names an error reply without a JSON message by its status', async () => {
    const api = new RunyardApi(transport());
    await assert.rejects(
      api.request('GET', '/gateway'),
      (e: unknown) => e instanceof ApiError && e.status === 502 && e.serverMessage === 'Bad Gateway',
    );
  });

  it('follows an events stream whose characters are split across chunks, and reopens it from its offset when it drops', async () => {
    const api = new RunyardApi(transport());
    const follow = async () => {
      const out: JobEvent[] = [];
      for await (const e of api.followJob(JOB, WS)) out.push(e);
      return out;
    };
    assert.deepEqual(await follow(), [
      { type: 'log', text: 'héllo ✓\n', offset: 10 },
      { type: 'end', status: 'completed', statusMessage: null, exitCode: 0 },
    ]);
    assert.equal(seen[0].headers.accept, 'text/event-stream');
    assert.equal(seen[0].url, `/prefix/api/runyard/jobs/${JOB}/events?teamId=${WS}&offset=0`);

    seen.length = 0;
    drops = 1;
    assert.deepEqual(await follow(), [
      { type: 'log', text: 'héllo ✓\n', offset: 10 },
      { type: 'status', status: 'running', statusMessage: null },
      { type: 'log', text: 'bye\n', offset: 14 },
      { type: 'end', status: 'completed', statusMessage: null, exitCode: 0 },
    ]);
    assert.deepEqual(
      seen.map((r) => new URL(r.url, url).searchParams.get('offset')),
      ['0', '10'],
    );
  });

  it('takes the page’s origin when no base URL is given, and refuses what is not http(s)', () => {
    const g = globalThis as { location?: unknown };
    g.location = { href: `${url}/app/advanced-analytics/analyses/${JOB}` };
    try {
      const t = new FetchTransport();
      assert.equal(t.baseUrl.href, `${url}/`);
      assert.equal(t.basePath, '');
      assert.equal(new FetchTransport({ baseUrl: '/runyard/' }).basePath, '/runyard');
      assert.equal(
        new RunyardApi(t).storageObjectPath(WS, { bucket: 'b', key: 'a dir/x y.txt' }),
        `/api/runyard/storage/object?bucket=b&key=a+dir%2Fx+y.txt&teamId=${WS}`,
      );
    } finally {
      delete g.location;
    }
    assert.throws(() => new FetchTransport(), /not an absolute URL/);
    assert.throws(() => new FetchTransport({ baseUrl: 'ftp://host' }), /http:\/\/ or https:\/\//);
  });
});
