import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { isoNow, newObjectId } from '@runyard/contract';
import { WebSocket, WebSocketServer } from 'ws';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors/app-error.js';
import { cookieValues } from '../../src/http/cookies.js';
import { registerErrorHandler } from '../../src/http/error-handler.js';
import { sessionOrigins } from '../../src/http/session-origins.js';
import { registerSessionProxy, sessionUiLaunchPath, type SessionProxy, type SessionProxyOptions } from '../../src/http/session-proxy.js';
import { SessionUiTokens } from '../../src/http/session-ui-token.js';
import { createApiKey, revokeApiKey } from '../../src/services/api-keys.js';
import { sessionForUi, sessionUpstream } from '../../src/services/interactive-session-ui.js';
import { deactivateUser } from '../../src/services/users.js';
import { derivedKey, seal } from '../../src/store/secret-box.js';
import { sessionRow } from '../sessions/session-row.js';
import { cookieOf, request, type Answer } from '../sessions-runtime/proxy-app.js';
import { accessWorld, type AccessWorld, type Person } from './access-world.js';

/**
 * Who passes the platform's proxy to a session's web UI, and what passes: the launch token and the
 * cookie it is exchanged for (session-proxy.ts, session-ui-token.ts), the Host and Origin of each
 * request (session-origins.ts), and, on every request and every few seconds for an open WebSocket,
 * whether the person may use the session now (services/interactive-session-ui.ts, against the
 * database, as app.ts wires it). The session's server is a small echo server on a unix socket.
 * Every wait is bounded, so that a proxy that stops answering fails here in seconds.
 */

const UPSTREAM_TOKEN = 'u'.repeat(48);
const SESSIONS_ORIGIN = 'http://sessions.test:8443';
const PUBLIC_ORIGIN = 'https://runyard.example.org';

/** Rejects after `ms`: no request of this file waits longer. */
function bounded<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** What the session's server got, as it answers it. */
interface Echo {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body?: string;
  /** Which of the server's connections the request came on (1, 2, ...). */
  connection?: number;
}

/**
 * The session's server: answers every request with what it got, with a CORS grant and cookies (as
 * Jupyter does; none on a path with `no-cookies`, only one named like the platform's with
 * `only-ours`); `/slow` never answers. WebSockets get what their upgrade request carried, then an
 * echo of each message.
 */
async function sessionServer(socketPath: string) {
  const connections = new WeakMap<object, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    if (req.url?.endsWith('/slow')) return;
    req.on('end', () => {
      const cookies = req.url?.includes('only-ours') ? ['runyard=x; Path=/'] : ['_xsrf=abc; Path=/', 'Runyard-session-ui=forged; Path=/'];
      res.writeHead(200, {
        'content-type': 'application/json',
        'access-control-allow-origin': '*',
        'Access-Control-Allow-Credentials': 'true',
        ...(!req.url?.includes('no-cookies') && { 'set-cookie': cookies }),
        'keep-alive': 'timeout=99',
      });
      const body = Buffer.concat(chunks).toString();
      res.end(
        JSON.stringify({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body,
          connection: connections.get(req.socket),
        } satisfies Echo),
      );
    });
  });
  let count = 0;
  server.on('connection', (socket) => connections.set(socket, ++count));
  const wss = new WebSocketServer({ server });
  wss.on('headers', (headers) => headers.push('Access-Control-Allow-Origin: *', 'Set-Cookie: runyard-x=1'));
  wss.on('connection', (socket, req) => {
    socket.send(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
    socket.on('message', (data) => socket.send(`echo:${String(data)}`));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const close = async () => {
    for (const c of wss.clients) c.terminate();
    wss.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return { close };
}

type Opened = { ws: WebSocket; first: Echo; upgradeHeaders: http.IncomingHttpHeaders } | { status: number; reason: string; body: string };

/** A WebSocket to the proxy: open (with the session's first message), or the HTTP answer that refused it. */
function openSocket(url: string, headers: Record<string, string>): Promise<Opened> {
  return bounded(
    new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      let upgradeHeaders: http.IncomingHttpHeaders = {};
      ws.once('upgrade', (res) => (upgradeHeaders = res.headers));
      ws.once('message', (data) => resolve({ ws, first: JSON.parse(String(data)) as Echo, upgradeHeaders }));
      ws.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', body: Buffer.concat(chunks).toString() });
          ws.terminate();
        });
      });
      ws.once('error', reject);
    }),
  );
}

interface ProxyServer {
  url: string;
  proxy: SessionProxy;
  app: FastifyInstance;
}

async function proxyServer(options: SessionProxyOptions): Promise<ProxyServer> {
  const app = Fastify({ logger: false, forceCloseConnections: true }) as unknown as FastifyInstance;
  registerErrorHandler(app);
  const proxy = registerSessionProxy(app, options);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, proxy, app };
}

describe('session proxy: who passes', { timeout: 30_000 }, () => {
  let w: AccessWorld;
  let tokens: SessionUiTokens;
  let upstream: { close(): Promise<void> };
  let socketPath = '';
  let owner: Person;
  /** Another member of the workspace. */
  let bob: Person;
  let projectId = '';
  /** Calls of resolve, per session id. */
  const asked = new Map<string, number>();
  const BOOM = 'eeeeeeeeeeeeeeeeeeeeeeee';
  let shared: ProxyServer;
  let own: ProxyServer;
  const base = (id: string) => `/api/runyard/interactive-sessions/${id}/ui/`;

  /** A session row of the workspace, ready, owned by `owner`, listening on the echo server, unless `values` say otherwise. */
  async function session(values: Record<string, unknown> = {}): Promise<string> {
    const id = newObjectId();
    await w.db
      .insertInto('interactive_sessions')
      .values(
        sessionRow(
          { workspace_id: w.workspaceId, project_id: projectId, user_id: owner.userId },
          { id, ui_address: socketPath, ui_token_sealed: seal(w.config.secretKeyFile, UPSTREAM_TOKEN), ...values },
        ),
      )
      .execute();
    return id;
  }
  const setSession = (id: string, values: Record<string, unknown>) =>
    w.db.updateTable('interactive_sessions').set(values).where('id', '=', id).execute();

  /** A launch token of `p` for the session, asked for with p's key. */
  const launch = (id: string, p: Person = owner, ttl = 60) => tokens.issue('launch', id, p.userId, ttl, p.keyId);
  const get = (s: ProxyServer, url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<Answer> =>
    bounded(request(`${s.url}${url}`, { method, headers, ...(body !== undefined && { body }) }));
  /** A GET of this path as written (a URL parser would encode `"<>` and drop a fragment): its status and body. */
  const rawGet = (s: ProxyServer, rawPath: string, headers: Record<string, string> = {}) =>
    bounded(
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const { hostname, port } = new URL(s.url);
        http
          .get({ hostname, port, path: rawPath, headers, agent: false }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
          })
          .on('error', reject);
      }),
    );
  /** The cookie of a launch, as a Cookie header value. */
  async function cookieFor(id: string, p: Person = owner, s: ProxyServer = shared, headers: Record<string, string> = {}) {
    const r = await get(s, `${base(id)}?token=${encodeURIComponent(launch(id, p))}`, headers);
    assert.equal(r.status, 200, r.body);
    return cookieOf(r);
  }
  const echoOf = (r: Answer): Echo => {
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as Echo;
  };
  const hidden = (r: Answer, what: string) => {
    assert.equal(r.status, 404, `${what}: ${r.status} ${r.body}`);
    assert.equal((JSON.parse(r.body) as { code: string }).code, 'ROUTE_NOT_FOUND', what);
    assert.equal(r.headers['set-cookie'], undefined, what);
  };

  before(async () => {
    w = await accessWorld({ RUNYARD_SESSIONS_URL: SESSIONS_ORIGIN, RUNYARD_PUBLIC_URL: 'http://platform.test:8443' });
    tokens = SessionUiTokens.fromKeyFile(w.config.secretKeyFile);
    owner = w.roles.member;
    bob = await w.person('bob', 'member');
    projectId = newObjectId();
    await w.db
      .insertInto('projects')
      .values({ id: projectId, workspace_id: w.workspaceId, name: 'p', user_id: owner.userId, created_at: isoNow(), updated_at: isoNow() })
      .execute();
    socketPath = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-ui-')), 'ui.sock');
    upstream = await sessionServer(socketPath);
    const resolve: SessionProxyOptions['resolve'] = (sessionId, userId, keyId) => {
      asked.set(sessionId, (asked.get(sessionId) ?? 0) + 1);
      if (sessionId === BOOM) return Promise.reject(new Error('the database is gone'));
      return sessionUpstream(w.db, w.config, sessionId, userId, keyId);
    };
    // Sessions on the platform's origin, behind a reverse proxy whose public origin is PUBLIC_ORIGIN.
    shared = await proxyServer({ tokens, resolve, allowedOrigins: [PUBLIC_ORIGIN], recheckMs: 100 });
    // Sessions on an origin of their own (as app.ts sets it up), over HTTPS.
    const origins = sessionOrigins(w.config, () => null);
    own = await proxyServer({
      tokens,
      resolve,
      secureCookies: true,
      cookieTtlSeconds: 60,
      upstreamTimeoutMs: 300,
      recheckMs: 3_600_000,
      servesHost: (host) => origins.isSessionsHost(host),
      allowedOrigins: () => [origins.sessionsUrl()!],
    });
  });
  after(async () => {
    await shared?.app.close();
    await own?.app.close();
    await upstream?.close();
    await w?.close();
  });

  describe('who may use a session now (the database)', () => {
    it('a member of its workspace, or above, while it is ready; never a viewer or another tenant', async () => {
      const id = await session();
      for (const p of [owner, bob, w.roles.admin, w.roles.owner])
        assert.deepEqual(await sessionUpstream(w.db, w.config, id, p.userId, p.keyId), { socketPath, token: UPSTREAM_TOKEN });
      for (const p of [w.roles.viewer, w.outsider, w.platformAdmin])
        assert.equal(await sessionUpstream(w.db, w.config, id, p.userId, p.keyId), null);
      assert.equal(await sessionUpstream(w.db, w.config, newObjectId(), owner.userId), null, 'no such session');
      for (const status of ['setup', 'aborting', 'aborted']) {
        await setSession(id, { status });
        assert.equal(await sessionUpstream(w.db, w.config, id, owner.userId), null, status);
      }
      await setSession(id, { status: 'ready', ui_address: null });
      assert.equal(await sessionUpstream(w.db, w.config, id, owner.userId), null, 'no address');
      await setSession(id, { ui_address: socketPath, ui_token_sealed: null });
      assert.equal(await sessionUpstream(w.db, w.config, id, owner.userId), null, 'no token');
      const otherKey = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-key-')), 'secret.key');
      await setSession(id, { ui_token_sealed: seal(otherKey, UPSTREAM_TOKEN) });
      assert.equal(await sessionUpstream(w.db, w.config, id, owner.userId), null, 'a token sealed with another key');
    });

    it("a private session: its owner and the workspace's admins and owners, not another member", async () => {
      const id = await session({ visibility: 'private' });
      for (const p of [owner, w.roles.admin, w.roles.owner]) assert.ok(await sessionUpstream(w.db, w.config, id, p.userId), 'refused');
      assert.equal(await sessionUpstream(w.db, w.config, id, bob.userId), null);
    });

    it('with the key the launch was asked with: not once it is revoked, nor with the key of someone else; not a deactivated user', async () => {
      const id = await session();
      const carol = await w.person('carol', 'member');
      assert.ok(await sessionUpstream(w.db, w.config, id, carol.userId, carol.keyId), 'refused');
      assert.equal(await sessionUpstream(w.db, w.config, id, carol.userId, bob.keyId), null, "another's key");
      assert.equal(await sessionUpstream(w.db, w.config, id, carol.userId, newObjectId()), null, 'an unknown key');
      await revokeApiKey(w.db, carol.keyId);
      assert.equal(await sessionUpstream(w.db, w.config, id, carol.userId, carol.keyId), null, 'a revoked key');
      const dan = await w.person('dan', 'member');
      await deactivateUser(w.db, dan.userId);
      assert.equal(await sessionUpstream(w.db, w.config, id, dan.userId), null, 'a deactivated user');
    });

    it('a launch link: 404 to whoever does not see the session, 409 until it is ready', async () => {
      const id = await session({ visibility: 'private', status: 'setup' });
      const ctx = (p: Person, role: string) => ({
        user: { id: p.userId, username: '', name: '', surname: '', email: '', isAdmin: false },
        workspaceId: w.workspaceId,
        role,
      });
      await assert.rejects(sessionForUi(w.db, ctx(bob, 'member'), id), (e: AppError) => e.code === 'SESSION_NOT_FOUND');
      await assert.rejects(
        sessionForUi(w.db, ctx(owner, 'member'), id),
        (e: AppError) =>
          e.code === 'SESSION_STATE_CONFLICT' && e.message === `Interactive session ${id} is setup: its web UI opens once it is ready.`,
      );
      await setSession(id, { status: 'aborted' });
      await assert.rejects(
        sessionForUi(w.db, ctx(owner, 'member'), id),
        /is aborted: its web UI opens once it is ready \(resume it first\)\.$/,
      );
      await setSession(id, { status: 'ready' });
      assert.deepEqual(await sessionForUi(w.db, ctx(w.roles.admin, 'admin'), id), { id });
    });
  });

  describe('the launch token and the cookie', () => {
    it('takes a launch token once, for a cookie of that session, person and key, scoped to the session', async () => {
      const id = await session();
      const token = launch(id);
      const r = await get(shared, `${base(id)}tree?a=1&b=x%20y&token=${encodeURIComponent(token)}&flag`);
      assert.equal(r.status, 200, r.body);
      const set = r.headers['set-cookie'] ?? [];
      assert.equal(set.length, 1);
      const [pair, ...attributes] = set[0]!.split('; ');
      assert.deepEqual(attributes, [`Path=${base(id)}`, 'Max-Age=43200', 'HttpOnly', 'SameSite=Strict']);
      const claims = tokens.verify(pair!.slice('runyard-session-ui='.length), 'cookie', id);
      assert.ok(claims, 'the cookie is no cookie token of the session');
      assert.equal(claims.userId, owner.userId);
      assert.equal(claims.keyId, owner.keyId);
      assert.ok(Math.abs(claims.expiresAt - (Date.now() + 43_200_000)) < 60_000, 'the cookie lasts 12 hours');
      assert.equal(r.headers['cache-control'], 'no-store');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.equal(r.headers['content-security-policy'], "default-src 'none'");
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
      const next = `${base(id)}tree?a=1&amp;b=x%20y&amp;flag`;
      assert.match(r.body, /^<!doctype html>/);
      assert.ok(r.body.includes(`<meta http-equiv="refresh" content="0; url=${next}">`), r.body);
      assert.ok(r.body.includes(`<a href="${next}">Continue</a>`), r.body);
      assert.ok(!r.body.includes(token.split('.')[1]!), 'the page repeats the token');
      // Spent: the same token again is nothing, even after another launch.
      await cookieFor(id);
      hidden(await get(shared, `${base(id)}tree?token=${encodeURIComponent(token)}`), 'a spent launch token');
      // With the cookie, the launch URL goes through without its token.
      const through = echoOf(await get(shared, `${base(id)}tree?token=${encodeURIComponent(token)}&a=1`, { cookie: pair! }));
      assert.equal(through.url, `${base(id)}tree?a=1`);
    });

    it('exchanges a launch token on GET and HEAD only, for someone who may use the session now', async () => {
      const id = await session();
      const head = await get(shared, `${base(id)}?token=${encodeURIComponent(launch(id))}`, {}, 'HEAD');
      assert.equal(head.status, 200);
      assert.match(String(head.headers['set-cookie']), /^runyard-session-ui=/);
      hidden(await get(shared, `${base(id)}?token=${encodeURIComponent(launch(id))}`, {}, 'POST'), 'a POST');
      for (const p of [w.roles.viewer, w.outsider, w.platformAdmin])
        hidden(await get(shared, `${base(id)}?token=${encodeURIComponent(launch(id, p))}`), 'no member');
      await setSession(id, { status: 'aborted' });
      hidden(await get(shared, `${base(id)}?token=${encodeURIComponent(launch(id))}`), 'a session that is not ready');
    });

    it('takes the first launch token of the query, drops every one, and shows the rest of the URL escaped', async () => {
      const id = await session();
      const r = await rawGet(shared, `${base(id)}tree?token=${encodeURIComponent(launch(id))}&token=junk&q="<b>"&token`);
      assert.equal(r.status, 200, r.body);
      // Nothing of the query becomes markup of the launch page.
      assert.ok(r.body.includes(`content="0; url=${base(id)}tree?q=&quot;&lt;b&gt;&quot;">`), r.body);
      const cookie = `runyard-session-ui=${tokens.issue('cookie', id, owner.userId, 60, owner.keyId)}`;
      assert.equal(echoOf(await get(shared, `${base(id)}tree?token&a=1`, { cookie })).url, `${base(id)}tree?a=1`);
    });

    it('serves only what is a session UI URL whole: not with a fragment, not under another prefix', async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      assert.equal((await rawGet(shared, `${base(id)}tree#x`, { cookie })).status, 404);
      const r = await openSocket(`${shared.url.replace(/^http/, 'ws')}/x${base(id)}api/kernels/k/channels`, { cookie });
      assert.ok('status' in r && r.status === 404, JSON.stringify(r));
    });

    it('refuses tokens and cookies of another kind, session, key or time, and what is not one at all', async () => {
      const id = await session();
      const other = await session();
      const past = SessionUiTokens.fromKeyFile(w.config.secretKeyFile, () => Date.now() - 3_600_000);
      const foreign = new SessionUiTokens(Buffer.alloc(32, 7));
      const cases: [string, string, Record<string, string>][] = [
        ['nothing', '', {}],
        ["another session's launch token", launch(other), {}],
        ['an expired launch token', past.issue('launch', id, owner.userId, 60), {}],
        ['a launch token of another key', foreign.issue('launch', id, owner.userId, 60), {}],
        ['a cookie token as a launch token', tokens.issue('cookie', id, owner.userId, 60), {}],
        ['a token that is not one', 'abc', {}],
        ['a token that is bad percent-encoding', '%E0%A4%A', {}],
        ["another session's cookie", '', { cookie: await cookieFor(other) }],
        ['a launch token as the cookie', '', { cookie: `runyard-session-ui=${launch(id)}` }],
        ['an expired cookie', '', { cookie: `runyard-session-ui=${past.issue('cookie', id, owner.userId, 60)}` }],
        ['a cookie under another name', '', { cookie: `xrunyard-session-ui=${tokens.issue('cookie', id, owner.userId, 60)}` }],
        ['an API key', '', { apikey: owner.apikey }],
      ];
      for (const [what, token, headers] of cases)
        hidden(
          await get(
            shared,
            `${base(id)}tree${token ? `?token=${token.startsWith('%') ? token : encodeURIComponent(token)}` : ''}`,
            headers,
          ),
          what,
        );
      // An unknown session, with a token for it.
      const ghost = newObjectId();
      hidden(await get(shared, `${base(ghost)}?token=${encodeURIComponent(launch(ghost))}`), 'an unknown session');
    });

    it('takes the first cookie of the session among several, and refuses it once its key is revoked', async () => {
      const id = await session();
      const erin = await w.person('erin', 'member');
      const cookie = await cookieFor(id, erin);
      const value = cookie.slice('runyard-session-ui='.length);
      const stale = `runyard-session-ui=${tokens.issue('cookie', newObjectId(), erin.userId, 60)}`;
      // A browser sends the cookies of every path that matches; the first valid one counts.
      const echo = echoOf(await get(shared, `${base(id)}api`, { cookie: `a=1; ${stale};  runyard-session-ui = ${value} ; b` }));
      assert.equal(echo.headers.cookie, 'a=1; b');
      assert.deepEqual(cookieValues(`x=1;runyard-session-ui=a=b; runyard-session-ui=c;novalue`, 'runyard-session-ui'), ['a=b', 'c']);
      assert.deepEqual(cookieValues(undefined, 'x'), []);
      assert.deepEqual(cookieValues('runyard-session-uiX', 'runyard-session-ui'), []);
      await revokeApiKey(w.db, erin.keyId);
      hidden(await get(shared, `${base(id)}api`, { cookie }), 'the cookie of a revoked key');
      // Someone who may not use the session: the first cookie of the session decides.
      const bobs = await cookieFor(id, bob);
      await setSession(id, { visibility: 'private' });
      hidden(await get(shared, `${base(id)}api`, { cookie: `${bobs}; ${await cookieFor(id)}` }), "another member's private session");
    });
  });

  describe('what passes', () => {
    it("sends the session's server neither the platform's credentials nor its cookies, and adds the session's token", async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      const echo = echoOf(
        await get(shared, `${base(id)}api/contents?b=2`, {
          cookie: `${cookie}; _xsrf=x1; runyard_session=dash; RUNYARD-other=1; jupyter-runyard=2`,
          apikey: owner.apikey,
          authorization: 'Bearer platform',
          'proxy-authorization': 'Basic x',
          forwarded: 'for=1.2.3.4',
          'x-forwarded-for': '1.2.3.4',
          'x-forwarded-host': 'evil',
          'x-forwarded-proto': 'https',
          'x-real-ip': '1.2.3.4',
          'x-kept': 'yes',
        }),
      );
      assert.equal(echo.url, `${base(id)}api/contents?b=2`);
      assert.equal(echo.headers.authorization, `token ${UPSTREAM_TOKEN}`);
      assert.equal(echo.headers.cookie, '_xsrf=x1; jupyter-runyard=2');
      assert.equal(echo.headers.host, new URL(shared.url).host);
      // Nothing else of the request: no credential, and no claim about the client (Forwarded, X-Forwarded-*, X-Real-IP).
      assert.deepEqual(Object.keys(echo.headers).sort(), ['authorization', 'connection', 'cookie', 'host', 'x-kept']);
      assert.equal(echo.headers['x-kept'], 'yes');
      assert.equal(echo.headers.connection, 'keep-alive');
      // Only the platform's cookies: no Cookie header at all.
      assert.equal(echoOf(await get(shared, `${base(id)}api`, { cookie })).headers.cookie, undefined);
    });

    it('gives the browser no CORS grant and no cookie named like the platform’s, and its own connection', async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      const r = await get(shared, `${base(id)}api`, { cookie, connection: 'close' });
      assert.equal(r.status, 200);
      assert.equal(r.headers['access-control-allow-origin'], undefined);
      assert.equal(r.headers['access-control-allow-credentials'], undefined);
      assert.deepEqual(r.headers['set-cookie'], ['_xsrf=abc; Path=/']);
      assert.equal(r.headers.connection, 'close');
      assert.equal(r.headers['keep-alive'], undefined);
      assert.equal(r.headers['strict-transport-security'], undefined);
      const ours = await get(shared, `${base(id)}only-ours`, { cookie });
      assert.equal(ours.headers['set-cookie'], undefined);
    });

    it("passes a body as sent, on a kept-alive connection to the session's server whatever the browser asks", async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      const seen: Echo[] = [];
      for (const connection of ['close', 'keep-alive']) {
        const body = JSON.stringify({ name: 'python3', connection });
        const r = await get(
          shared,
          `${base(id)}api/kernels/no-cookies`,
          { cookie, connection, 'content-type': 'application/json' },
          'POST',
          body,
        );
        const echo = echoOf(r);
        assert.equal(echo.body, body);
        assert.equal(echo.headers.connection, 'keep-alive');
        // An answer without cookies goes as it is.
        assert.equal(r.headers['set-cookie'], undefined);
        seen.push(echo);
      }
      assert.equal(seen[0]!.connection, seen[1]!.connection, 'the second request came on a new connection');
    });

    it('forwards the path without a slash, and keeps what the launch token is not', async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      assert.equal(
        echoOf(await get(shared, `/api/runyard/interactive-sessions/${id}/ui`, { cookie })).url,
        `/api/runyard/interactive-sessions/${id}/ui`,
      );
      const twice = echoOf(await get(shared, `${base(id)}x?token=a&tokens=1&token=b&&c=`, { cookie }));
      assert.equal(twice.url, `${base(id)}x?tokens=1&c=`);
      assert.equal(sessionUiLaunchPath(id, 'a+b/c'), `${base(id)}?token=a%2Bb%2Fc`);
    });

    it('answers 404 for an id that is not a session id, or a path beside the UI', async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      for (const url of [
        `/api/runyard/interactive-sessions/${id.toUpperCase()}/ui/`,
        `/api/runyard/interactive-sessions/${id}/uix`,
        `/api/runyard/interactive-sessions/x${id}/ui/`,
      ])
        assert.equal((await get(shared, url, { cookie })).status, 404, url);
    });
  });

  describe('where it is served from', () => {
    it('refuses a request from another origin, and takes the same host or an allowed origin', async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      const host = new URL(shared.url).host;
      for (const origin of ['https://evil.example', 'null', `http://${host}.evil.example`, 'http://sessions.test:8443'])
        hidden(await get(shared, `${base(id)}api`, { cookie, origin }), origin);
      for (const origin of [shared.url, PUBLIC_ORIGIN]) echoOf(await get(shared, `${base(id)}api`, { cookie, origin }));
    });

    it('on an origin of their own, serves sessions there only, to pages of that origin, with Secure cookies and HSTS', async () => {
      const id = await session();
      const sessionsHost = { host: 'SESSIONS.test:8443' };
      hidden(await get(own, `${base(id)}?token=${encodeURIComponent(launch(id))}`, { host: 'platform.test:8443' }), 'the platform host');
      const r = await get(own, `${base(id)}?token=${encodeURIComponent(launch(id))}`, sessionsHost);
      assert.equal(r.status, 200, r.body);
      const [pair, ...attributes] = (r.headers['set-cookie'] ?? [])[0]!.split('; ');
      assert.deepEqual(attributes, [`Path=${base(id)}`, 'Max-Age=60', 'HttpOnly', 'SameSite=Strict', 'Secure']);
      const claims = tokens.verify(pair!.slice('runyard-session-ui='.length), 'cookie', id);
      assert.ok(claims && claims.expiresAt <= Date.now() + 60_000, 'the cookie outlives its Max-Age');
      const cookie = pair!;
      // The Host differs in case from the sessions' origin: only the allowed origins let it through.
      const through = await get(own, `${base(id)}api`, { ...sessionsHost, cookie, origin: SESSIONS_ORIGIN });
      assert.equal(echoOf(through).headers.authorization, `token ${UPSTREAM_TOKEN}`);
      assert.equal(through.headers['strict-transport-security'], 'max-age=31536000');
      for (const host of ['platform.test:8443', 'sessions.test:8444', 'sessions.test', 'sessions.test:8443/x', 'user@sessions.test:8443'])
        hidden(await get(own, `${base(id)}api`, { host, cookie }), host);
      hidden(await get(own, `${base(id)}api`, { ...sessionsHost, cookie, origin: PUBLIC_ORIGIN }), 'the public origin');
    });

    it("knows the sessions' origin from the configuration, and their host in any case, on the default port", () => {
      const config = (env: NodeJS.ProcessEnv) =>
        loadConfig({ RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-o-')), ...env });
      const named = sessionOrigins(
        config({
          RUNYARD_SESSIONS_URL: 'https://Sessions.Example.org',
          RUNYARD_PUBLIC_URL: 'https://runyard.example.org/',
          RUNYARD_PORT: '0',
        }),
        () => null,
      );
      assert.equal(named.own, true);
      assert.equal(named.sessionsUrl(), 'https://sessions.example.org');
      assert.equal(named.platformUrl(), 'https://runyard.example.org');
      for (const host of ['sessions.example.org', 'SESSIONS.example.org:443', ['sessions.example.org', 'x']])
        assert.equal(named.isSessionsHost(host), true, String(host));
      for (const host of [
        undefined,
        '',
        'sessions.example.org:80',
        'runyard.example.org',
        'sessions.example.org:99999',
        'a b',
        'x\\y',
        'x#y',
        'x?y',
      ])
        assert.equal(named.isSessionsHost(host), false, String(host));
      // A sessions URL is known before the server listens, with or without a public URL.
      assert.equal(
        sessionOrigins(config({ RUNYARD_SESSIONS_URL: 'http://sessions.test:81', RUNYARD_PORT: '0' }), () => null).sessionsUrl(),
        'http://sessions.test:81',
      );
      // The default: the other loopback name, on the port the server listens on, once it listens.
      let address: { port: number } | null = null;
      const swapped = sessionOrigins(config({ RUNYARD_PORT: '0' }), () => address as never);
      assert.equal(swapped.own, true);
      assert.equal(swapped.sessionsUrl(), null);
      assert.equal(swapped.platformUrl(), null);
      assert.equal(swapped.isSessionsHost('localhost:0'), false);
      address = { port: 4321 };
      assert.equal(swapped.platformUrl(), 'http://127.0.0.1:4321');
      assert.equal(swapped.sessionsUrl(), 'http://localhost:4321');
      assert.equal(swapped.isSessionsHost('localhost:4321'), true);
      assert.equal(swapped.isSessionsHost('127.0.0.1:4321'), false);
      const configured = sessionOrigins(config({ RUNYARD_PORT: '8080' }), () => 'a pipe');
      assert.equal(configured.sessionsUrl(), 'http://localhost:8080');
      // Shared: on every interface, sessions have no origin of their own.
      const sharedOrigin = sessionOrigins(config({ RUNYARD_HOST: '0.0.0.0', RUNYARD_PORT: '8080' }), () => ({ port: 8080 }) as never);
      assert.equal(sharedOrigin.own, false);
      assert.equal(sharedOrigin.sessionsUrl(), null);
      assert.equal(sharedOrigin.platformUrl(), 'http://127.0.0.1:8080');
      assert.equal(sharedOrigin.isSessionsHost('127.0.0.1:8080'), false);
    });
  });

  describe('when the session fails or the check fails', () => {
    it("answers 502 when the session's server does not answer, in time or at all", async () => {
      const gone = await session({ ui_address: path.join(path.dirname(socketPath), 'gone.sock') });
      const r = await get(shared, `${base(gone)}api`, { cookie: await cookieFor(gone) });
      assert.equal(r.status, 502, r.body);
      assert.deepEqual(
        { ...JSON.parse(r.body), time: undefined },
        {
          statusCode: 502,
          code: 'SESSION_STATE_CONFLICT',
          message: "The interactive session's server is not answering (it may be starting or stopping).",
          time: undefined,
        },
      );
      assert.equal(r.headers['content-type'], 'application/json; charset=utf-8');
      const id = await session();
      const cookie = await cookieFor(id, owner, own, { host: 'sessions.test:8443' });
      const slow = await get(own, `${base(id)}slow`, { host: 'sessions.test:8443', cookie });
      assert.equal(slow.status, 502, slow.body);
    });

    it('answers 500 when the check itself fails', async () => {
      const r = await get(shared, `${base(BOOM)}api`, { cookie: `runyard-session-ui=${tokens.issue('cookie', BOOM, owner.userId, 60)}` });
      assert.equal(r.status, 500, r.body);
      const ws = await openSocket(`${shared.url.replace(/^http/, 'ws')}${base(BOOM)}api/kernels/k/channels`, {
        cookie: `runyard-session-ui=${tokens.issue('cookie', BOOM, owner.userId, 60)}`,
      });
      assert.ok('status' in ws && ws.status === 500, JSON.stringify(ws));
      assert.equal(ws.reason, 'Internal Server Error');
      assert.deepEqual([JSON.parse(ws.body).code, JSON.parse(ws.body).message], ['INTERNAL_ERROR', 'Internal server error.']);
    });
  });

  describe('WebSockets', () => {
    const wsUrl = (s: ProxyServer, id: string) => `${s.url.replace(/^http/, 'ws')}${base(id)}api/kernels/k1/channels?session_id=s1`;

    it("passes with the cookie, as requests do: the session's token added, the platform's credentials and cookies kept away", async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      const opened = await openSocket(wsUrl(shared, id), {
        cookie: `${cookie}; runyard-x=1; _xsrf=q`,
        origin: shared.url,
        apikey: owner.apikey,
      });
      assert.ok('ws' in opened, JSON.stringify(opened));
      assert.equal(opened.first.url, `${base(id)}api/kernels/k1/channels?session_id=s1`);
      assert.equal(opened.first.headers.authorization, `token ${UPSTREAM_TOKEN}`);
      assert.equal(opened.first.headers.cookie, '_xsrf=q');
      assert.equal(opened.first.headers.apikey, undefined);
      assert.equal(opened.upgradeHeaders['access-control-allow-origin'], undefined);
      assert.equal(opened.upgradeHeaders['set-cookie'], undefined);
      const echoed = bounded(new Promise<string>((resolve) => opened.ws.once('message', (d) => resolve(String(d)))));
      opened.ws.send('hello');
      assert.equal(await echoed, 'echo:hello');
      opened.ws.close();
    });

    it('refuses an upgrade without the cookie, from another origin, for another session or host, or of another path: 404', async () => {
      const id = await session();
      const cookie = await cookieFor(id);
      const refusals: [string, string, Record<string, string>][] = [
        ['no cookie', wsUrl(shared, id), { origin: shared.url }],
        ['another origin', wsUrl(shared, id), { cookie, origin: 'https://evil.example' }],
        ['another session', wsUrl(shared, await session()), { cookie }],
        ['another path', `${shared.url.replace(/^http/, 'ws')}/api/runyard/health`, { cookie }],
        [
          'the platform host',
          wsUrl(own, id),
          { cookie: await cookieFor(id, owner, own, { host: 'sessions.test:8443' }), host: 'platform.test:8443' },
        ],
      ];
      for (const [what, url, headers] of refusals) {
        const r = await openSocket(url, headers);
        assert.ok('status' in r && r.status === 404, `${what}: ${JSON.stringify(r)}`);
        assert.equal(r.reason, 'Not Found', what);
        assert.equal(JSON.parse(r.body).code, 'ROUTE_NOT_FOUND', what);
        if (what === 'another path') assert.match(JSON.parse(r.body).message, /\/api\/runyard\/health/);
      }
    });

    it("answers 502 when the session's server does not take the WebSocket", async () => {
      const gone = await session({ ui_address: path.join(path.dirname(socketPath), 'gone.sock') });
      const r = await openSocket(wsUrl(shared, gone), { cookie: await cookieFor(gone) });
      assert.ok('status' in r && r.status === 502, JSON.stringify(r));
      assert.equal(r.reason, 'Bad Gateway');
      assert.equal(JSON.parse(r.body).code, 'SESSION_STATE_CONFLICT');
    });

    it('checks each key of a person on its own, and forgets the sockets that closed', async () => {
      const id = await session();
      const sessionsHost = { host: 'sessions.test:8443' };
      const second = await createApiKey(w.db, owner.userId, 'second');
      const viaSecond: Person = { ...owner, apikey: second.apikey, keyId: second.id };
      const open = async (p: Person) => {
        const o = await openSocket(wsUrl(own, id), { ...sessionsHost, cookie: await cookieFor(id, p, own, sessionsHost) });
        assert.ok('ws' in o, JSON.stringify(o));
        return o.ws;
      };
      const first = await open(owner);
      const other = await open(viaSecond);
      const firstEnds = bounded(new Promise<void>((resolve) => first.once('close', () => resolve())));
      await revokeApiKey(w.db, second.id);
      await own.proxy.recheck();
      const otherEnds = bounded(new Promise<void>((resolve) => other.once('close', () => resolve())));
      await otherEnds;
      assert.equal(first.readyState, WebSocket.OPEN, 'closed with the key of another socket');
      // Closed: no longer asked about.
      first.terminate();
      await firstEnds;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = asked.get(id) ?? 0;
      await own.proxy.recheck();
      assert.equal(asked.get(id) ?? 0, before, 'a closed socket was checked again');
    });

    it('closes an open WebSocket once its person may no longer use the session, or the session moved; keeps the others', async () => {
      const id = await session();
      const moved = await session();
      const kept = await session();
      const open = async (sid: string, p: Person = owner) => {
        const o = await openSocket(wsUrl(shared, sid), { cookie: await cookieFor(sid, p) });
        assert.ok('ws' in o, JSON.stringify(o));
        return o.ws;
      };
      // Within 2 s: the proxy checks every 100 ms here.
      const closed = (ws: WebSocket) => bounded(new Promise<void>((resolve) => ws.once('close', () => resolve())), 2000);
      const twice = [await open(id), await open(id)];
      const other = await open(moved);
      const stays = await open(kept);
      // On the proxy that checks only when asked: once per person and session.
      const counted = await session();
      const sessionsHost = { host: 'sessions.test:8443' };
      for (let i = 0; i < 2; i++) {
        const o = await openSocket(wsUrl(own, counted), { ...sessionsHost, cookie: await cookieFor(counted, owner, own, sessionsHost) });
        assert.ok('ws' in o, JSON.stringify(o));
      }
      const before = asked.get(counted) ?? 0;
      await own.proxy.recheck();
      assert.equal((asked.get(counted) ?? 0) - before, 1, 'asked once for two sockets of one person and session');
      const ends = Promise.all([...twice, other].map(closed));
      await setSession(id, { status: 'aborting' });
      await setSession(moved, { ui_address: path.join(path.dirname(socketPath), 'new.sock') });
      // The proxy's own periodic check (every 100 ms here).
      await ends;
      assert.equal(stays.readyState, WebSocket.OPEN);
      const echoed = bounded(new Promise<string>((resolve) => stays.once('message', (d) => resolve(String(d)))));
      stays.send('still here');
      assert.equal(await echoed, 'echo:still here');
      // A revoked key, on the next check.
      const fay = await w.person('fay', 'member');
      const fays = await open(kept, fay);
      const fayEnds = closed(fays);
      await revokeApiKey(w.db, fay.keyId);
      await fayEnds;
      assert.equal(stays.readyState, WebSocket.OPEN);
      // Closing the proxy ends the rest.
      const own2 = await proxyServer({ tokens, resolve: (s, u, k) => sessionUpstream(w.db, w.config, s, u, k) });
      const last = await openSocket(wsUrl(own2, kept), { cookie: await cookieFor(kept, owner, own2) });
      assert.ok('ws' in last, JSON.stringify(last));
      const ended = closed(last.ws);
      own2.proxy.close();
      await ended;
      await own2.app.close();
      stays.close();
    });
  });
});

describe('session UI tokens: what they hold, and what verify refuses', () => {
  const key = Buffer.alloc(32, 9);
  const tokens = new SessionUiTokens(key, () => 1_000_000);
  const S = 'a'.repeat(24);
  const U = '1'.repeat(24);
  const K = '2'.repeat(24);
  /** A token of this claims text, signed with the key as the format says: `<base64url text>.<base64url HMAC-SHA256 of it>`. */
  const signed = (text: string) => {
    const t = Buffer.from(text).toString('base64url');
    return `${t}.${createHmac('sha256', key).update(t).digest('base64url')}`;
  };
  const good = { kind: 'cookie', sessionId: S, userId: U, keyId: K, expiresAt: 2_000_000, nonce: 'n' };
  const claims = (changes: Record<string, unknown>) => JSON.stringify({ ...good, ...changes });

  it('takes claims of the right shape, signed with its key, and refuses any other shape even when signed', () => {
    assert.deepEqual(tokens.verify(signed(JSON.stringify(good)), 'cookie', S), good);
    const keyless: Partial<typeof good> = { ...good };
    delete keyless.keyId;
    assert.deepEqual(tokens.verify(signed(JSON.stringify(keyless)), 'cookie', S), keyless);
    const refused: [string, string][] = [
      ['null', 'null'],
      ['a number', '5'],
      ['not JSON', '{'],
      ['a user id that is not an id', claims({ userId: 'u' })],
      ['a user id in a list', claims({ userId: [U] })],
      ['a key id that is not an id', claims({ keyId: 'k' })],
      ['a key id in a list', claims({ keyId: [K] })],
      ['an expiry as text', claims({ expiresAt: '2000000' })],
      ['an infinite expiry', claims({}).replace('2000000', '1e999')],
      ['a nonce that is not text', claims({ nonce: 5 })],
      ['another kind', claims({ kind: 'launch' })],
      ['another session', claims({ sessionId: 'b'.repeat(24) })],
      ['an expired one', claims({ expiresAt: 1_000_000 })],
    ];
    for (const [what, text] of refused) assert.equal(tokens.verify(signed(text), 'cookie', S), null, what);
    for (const notText of [undefined, 5, null]) assert.equal(tokens.verify(notText as never, 'cookie', S), null, String(notText));
  });

  it('reads a token of up to 1024 characters, and refuses a longer one unread', () => {
    // Claims whose base64url text is 980 characters make a token of 1024 (with the dot and 43 of HMAC); 982, 1026.
    const ofLength = (length: number) => {
      for (let n = 0; n < 1000; n++) {
        const token = signed(claims({ nonce: 'x'.repeat(n) }));
        if (token.length === length) return token;
      }
      throw new Error(`no token of ${length} characters`);
    };
    assert.ok(tokens.verify(ofLength(1024), 'cookie', S), 'a token of 1024 characters was refused');
    assert.equal(tokens.verify(ofLength(1026), 'cookie', S), null);
  });

  it('issues tokens for ids only, with a positive lifetime, under a key of 32 bytes or more', () => {
    assert.throws(() => new SessionUiTokens(Buffer.alloc(31)), /^Error: The key of session UI tokens must have at least 32 bytes\.$/);
    const ids = /^Error: A session UI token names a session id, a user id and maybe a key id \(24 hex characters\)\.$/;
    for (const bad of [`g${S}`, `${S}g`, S.slice(1), S.toUpperCase()]) {
      assert.throws(() => tokens.issue('launch', bad, U, 60), ids, bad);
      assert.throws(() => tokens.issue('launch', S, bad, 60), ids, bad);
      assert.throws(() => tokens.issue('launch', S, U, 60, bad), ids, bad);
    }
    for (const ttl of [0, -1, Number.NaN])
      assert.throws(() => tokens.issue('launch', S, U, ttl), /^Error: A session UI token needs a positive lifetime\.$/, String(ttl));
    const issued = tokens.verify(tokens.issue('launch', S, U, 0.5, K), 'launch', S);
    assert.deepEqual(
      { ...issued, nonce: undefined },
      { kind: 'launch', sessionId: S, userId: U, keyId: K, expiresAt: 1_000_500, nonce: undefined },
    );
    assert.ok(!('keyId' in tokens.verify(tokens.issue('launch', S, U, 60), 'launch', S)!), 'a key id where none was given');
  });

  it("signs with a key of its own purpose, derived from the server's key file, which every process and version derives alike", () => {
    const keyFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-key-')), 'secret.key');
    const token = SessionUiTokens.fromKeyFile(keyFile).issue('cookie', S, U, 60);
    assert.ok(new SessionUiTokens(derivedKey(keyFile, 'session-ui-token')).verify(token, 'cookie', S), 'not the session-ui-token key');
  });
});
