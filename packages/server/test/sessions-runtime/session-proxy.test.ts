import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { sessionUiLaunchPath } from '../../src/http/session-proxy.js';
import { SessionUiTokens } from '../../src/http/session-ui-token.js';
import { assertError } from '../wire.js';
import { cookieOf, request, startProxyApp, type ProxyApp } from './proxy-app.js';

/**
 * The proxy in front of a session's server, here a small HTTP and WebSocket server on a unix socket
 * that answers with what it received: what passes, what is added and what is taken away. Jupyter
 * itself behind the proxy: jupyter-session.test.ts.
 */

const SESSION = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const OTHER = 'bbbbbbbbbbbbbbbbbbbbbbb2';
const STOPPED = 'ccccccccccccccccccccccc3';
const MEMBER = '111111111111111111111111';
const STRANGER = '222222222222222222222222';
const UPSTREAM_TOKEN = 'u'.repeat(48);

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Which of the server's connections the request came on (1, 2, ...). */
  connection: number;
}

/** An HTTP server on a unix socket that answers every request with what it got, plus a CORS grant and cookies (as Jupyter sends). */
async function echoUpstream(socketPath: string) {
  const connections = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const seen: Seen = { method: req.method!, url: req.url!, headers: req.headers, body, connection: connections.get(req.socket)! };
      res.setHeader('access-control-allow-origin', '*');
      res.setHeader('access-control-allow-credentials', 'true');
      res.setHeader('set-cookie', ['_xsrf=abc; Path=/', 'runyard-session-ui=forged; Path=/']);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(seen));
    });
  });
  server.on('connection', (socket) => connections.set(socket, connections.has(socket) ? connections.get(socket)! : ++count));
  let count = 0;
  const wss = new WebSocketServer({ server });
  wss.on('connection', (socket, req) => {
    socket.send(JSON.stringify({ headers: req.headers, url: req.url }));
    socket.on('message', (data) => socket.send(`echo:${String(data)}`));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.close(() => resolve());
      }),
  };
}

function openSocket(url: string, headers: Record<string, string>): Promise<{ ws: WebSocket; first: string } | { status: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('message', (data) => resolve({ ws, first: String(data) }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0 });
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

describe('session proxy', { timeout: 60_000 }, () => {
  let s: ProxyApp;
  let upstream: { close(): Promise<void> };
  const base = (id: string) => `/api/runyard/interactive-sessions/${id}/ui/`;
  const launch = (id = SESSION, user = MEMBER, ttl = 60) => s.tokens.issue('launch', id, user, ttl);

  before(async () => {
    s = await startProxyApp();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-upstream-'));
    const socketPath = path.join(dir, 'session.sock');
    upstream = await echoUpstream(socketPath);
    s.sessions.set(SESSION, { upstream: { socketPath, token: UPSTREAM_TOKEN }, members: new Set([MEMBER]) });
    s.sessions.set(OTHER, { upstream: { socketPath, token: UPSTREAM_TOKEN }, members: new Set([MEMBER]) });
    s.sessions.set(STOPPED, { upstream: { socketPath: path.join(dir, 'gone.sock'), token: UPSTREAM_TOKEN }, members: new Set([MEMBER]) });
  });

  after(async () => {
    await s?.close();
    await upstream?.close();
  });

  /** A cookie for the session, got as a browser gets it: the launch URL, once. */
  async function cookieFor(id = SESSION): Promise<string> {
    const r = await request(`${s.url}${base(id)}tree?x=1&token=${encodeURIComponent(launch(id))}`);
    assert.equal(r.status, 200, r.body);
    return cookieOf(r);
  }

  it('takes a launch token once, for a cookie scoped to the session, and goes on to the URL without the token', async () => {
    const token = launch();
    const r = await request(`${s.url}${base(SESSION)}tree?x=1&token=${encodeURIComponent(token)}`);
    assert.equal(r.status, 200);
    const set = r.headers['set-cookie'] ?? [];
    assert.equal(set.length, 1);
    const attributes = set[0]!.split(';').map((a) => a.trim());
    assert.ok(attributes.includes(`Path=${base(SESSION)}`), set[0]);
    assert.ok(attributes.includes('HttpOnly'), set[0]);
    assert.ok(attributes.includes('SameSite=Strict'), set[0]);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.match(r.body, new RegExp(`url=${base(SESSION)}tree\\?x=1"`));
    assert.ok(!r.body.includes(token));
    // The same launch token again, without the cookie: spent.
    const again = await request(`${s.url}${base(SESSION)}tree?token=${encodeURIComponent(token)}`);
    assertError({ statusCode: again.status, body: again.body }, 404, 'ROUTE_NOT_FOUND');
    // With the cookie: through to the session, without the token in the URL.
    const through = await request(`${s.url}${base(SESSION)}tree?x=1&token=${encodeURIComponent(token)}`, {
      headers: { cookie: cookieOf(r) },
    });
    assert.equal(through.status, 200);
    assert.equal((JSON.parse(through.body) as Seen).url, `${base(SESSION)}tree?x=1`);
  });

  it('answers 404, as for a path no route serves, without a valid token or cookie for that session', async () => {
    const expired = new SessionUiTokens(Buffer.alloc(32, 1)); // another key
    const past = SessionUiTokens.fromKeyFile(s.config.secretKeyFile, () => Date.now() - 3_600_000);
    const cookieOfOther = await cookieFor(OTHER);
    const cases: [string, Record<string, string>][] = [
      ['no token', {}],
      ['a token for another session', { token: launch(OTHER) }],
      ['an expired token', { token: past.issue('launch', SESSION, MEMBER, 60) }],
      ['a token signed with another key', { token: expired.issue('launch', SESSION, MEMBER, 60) }],
      ['a cookie token used as a launch token', { token: s.tokens.issue('cookie', SESSION, MEMBER, 60) }],
      ['a token of someone who may not open the session', { token: launch(SESSION, STRANGER) }],
      ['a tampered token', { token: launch().replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) }],
      ['the cookie of another session', { cookie: cookieOfOther }],
      ['a launch token as the cookie', { cookie: `runyard-session-ui=${launch()}` }],
      ['an API key', { apikey: 'ry_000000000000000000000000_secret' }],
    ];
    const unknown = await request(`${s.url}/api/runyard/no-such-route`);
    assertError({ statusCode: unknown.status, body: unknown.body }, 404, 'ROUTE_NOT_FOUND');
    for (const [what, given] of cases) {
      const { token, ...headers } = given;
      const url = `${s.url}${base(SESSION)}tree${token ? `?token=${encodeURIComponent(token)}` : ''}`;
      const r = await request(url, { headers });
      assert.equal(r.status, 404, `${what}: ${r.status} ${r.body}`);
      const body = JSON.parse(r.body) as { code: string; message: string };
      assert.equal(body.code, 'ROUTE_NOT_FOUND', what);
      assert.equal(body.message, 'No route GET for this path.', what);
      assert.equal(r.headers['set-cookie'], undefined, what);
    }
    // A session nobody knows, with a token for it: the same.
    const ghost = 'dddddddddddddddddddddddd';
    const r = await request(`${s.url}${base(ghost)}?token=${encodeURIComponent(launch(ghost))}`);
    assert.equal(r.status, 404);
  });

  it('refuses a valid cookie once the person may no longer open the session', async () => {
    const cookie = await cookieFor();
    assert.equal((await request(`${s.url}${base(SESSION)}api/status`, { headers: { cookie } })).status, 200);
    s.sessions.get(SESSION)!.members.delete(MEMBER);
    try {
      assert.equal((await request(`${s.url}${base(SESSION)}api/status`, { headers: { cookie } })).status, 404);
    } finally {
      s.sessions.get(SESSION)!.members.add(MEMBER);
    }
  });

  it("passes the body as sent, adds the session's token, and keeps the platform's credentials and cookies from the session", async () => {
    const cookie = await cookieFor();
    const body = JSON.stringify({ name: 'python3', nested: { a: [1, 2] } });
    const r = await request(`${s.url}${base(SESSION)}api/kernels?a=b`, {
      method: 'POST',
      body,
      headers: {
        cookie: `${cookie}; _xsrf=x1; runyard-other=secret`,
        apikey: 'ry_000000000000000000000000_secret',
        authorization: 'Bearer platform-secret',
        'content-type': 'application/json',
        'x-forwarded-for': '10.0.0.1',
        origin: s.url,
      },
    });
    assert.equal(r.status, 200, r.body);
    const seen = JSON.parse(r.body) as Seen;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, `${base(SESSION)}api/kernels?a=b`);
    assert.equal(seen.body, body);
    assert.equal(seen.headers.authorization, `token ${UPSTREAM_TOKEN}`);
    assert.equal(seen.headers.cookie, '_xsrf=x1');
    assert.equal(seen.headers.apikey, undefined);
    assert.equal(seen.headers['x-forwarded-for'], undefined);
    assert.equal(seen.headers.host, new URL(s.url).host);
    // What the browser gets back: no CORS grant, no cookie named like the platform's.
    assert.equal(r.headers['access-control-allow-origin'], undefined);
    assert.equal(r.headers['access-control-allow-credentials'], undefined);
    assert.deepEqual(r.headers['set-cookie'], ['_xsrf=abc; Path=/']);
  });

  it("keeps its connection to the session's server alive, whatever the browser's Connection header says", async () => {
    // With `Connection: close` upstream, Jupyter closed once it had answered, and under load the proxy's
    // last write of the request then failed (EPIPE): the answer was lost and the person got 502.
    const cookie = await cookieFor();
    const seen: Seen[] = [];
    for (const connection of ['close', 'keep-alive']) {
      const r = await request(`${s.url}${base(SESSION)}api/kernels`, {
        method: 'POST',
        body: '{"name":"python3"}',
        headers: { cookie, connection, 'content-type': 'application/json', origin: s.url },
      });
      assert.equal(r.status, 200, `${connection}: ${r.body}`);
      // The answer keeps the browser's connection as the browser asked.
      assert.equal(r.headers.connection, connection);
      seen.push(JSON.parse(r.body) as Seen);
    }
    assert.deepEqual(
      seen.map((x) => x.headers.connection),
      ['keep-alive', 'keep-alive'],
    );
    assert.equal(seen[0]!.connection, seen[1]!.connection, 'the second request came on a new connection');
  });

  it('refuses requests from another origin (cross-site request forgery)', async () => {
    const cookie = await cookieFor();
    const r = await request(`${s.url}${base(SESSION)}api/kernels`, {
      method: 'POST',
      body: '{}',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
    });
    assert.equal(r.status, 404);
  });

  it('proxies WebSockets with the cookie, and refuses them without it, for another session, or from another origin', async () => {
    const cookie = await cookieFor();
    const wsUrl = `${s.url.replace(/^http/, 'ws')}${base(SESSION)}api/kernels/k1/channels?session_id=s1`;
    const opened = await openSocket(wsUrl, { cookie: `${cookie}; runyard-x=1; _xsrf=q`, origin: s.url, apikey: 'ry_x' });
    assert.ok('ws' in opened, JSON.stringify(opened));
    const first = JSON.parse(opened.first) as { headers: http.IncomingHttpHeaders; url: string };
    assert.equal(first.url, `${base(SESSION)}api/kernels/k1/channels?session_id=s1`);
    assert.equal(first.headers.authorization, `token ${UPSTREAM_TOKEN}`);
    assert.equal(first.headers.cookie, '_xsrf=q');
    assert.equal(first.headers.apikey, undefined);
    const echoed = new Promise<string>((resolve) => opened.ws.once('message', (d) => resolve(String(d))));
    opened.ws.send('hello');
    assert.equal(await echoed, 'echo:hello');
    opened.ws.close();

    for (const [what, headers] of [
      ['no cookie', { origin: s.url }],
      ['another origin', { cookie, origin: 'https://evil.example' }],
    ] as const) {
      const refused = await openSocket(wsUrl, headers);
      assert.deepEqual(refused, { status: 404 }, what);
    }
    const otherUrl = wsUrl.replace(SESSION, OTHER);
    assert.deepEqual(await openSocket(otherUrl, { cookie }), { status: 404 });
    // An upgrade of a path that is no session's: 404 too.
    assert.deepEqual(await openSocket(`${s.url.replace(/^http/, 'ws')}/api/runyard/health`, {}), { status: 404 });
  });

  it('closes an open WebSocket once the person may no longer open the session, and keeps the others', async () => {
    const cookie = await cookieFor();
    const otherCookie = await cookieFor(OTHER);
    const ws = (id: string) => `${s.url.replace(/^http/, 'ws')}${base(id)}api/kernels/k1/channels`;
    const revoked = await openSocket(ws(SESSION), { cookie, origin: s.url });
    const kept = await openSocket(ws(OTHER), { cookie: otherCookie, origin: s.url });
    assert.ok('ws' in revoked && 'ws' in kept);
    const closed = new Promise<void>((resolve) => revoked.ws.once('close', () => resolve()));
    s.sessions.get(SESSION)!.members.delete(MEMBER);
    try {
      // The proxy's own periodic check closes it (the test's timeout is the bound).
      await closed;
      await s.proxy.recheck();
      const echoed = new Promise<string>((resolve) => kept.ws.once('message', (d) => resolve(String(d))));
      kept.ws.send('still here');
      assert.equal(await echoed, 'echo:still here');
      kept.ws.close();
    } finally {
      s.sessions.get(SESSION)!.members.add(MEMBER);
    }
  });

  it('launches from the base path: the launch path goes on to the session, which redirects to its tree', async () => {
    const r = await request(`${s.url}${sessionUiLaunchPath(SESSION, launch())}`);
    assert.equal(r.status, 200);
    assert.match(r.body, new RegExp(`url=${base(SESSION)}"`));
    const through = await request(`${s.url}${base(SESSION)}`, { headers: { cookie: cookieOf(r) } });
    assert.equal((JSON.parse(through.body) as Seen).url, base(SESSION));
  });

  it("answers 502 to a person who may open the session when the session's server does not answer", async () => {
    const r = await request(`${s.url}${base(STOPPED)}tree?token=${encodeURIComponent(launch(STOPPED))}`);
    const cookie = cookieOf(r);
    const through = await request(`${s.url}${base(STOPPED)}tree`, { headers: { cookie } });
    assert.equal(through.status, 502, through.body);
    assert.equal((JSON.parse(through.body) as { statusCode: number }).statusCode, 502);
  });

  it('never logs a token', async () => {
    const token = launch();
    await request(`${s.url}${base(SESSION)}tree?token=${encodeURIComponent(token)}`);
    const joined = s.logs.join('\n');
    assert.ok(joined.includes(`${base(SESSION)}tree`), 'the request was logged');
    assert.ok(!joined.includes(token.split('.')[1]!), 'a token was logged');
    assert.ok(!joined.includes(UPSTREAM_TOKEN), "the session's token was logged");
  });
});
