import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { hasRole, isoNow, ROLE_ORDER, ROUTES, WEB_SESSION_COOKIE, type Role, type RouteId, type RouteSpec } from '@runyard/contract';
import { AppError } from '../../src/errors/app-error.js';
import { frameworkErrorHandler, registerErrorHandler } from '../../src/http/error-handler.js';
import type { AppDeps, Handler, Handlers, RouteRequest } from '../../src/http/handler.js';
import { registerJsonBodyParser } from '../../src/http/json-body.js';
import { ReadCaches } from '../../src/http/read-caches.js';
import { registerRoutes } from '../../src/http/register-routes.js';
import { neededRole } from '../../src/http/route-access.js';
import type { SessionOrigins } from '../../src/http/session-origins.js';
import { SessionReply } from '../../src/http/web-auth.js';
import { revokeApiKey } from '../../src/services/api-keys.js';
import type { Context } from '../../src/services/context.js';
import { rotateEngineToken } from '../../src/services/engine-servers.js';
import { EventStream } from '../../src/services/event-stream.js';
import { RawReply } from '../../src/services/raw-reply.js';
import { requireJobOwnerOrAdmin, requireRole } from '../../src/services/roles.js';
import { deactivateUser } from '../../src/services/users.js';
import { setMembership } from '../../src/services/workspaces.js';
import { createWebSession } from '../../src/services/web-sessions.js';
import { assertError } from '../wire.js';
import { accessWorld, type AccessWorld, type Person } from './access-world.js';

/**
 * The checks every route of the table runs before its handler (register-routes.ts): who the caller
 * is (API key, the dashboard's cookie, a workspace's engine token), whether they are a platform
 * administrator, a member of the workspace the request names, and of a role the route's roles
 * entry allows. The routes are the contract's, with their real schemas; the handlers are stubs that
 * answer what they were given, so that what is tested is who reaches a handler, and as whom.
 */

const SESSIONS_HOST = 'sessions.test';
const ID = '0123456789abcdef01234567';

/** What a stub handler was given. */
interface Seen {
  route: RouteId;
  user: string | null;
  ctx: Context | null;
  body: unknown;
  params: unknown;
  query: unknown;
}

interface RoutesApp {
  app: FastifyInstance;
  /** Every handler call, in order. */
  seen: Seen[];
  /** The sessions' host's platform URL (null: not known yet). */
  origins: { platformUrl: string | null };
  close(): Promise<void>;
}

/** A handler that answers, as JSON with status 200, what it was given. */
const stub =
  (id: RouteId, seen: Seen[]): Handler =>
  async (req: RouteRequest) => {
    // As the handler's type says: a user or null, a context or null, never left out.
    if (req.user === undefined || req.ctx === undefined) throw new Error(`${id} got no user or no context`);
    const s: Seen = { route: id, user: req.user?.id ?? null, ctx: req.ctx, body: req.body ?? null, params: req.params, query: req.query };
    seen.push(s);
    return new RawReply(200, { 'content-type': 'application/json' }, Readable.from([JSON.stringify(s)]));
  };

/** A Fastify app set up as buildApp sets it up for routes, every route of the contract with a stub (or `own`) handler. */
async function routesApp(w: AccessWorld, options: { readCaches?: ReadCaches; own?: Handlers } = {}): Promise<RoutesApp> {
  const app = Fastify({
    logger: false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    frameworkErrors: frameworkErrorHandler,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true } },
  }) as unknown as FastifyInstance;
  registerJsonBodyParser(app);
  registerErrorHandler(app);
  const seen: Seen[] = [];
  const origins = { platformUrl: 'http://platform.test' as string | null };
  const sessionOrigins: SessionOrigins = {
    own: true,
    sessionsUrl: () => `http://${SESSIONS_HOST}`,
    platformUrl: () => origins.platformUrl,
    isSessionsHost: (host) => host === SESSIONS_HOST,
  };
  const handlers: Handlers = {};
  for (const id of Object.keys(ROUTES) as RouteId[]) handlers[id] = options.own?.[id] ?? stub(id, seen);
  const deps = {
    store: w.store,
    db: w.db,
    config: w.config,
    version: 'test',
    sessionOrigins,
    ...(options.readCaches && { readCaches: options.readCaches }),
  } as AppDeps;
  registerRoutes(app, deps, handlers);
  await app.ready();
  return { app, seen, origins, close: () => app.close() };
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A request with these headers (no apikey unless given). */
function send(r: RoutesApp, method: Method, url: string, headers: Record<string, string> = {}, body?: unknown) {
  return r.app.inject({
    method,
    url,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  });
}

/** The path of a route with every parameter an object id. */
const pathOf = (id: RouteId) => ROUTES[id].path.replace(/:[A-Za-z]+/g, ID);

/** One route of each least role a route of the table needs (none needs owner), called with a valid request. */
const BY_ROLE: Record<Exclude<Role, 'owner'>, { route: RouteId; method: Method; url: (ws: string) => string; body?: unknown }> = {
  viewer: { route: 'workflowList', method: 'GET', url: (ws) => `/api/v3/workflows?teamId=${ws}` },
  member: { route: 'projectCreate', method: 'POST', url: (ws) => `/api/v1/projects?teamId=${ws}`, body: { name: 'p' } },
  admin: { route: 'engineTokenShow', method: 'GET', url: (ws) => `/api/runyard/engine-token?teamId=${ws}` },
};

let w: AccessWorld;
before(async () => {
  w = await accessWorld();
});
after(() => w?.close());

describe('route access: who reaches a route handler', { timeout: 20_000 }, () => {
  let r: RoutesApp;
  const key = (p: Person) => ({ apikey: p.apikey });

  before(async () => {
    r = await routesApp(w);
  });
  after(() => r?.close());

  it('answers every route that takes a key 401 without one, and reaches every open route without one', async () => {
    for (const [id, spec] of Object.entries(ROUTES) as [RouteId, (typeof ROUTES)[RouteId]][]) {
      const before = r.seen.length;
      const answer = await send(r, spec.method, pathOf(id), {}, spec.method === 'GET' ? undefined : {});
      if (spec.auth === 'apikey') {
        const message = assertError(answer, 401, 'UNAUTHENTICATED');
        assert.match(message, /Missing API key/, id);
        assert.equal(r.seen.length, before, `${id} reached its handler`);
      } else if (id !== 'authLogin') {
        // authLogin's body needs the key: refused by its schema, after the (absent) access check.
        assert.equal(answer.statusCode, 200, `${id}: ${answer.body}`);
        assert.equal(r.seen.at(-1)?.route, id);
        assert.equal(r.seen.at(-1)?.user, null, id);
      }
    }
  });

  it('refuses every administration route to a key that is not an administrator, before its body is read', async () => {
    const admins = (Object.keys(ROUTES) as RouteId[]).filter((id) => (ROUTES[id] as RouteSpec).admin);
    assert.ok(admins.length > 10, 'the administration routes');
    for (const id of admins) {
      const spec = ROUTES[id];
      // An owner of a workspace is no platform administrator; a body that is not valid is not even looked at.
      const refused = await send(r, spec.method, pathOf(id), key(w.roles.owner), spec.method === 'GET' ? undefined : { bad: 1 });
      assertError(refused, 403, 'ADMIN_REQUIRED');
    }
    assert.ok(!r.seen.some((s) => admins.includes(s.route)), 'an administration route was reached');
    const list = await send(r, 'GET', '/api/runyard/admin/users', key(w.platformAdmin));
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(JSON.parse(list.body).user, w.platformAdmin.userId);
    // The administrator's body is checked, then the handler gets it.
    assertError(await send(r, 'POST', '/api/runyard/admin/workspaces', key(w.platformAdmin), { bad: 1 }), 400, 'VALIDATION_FAILED');
    const made = await send(r, 'POST', '/api/runyard/admin/workspaces', key(w.platformAdmin), { name: 'new' });
    assert.equal(made.statusCode, 200, made.body);
    assert.deepEqual(JSON.parse(made.body).body, { name: 'new' });
  });

  it("gives a route outside any workspace to any valid key, as its user, with the route's parameters", async () => {
    for (const role of ROLE_ORDER) {
      const me = await send(r, 'GET', '/api/v1/users/me', key(w.roles[role]));
      assert.equal(me.statusCode, 200, me.body);
      assert.deepEqual(JSON.parse(me.body), { route: 'userMe', user: w.roles[role].userId, ctx: null, body: null, params: {}, query: {} });
    }
    const job = await send(r, 'GET', `/api/v1/jobs/${ID}`, key(w.outsider));
    assert.deepEqual(JSON.parse(job.body).params, { id: ID });
    // Parameters and query strings are checked against the route's schemas, and converted.
    assertError(await send(r, 'GET', '/api/v1/jobs/not-an-id', key(w.outsider)), 400, 'VALIDATION_FAILED');
    const page = `/api/v2/projects?teamId=${w.workspaceId}&pageSize=`;
    assertError(await send(r, 'GET', `${page}-1`, key(w.roles.viewer)), 400, 'VALIDATION_FAILED');
    assert.deepEqual(JSON.parse((await send(r, 'GET', `${page}5`, key(w.roles.viewer))).body).query, {
      teamId: w.workspaceId,
      pageSize: 5,
    });
  });

  it('lets each role of the workspace through exactly the routes its role reaches, as a member of that workspace', async () => {
    for (const role of ROLE_ORDER) {
      for (const needed of ['viewer', 'member', 'admin'] as const) {
        const probe = BY_ROLE[needed];
        const answer = await send(r, probe.method, probe.url(w.workspaceId), key(w.roles[role]), probe.body);
        if (hasRole(role, needed)) {
          assert.equal(answer.statusCode, 200, `${role} on ${probe.route}: ${answer.body}`);
          const seen = JSON.parse(answer.body) as Seen;
          assert.equal(seen.route, probe.route);
          assert.deepEqual(seen.ctx, {
            user: seen.ctx!.user,
            workspaceId: w.workspaceId,
            role,
          });
          assert.equal(seen.ctx!.user.id, w.roles[role].userId);
          assert.equal(seen.user, w.roles[role].userId);
        } else {
          const before = r.seen.length;
          const message = assertError(answer, 403, 'FORBIDDEN');
          assert.equal(message, `This needs the ${needed} role in this workspace; you are a ${role}.`);
          assert.equal(r.seen.length, before);
        }
      }
    }
  });

  it("refuses another tenant's workspace, a malformed one and a missing one, to everyone, a platform administrator too", async () => {
    const before = r.seen.length;
    for (const probe of Object.values(BY_ROLE)) {
      for (const who of [w.outsider, w.platformAdmin]) {
        const message = assertError(
          await send(r, probe.method, probe.url(w.workspaceId), key(who), probe.body),
          404,
          'WORKSPACE_NOT_FOUND',
        );
        assert.match(message, /not a member of it/);
      }
      // The owner of this workspace, in the other one.
      assertError(await send(r, probe.method, probe.url(w.otherWorkspaceId), key(w.roles.owner), probe.body), 404, 'WORKSPACE_NOT_FOUND');
      assertError(await send(r, probe.method, probe.url('not-a-workspace'), key(w.roles.owner), probe.body), 404, 'WORKSPACE_NOT_FOUND');
    }
    // No teamId (the route's schema does not ask for one), or an empty one.
    for (const url of ['/api/v1/projects', '/api/v1/projects?teamId=']) {
      assertError(await send(r, 'POST', url, key(w.roles.owner), { name: 'p' }), 400, 'TEAM_ID_REQUIRED');
    }
    assert.equal(r.seen.length, before, 'a handler was reached');
  });

  it('refuses a revoked key, a deactivated user, a malformed or unknown key, at once', async () => {
    const revoked = await w.person('revoked', 'owner');
    const gone = await w.person('gone', 'owner');
    const url = BY_ROLE.viewer.url(w.workspaceId);
    assert.equal((await send(r, 'GET', url, key(revoked))).statusCode, 200);
    await revokeApiKey(w.db, revoked.keyId);
    await deactivateUser(w.db, gone.userId);
    const unknown = revoked.apikey.replace(/_[^_]+$/, '_' + 'x'.repeat(43));
    for (const apikey of [revoked.apikey, gone.apikey, 'ry_nope', unknown]) {
      const message = assertError(await send(r, 'GET', url, { apikey }), 401, 'UNAUTHENTICATED');
      assert.match(message, /not valid or has been revoked/);
    }
    // An empty apikey header is no key.
    assert.match(assertError(await send(r, 'GET', url, { apikey: '' }), 401, 'UNAUTHENTICATED'), /Missing API key/);
  });

  describe("the dashboard's session cookie", () => {
    let cookie = '';
    let csrf = '';
    before(async () => {
      const member = w.roles.member;
      const session = await createWebSession(
        w.db,
        w.config,
        { id: member.userId, username: 'member', name: 'member', surname: '', email: '', isAdmin: false, apiKeyId: member.keyId },
        member.keyId,
      );
      cookie = `${WEB_SESSION_COOKIE}=${session.token}`;
      csrf = session.csrfToken;
    });

    it('stands for the key it was signed in with, when no apikey header is sent, and never on the sessions host', async () => {
      const url = BY_ROLE.viewer.url(w.workspaceId);
      const read = await send(r, 'GET', url, { cookie });
      assert.equal(read.statusCode, 200, read.body);
      assert.equal(JSON.parse(read.body).user, w.roles.member.userId);
      // A write needs the session's CSRF token.
      assertError(await send(r, 'POST', BY_ROLE.member.url(w.workspaceId), { cookie }, { name: 'p' }), 403, 'CSRF_FAILED');
      const write = await send(r, 'POST', BY_ROLE.member.url(w.workspaceId), { cookie, 'x-runyard-csrf': csrf }, { name: 'p' });
      assert.equal(write.statusCode, 200, write.body);
      // With an apikey header, even an empty one, the cookie is not looked at; on the sessions' host neither.
      assert.match(assertError(await send(r, 'GET', url, { cookie, apikey: '' }), 401, 'UNAUTHENTICATED'), /Missing API key/);
      const other = await send(r, 'GET', url, { cookie, apikey: w.roles.viewer.apikey });
      assert.equal(JSON.parse(other.body).user, w.roles.viewer.userId);
      assert.match(assertError(await send(r, 'GET', url, { cookie, host: SESSIONS_HOST }), 401, 'UNAUTHENTICATED'), /Missing API key/);
      assert.match(
        assertError(await send(r, 'GET', url, { cookie: `${WEB_SESSION_COOKIE}=ended` }), 401, 'UNAUTHENTICATED'),
        /session has ended/,
      );
    });
  });

  it("does not serve the dashboard's sign-in on the sessions' host", async () => {
    for (const id of ['authLogin', 'authSession', 'authLogout'] as const) {
      const spec = ROUTES[id];
      const message = assertError(await send(r, spec.method, spec.path, { host: SESSIONS_HOST }), 403, 'CSRF_FAILED');
      assert.match(message, /sign in at http:\/\/platform\.test\/app\//);
    }
    r.origins.platformUrl = null;
    try {
      const message = assertError(await send(r, 'GET', '/api/runyard/auth/session', { host: SESSIONS_HOST }), 403, 'CSRF_FAILED');
      assert.match(message, /sign in at the platform URL\/app\//);
    } finally {
      r.origins.platformUrl = 'http://platform.test';
    }
    assert.equal((await send(r, 'GET', '/api/runyard/auth/session', { host: 'platform.test' })).statusCode, 200);
  });

  describe("a workspace's engine token", () => {
    let token = '';
    before(async () => {
      token = (await rotateEngineToken(w.db, w.config, w.workspaceId)).token;
    });
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

    it('acts as a member of its own workspace on the engine routes, and knows no other workspace', async () => {
      const status = await send(r, 'GET', `/api/v1/cromwell?teamId=${w.workspaceId}`, bearer(token));
      assert.equal(status.statusCode, 200, status.body);
      const seen = JSON.parse(status.body) as Seen;
      assert.equal(seen.ctx?.role, 'member');
      assert.equal(seen.ctx?.workspaceId, w.workspaceId);
      assert.equal(seen.ctx?.user.username, 'engine');
      assert.equal((await send(r, 'PUT', `/api/v1/cromwell/start?teamId=${w.workspaceId}`, bearer(token))).statusCode, 200);
      const message = assertError(
        await send(r, 'GET', `/api/v1/cromwell?teamId=${w.otherWorkspaceId}`, bearer(token)),
        404,
        'WORKSPACE_NOT_FOUND',
      );
      assert.match(message, /the engine token is not one of it/);
    });

    it('wins over an apikey sent with it; the scheme is read in any case, with spaces around the token', async () => {
      for (const authorization of [`bearer ${token}`, `BEARER \t${token} `]) {
        const answer = await send(r, 'GET', `/api/v1/cromwell?teamId=${w.workspaceId}`, { authorization, ...key(w.roles.owner) });
        assert.equal(JSON.parse(answer.body).ctx.role, 'member', authorization);
      }
      // A bad token is refused even with a good key.
      for (const bad of [token.slice(0, -1), 'ryc_x']) {
        const answer = await send(r, 'GET', `/api/v1/cromwell?teamId=${w.workspaceId}`, { ...bearer(bad), ...key(w.roles.owner) });
        assert.match(assertError(answer, 401, 'UNAUTHENTICATED'), /engine token is not valid/, bad);
      }
      // Another scheme, none, or more than a token, is no engine token: the key decides.
      for (const authorization of [`Token ${token}`, `xBearer ${token}`, 'Bearer', `Bearer ${token} more`]) {
        const answer = await send(r, 'GET', `/api/v1/cromwell?teamId=${w.workspaceId}`, { authorization, ...key(w.roles.viewer) });
        assert.equal(JSON.parse(answer.body).ctx.role, 'viewer', authorization);
      }
    });

    it('is nothing on the other routes, not even on those of its workspace, and nothing once rotated', async () => {
      const viewerRoute = BY_ROLE.viewer.url(w.workspaceId);
      assert.match(assertError(await send(r, 'GET', viewerRoute, bearer(token)), 401, 'UNAUTHENTICATED'), /Missing API key/);
      const withKey = await send(r, 'GET', viewerRoute, { ...bearer('ryc_not-a-token'), ...key(w.roles.viewer) });
      assert.equal(withKey.statusCode, 200, withKey.body);
      await rotateEngineToken(w.db, w.config, w.workspaceId);
      assertError(await send(r, 'GET', `/api/v1/cromwell?teamId=${w.workspaceId}`, bearer(token)), 401, 'UNAUTHENTICATED');
    });
  });
});

describe('route access: what a handler returns, as the route answers it', { timeout: 20_000 }, () => {
  let r: RoutesApp;
  before(async () => {
    r = await routesApp(w, {
      own: {
        adminWorkspaceCreate: async () => ({ id: ID, name: 'made', createdAt: isoNow(), memberCount: 0, extra: 'dropped' }),
        authLogout: async () => new SessionReply(undefined, `${WEB_SESSION_COOKIE}=; Max-Age=0`),
        // A reply of the sign-in kind without a cookie, on a route without a reply schema.
        openapi: async () => new SessionReply({ signedIn: false }),
        jobEvents: async () =>
          new EventStream(async (sink) => {
            sink.event('status', { status: 'running' }, '1');
          }),
        storageObject: async () => new RawReply(206, { 'content-type': 'text/plain', 'x-kind': 'raw' }, Readable.from(['bytes'])),
      },
    });
  });
  after(() => r?.close());
  const admin = () => ({ apikey: w.platformAdmin.apikey });
  const owner = () => ({ apikey: w.roles.owner.apikey });

  it("serializes a result with the route's status and reply schema", async () => {
    const made = await send(r, 'POST', '/api/runyard/admin/workspaces', admin(), { name: 'made' });
    assert.equal(made.statusCode, 201, made.body);
    assert.deepEqual(Object.keys(JSON.parse(made.body)).sort(), ['createdAt', 'id', 'memberCount', 'name']);
  });

  it("answers the sign-in routes' replies uncached, with their cookie when they set one", async () => {
    const out = await send(r, 'POST', '/api/runyard/auth/logout');
    assert.equal(out.statusCode, 204);
    assert.equal(out.headers['cache-control'], 'no-store');
    assert.equal(out.headers['set-cookie'], `${WEB_SESSION_COOKIE}=; Max-Age=0`);
    const session = await send(r, 'GET', '/api/runyard/openapi.json');
    assert.equal(session.statusCode, 200);
    assert.equal(session.headers['cache-control'], 'no-store');
    assert.equal(session.headers['set-cookie'], undefined);
    assert.deepEqual(JSON.parse(session.body), { signedIn: false });
  });

  it('streams an event stream, and sends a raw reply as it is', async () => {
    const events = await send(r, 'GET', `/api/runyard/jobs/${ID}/events?teamId=${w.workspaceId}`, owner());
    assert.equal(events.statusCode, 200);
    assert.match(String(events.headers['content-type']), /^text\/event-stream/);
    assert.equal(events.body, 'event: status\nid: 1\ndata: {"status":"running"}\n\n');
    const raw = await send(r, 'GET', `/api/runyard/storage/object?teamId=${w.workspaceId}&bucket=b&key=k`, owner());
    assert.equal(raw.statusCode, 206);
    assert.equal(raw.headers['x-kind'], 'raw');
    assert.equal(raw.body, 'bytes');
  });

  it('refuses to start with a route that has no handler, a roles entry that does not fit, or an administration route open without a key', async () => {
    // An open route, or an administration route, whose entry is of another kind.
    assert.throws(
      () => neededRole('userMe', { ...ROUTES.userMe, auth: 'none' }),
      /userMe .* has the roles entry "user", which does not fit the route$/,
    );
    assert.throws(() => neededRole('projectList', { ...ROUTES.projectList, admin: true }), /"viewer", which does not fit/);
    assert.equal(neededRole('projectList', ROUTES.projectList), 'viewer');
    assert.equal(neededRole('adminUserList', ROUTES.adminUserList), null);
    const app = Fastify();
    const deps = { db: w.db, config: w.config } as AppDeps;
    assert.throws(() => registerRoutes(app, deps, {}), /^Error: Route health \(GET \/api\/runyard\/health\) has no handler$/);
    const handlers = Object.fromEntries(Object.keys(ROUTES).map((id) => [id, async () => null]));
    const spec = ROUTES.adminUserList as { auth: string };
    spec.auth = 'none';
    try {
      assert.throws(() => registerRoutes(Fastify(), deps, handlers), /^Error: Admin route adminUserList must require an API key$/);
    } finally {
      spec.auth = 'apikey';
    }
  });
});

describe('route access with the read caches (SQLite): kept until the next commit, never across callers', { timeout: 20_000 }, () => {
  let r: RoutesApp;
  let version = 1;
  let lists = 0;
  before(async () => {
    r = await routesApp(w, {
      readCaches: new ReadCaches(() => version),
      own: {
        projectList: async (req) => {
          lists++;
          return { total: lists, projects: [], caller: req.ctx.user.id };
        },
      },
    });
  });
  after(() => r?.close());
  const list = (p: Person, query = '') => send(r, 'GET', `/api/v2/projects?teamId=${w.workspaceId}${query}`, { apikey: p.apikey });

  it('checks the key and the membership as without the caches, and keeps a role only until the next commit', async () => {
    const url = BY_ROLE.member.url(w.workspaceId);
    const moved = await w.person('moved', 'member');
    const made = await send(r, 'POST', url, { apikey: moved.apikey }, { name: 'p' });
    assert.deepEqual(JSON.parse(made.body).ctx, {
      user: JSON.parse(made.body).ctx.user,
      workspaceId: w.workspaceId,
      role: 'member',
    });
    assertError(await send(r, 'POST', url, { apikey: w.outsider.apikey }, { name: 'p' }), 404, 'WORKSPACE_NOT_FOUND');
    assertError(await send(r, 'POST', url, { apikey: w.outsider.apikey }, { name: 'p' }), 404, 'WORKSPACE_NOT_FOUND');
    assertError(await send(r, 'POST', url, { apikey: 'ry_nope' }), 401, 'UNAUTHENTICATED');
    await setMembership(w.db, w.workspaceId, moved.userId, 'viewer');
    // The same version of the database: the role read before is kept.
    assert.equal((await send(r, 'POST', url, { apikey: moved.apikey }, { name: 'p' })).statusCode, 200);
    version++;
    assertError(await send(r, 'POST', url, { apikey: moved.apikey }, { name: 'p' }), 403, 'FORBIDDEN');
  });

  it("keeps a list's reply for the same caller and query, and makes it again for another caller, query or version", async () => {
    const first = await list(w.roles.viewer);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(String(first.headers['content-type']), /^application\/json/);
    const total = JSON.parse(first.body).total as number;
    assert.equal(JSON.parse((await list(w.roles.viewer)).body).total, total);
    assert.equal(JSON.parse(first.body).caller, undefined, 'the reply schema drops what it does not name');
    assert.equal(JSON.parse((await list(w.roles.member)).body).total, total + 1);
    assert.equal(JSON.parse((await list(w.roles.viewer, '&search=x')).body).total, total + 2);
    version++;
    assert.equal(JSON.parse((await list(w.roles.viewer)).body).total, total + 3);
    // Another user with the same role in the same workspace.
    const twin = await w.person('twin', 'viewer');
    assert.equal(JSON.parse((await list(twin)).body).total, total + 4);
  });
});

describe('roles of the services', () => {
  const user = { id: 'u1', username: 'u', name: 'U', surname: '', email: '', isAdmin: false };
  const ctx = (role: string): Context => ({ user, workspaceId: 'w1', role });

  it('refuses a role below the one needed, naming both', () => {
    for (const role of ROLE_ORDER)
      for (const needed of ROLE_ORDER) {
        if (hasRole(role, needed)) assert.doesNotThrow(() => requireRole(ctx(role), needed));
        else
          assert.throws(
            () => requireRole(ctx(role), needed),
            (e: AppError) => e.code === 'FORBIDDEN',
          );
      }
    assert.throws(
      () => requireRole(ctx('admin'), 'owner'),
      (e: AppError) => e.message === 'This needs the owner role in this workspace; you are an admin.',
    );
    assert.throws(() => requireRole(ctx('guest'), 'viewer'), /you are a guest\.$/);
  });

  it("lets a member act on its own jobs only, and an admin or owner on anyone's", () => {
    const mine = { id: 'j1', user_id: 'u1' };
    const theirs = { id: 'j2', user_id: 'u2' };
    for (const role of ROLE_ORDER) assert.doesNotThrow(() => requireJobOwnerOrAdmin(ctx(role), mine, 'abort'));
    for (const role of ['admin', 'owner']) assert.doesNotThrow(() => requireJobOwnerOrAdmin(ctx(role), theirs, 'abort'));
    assert.throws(
      () => requireJobOwnerOrAdmin(ctx('member'), theirs, 'abort'),
      (e: AppError) =>
        e.code === 'FORBIDDEN' &&
        e.message === 'Job j2 belongs to another user: to abort it you need the admin role in this workspace; you are a member.',
    );
    assert.throws(() => requireJobOwnerOrAdmin(ctx('owner-to-be'), theirs, 'archive'), /you are an owner-to-be\.$/);
  });
});
