import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { selfSignedCertificate } from '../../../test/support/tls.js';
import { bashBody, type JobWorld } from './jobs/fixtures.js';
import { assertError, assertIsoTime, call } from './wire.js';

// The dashboard's sign-in: an API key exchanged for the runyard_session cookie, which then
// authenticates the API routes; cookie-authenticated writes need the session's CSRF token.

const LOGIN = '/api/runyard/auth/login';
const SESSION = '/api/runyard/auth/session';
const LOGOUT = '/api/runyard/auth/logout';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface SignedIn {
  token: string;
  csrf: string;
  setCookie: string;
}

describe('dashboard sign-in with a session cookie', () => {
  let s: TestServer;
  let other: Tenant;
  const secrets: string[] = [];

  before(async () => {
    // Debug: every request gets its log line, which must name none of the secrets.
    s = await startTestServer({ env: { RUNYARD_LOG_LEVEL: 'debug' } });
    other = await s.newTenant('other');
    secrets.push(s.admin.apikey, other.apikey);
  });
  after(() => s.close());

  const login = (apikey: unknown, headers: Record<string, string> = {}) =>
    s.app.inject({
      method: 'POST',
      url: LOGIN,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ apikey }),
    });

  async function signIn(apikey: string): Promise<SignedIn> {
    const r = await login(apikey);
    assert.equal(r.statusCode, 200, r.body);
    const setCookie = String(r.headers['set-cookie']);
    const token = /^runyard_session=([^;]+);/.exec(setCookie)![1];
    const csrf = r.json().csrfToken as string;
    secrets.push(token, csrf);
    return { token, csrf, setCookie };
  }

  /** A request with the session cookie (and, when given, the CSRF header and other headers), no apikey. */
  const withCookie = (
    token: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    { csrf, body, headers = {} }: { csrf?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    s.app.inject({
      method,
      url,
      headers: {
        cookie: `theme=dark; runyard_session=${token}`,
        ...(csrf !== undefined && { 'x-runyard-csrf': csrf }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });

  const projectNames = async () => (await s.store.db.selectFrom('projects').select('name').execute()).map((p) => p.name).sort();

  it('login answers the user, a CSRF token and the end, and sets the cookie with every attribute; the database keeps only its hash', async () => {
    const before = Date.now();
    const r = await login(s.admin.apikey);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.headers['cache-control'], 'no-store');
    const setCookie = String(r.headers['set-cookie']);
    assert.match(
      setCookie,
      /^runyard_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/,
      'not Secure over plain HTTP',
    );
    const token = /^runyard_session=([^;]+);/.exec(setCookie)![1];
    secrets.push(token, r.json().csrfToken);

    const body = r.json();
    assert.deepEqual(Object.keys(body).sort(), ['csrfToken', 'expiresAt', 'user']);
    assert.deepEqual(body.user, (await call(s, 'GET', '/api/v1/users/me')).json(), 'the same document as GET /api/v1/users/me');
    assert.match(body.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(body.csrfToken, token);
    assertIsoTime(body.expiresAt, 'expiresAt');
    const ttl = Date.parse(body.expiresAt) - before;
    assert.ok(ttl > 12 * 3600_000 - 60_000 && ttl <= 12 * 3600_000 + 60_000, `12 hours, got ${ttl} ms`);

    const rows = await s.store.db.selectFrom('web_sessions').selectAll().where('token_hash', '=', sha256(token)).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].user_id, s.admin.userId);
    assert.equal(rows[0].api_key_id, /^ry_([0-9a-f]{24})_/.exec(s.admin.apikey)![1]);
    assert.equal(rows[0].expires_at, body.expiresAt);
    const everything = JSON.stringify(await s.store.db.selectFrom('web_sessions').selectAll().execute());
    assert.ok(!everything.includes(token) && !everything.includes(body.csrfToken), 'neither token is stored');
  });

  it('the cookie authenticates the API: the user, a workspace route, and the session route (same CSRF token)', async () => {
    const { token, csrf } = await signIn(other.apikey);
    const me = await withCookie(token, 'GET', '/api/v1/users/me');
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().id, other.userId);
    const projects = await withCookie(token, 'GET', `/api/v2/projects?teamId=${other.workspaceId}`);
    assert.equal(projects.statusCode, 200, projects.body);

    const session = await withCookie(token, 'GET', SESSION);
    assert.equal(session.statusCode, 200, session.body);
    assert.equal(session.headers['cache-control'], 'no-store');
    assert.equal(session.headers['set-cookie'], undefined);
    assert.equal(session.json().csrfToken, csrf);
    assert.equal(session.json().user.id, other.userId);
    assert.deepEqual(
      session.json().user.workspaces.map((w: { id: string }) => w.id),
      [other.workspaceId],
    );
  });

  it('without a cookie, or with an unknown one, the session route and the API answer 401', async () => {
    assertError(await s.app.inject({ url: SESSION }), 401, 'UNAUTHENTICATED');
    const forged = 'A'.repeat(43);
    assertError(await withCookie(forged, 'GET', SESSION), 401, 'UNAUTHENTICATED');
    assertError(await withCookie(forged, 'GET', '/api/v1/users/me'), 401, 'UNAUTHENTICATED');
    assertError(await withCookie('not-a-token', 'GET', '/api/v1/users/me'), 401, 'UNAUTHENTICATED');
  });

  it('a cookie-authenticated write needs the CSRF header: without it (or with a wrong one) 403 CSRF_FAILED and nothing is created', async () => {
    const { token, csrf } = await signIn(other.apikey);
    const url = `/api/v1/projects?teamId=${other.workspaceId}`;
    const before = await projectNames();
    const missing = await withCookie(token, 'POST', url, { body: { name: 'no-csrf' } });
    assert.match(assertError(missing, 403, 'CSRF_FAILED'), /x-runyard-csrf/);
    assertError(
      await withCookie(token, 'POST', url, { csrf: csrf.slice(0, -1) + (csrf.endsWith('A') ? 'B' : 'A'), body: { name: 'bad' } }),
      403,
      'CSRF_FAILED',
    );
    assertError(await withCookie(token, 'POST', url, { csrf: '', body: { name: 'empty' } }), 403, 'CSRF_FAILED');
    // Another session's token is not this one's.
    const another = await signIn(other.apikey);
    assertError(await withCookie(token, 'POST', url, { csrf: another.csrf, body: { name: 'other-token' } }), 403, 'CSRF_FAILED');
    // Refused before the body is read: even a body that is not valid JSON gets the CSRF answer.
    const broken = await s.app.inject({
      method: 'POST',
      url,
      headers: { cookie: `runyard_session=${token}`, 'content-type': 'application/json' },
      payload: '{not json',
    });
    assertError(broken, 403, 'CSRF_FAILED');
    assert.deepEqual(await projectNames(), before, 'nothing created');

    const ok = await withCookie(token, 'POST', url, { csrf, body: { name: 'with-csrf' } });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().user.id, other.userId, 'created as the signed-in user');
    assert.deepEqual(await projectNames(), [...before, 'with-csrf'].sort());
  });

  it("a cookie-authenticated write from another origin is refused, even with the CSRF token; the server's own origin is taken", async () => {
    const { token, csrf } = await signIn(other.apikey);
    const url = `/api/v1/projects?teamId=${other.workspaceId}`;
    for (const origin of ['https://evil.example', 'http://localhost:8081', 'null']) {
      const r = await withCookie(token, 'POST', url, { csrf, body: { name: `from-${origin}` }, headers: { origin } });
      assert.match(assertError(r, 403, 'CSRF_FAILED'), /another site/, origin);
    }
    const own = await withCookie(token, 'POST', url, {
      csrf,
      body: { name: 'same-origin' },
      headers: { origin: 'http://localhost', host: 'localhost:80' },
    });
    assert.equal(own.statusCode, 200, own.body);
    // Reads are not writes: another origin may not read them anyway (no CORS), and SameSite keeps the cookie home.
    assert.equal((await withCookie(token, 'GET', '/api/v1/users/me', { headers: { origin: 'https://evil.example' } })).statusCode, 200);
    // Sign-in from another site is refused too.
    const r = await login(other.apikey, { origin: 'https://evil.example' });
    assertError(r, 403, 'CSRF_FAILED');
    assert.equal(r.headers['set-cookie'], undefined);
  });

  it('a bad, malformed or missing key signs nobody in: 401 (or 400), no cookie, nothing stored', async () => {
    const count = async () => (await s.store.db.selectFrom('web_sessions').select('id').execute()).length;
    const before = await count();
    const wrongSecret = s.admin.apikey.slice(0, -4) + (s.admin.apikey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (const key of [wrongSecret, 'ry_000000000000000000000000_' + 'x'.repeat(43), 'nonsense']) {
      const r = await login(key);
      assert.match(assertError(r, 401, 'UNAUTHENTICATED'), /not valid or has been revoked/);
      assert.equal(r.headers['set-cookie'], undefined);
    }
    for (const body of [{ apikey: '' }, {}, { apikey: s.admin.apikey, extra: 1 }, { apikey: 42 }]) {
      const r = await s.app.inject({
        method: 'POST',
        url: LOGIN,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      assertError(r, 400, 'VALIDATION_FAILED');
      assert.equal(r.headers['set-cookie'], undefined);
      assert.ok(!r.body.includes(s.admin.apikey), 'the message never repeats the key');
    }
    assert.equal(await count(), before);
  });

  it('logout needs the CSRF header, then ends the session: the cookie is cleared and no longer works', async () => {
    const { token, csrf } = await signIn(other.apikey);
    assertError(await withCookie(token, 'POST', LOGOUT), 403, 'CSRF_FAILED');
    assertError(await withCookie(token, 'POST', LOGOUT, { csrf, headers: { origin: 'https://evil.example' } }), 403, 'CSRF_FAILED');
    assert.equal((await withCookie(token, 'GET', '/api/v1/users/me')).statusCode, 200, 'a refused logout ends nothing');

    const r = await withCookie(token, 'POST', LOGOUT, { csrf });
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, '');
    assert.match(String(r.headers['set-cookie']), /^runyard_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/);
    assertError(await withCookie(token, 'GET', '/api/v1/users/me'), 401, 'UNAUTHENTICATED');
    assertError(await withCookie(token, 'GET', SESSION), 401, 'UNAUTHENTICATED');
    assert.equal((await s.store.db.selectFrom('web_sessions').select('id').where('token_hash', '=', sha256(token)).execute()).length, 0);
    // Signing out again, or without a session, only clears the cookie.
    const again = await withCookie(token, 'POST', LOGOUT);
    assert.equal(again.statusCode, 204);
    assert.match(String(again.headers['set-cookie']), /Max-Age=0/);
  });

  it('revoking the API key a session was made with ends the session (and only that one)', async () => {
    const created = await call(s, 'POST', '/api/runyard/admin/apikeys', { userId: other.userId, name: 'dashboard' });
    assert.equal(created.statusCode, 201, created.body);
    secrets.push(created.json().apikey);
    const doomed = await signIn(created.json().apikey);
    const kept = await signIn(other.apikey);
    assert.equal((await withCookie(doomed.token, 'GET', '/api/v1/users/me')).statusCode, 200);
    assert.equal((await call(s, 'DELETE', `/api/runyard/admin/apikeys/${created.json().id}`)).statusCode, 200);
    assertError(await withCookie(doomed.token, 'GET', '/api/v1/users/me'), 401, 'UNAUTHENTICATED');
    assertError(await withCookie(doomed.token, 'GET', SESSION), 401, 'UNAUTHENTICATED');
    assert.equal(
      (await s.store.db.selectFrom('web_sessions').select('id').where('token_hash', '=', sha256(doomed.token)).execute()).length,
      0,
    );
    assert.equal((await withCookie(kept.token, 'GET', '/api/v1/users/me')).statusCode, 200, "the user's other session goes on");
  });

  it('a deactivated user is signed out of the dashboard too', async () => {
    const gone = await s.newTenant('leaving');
    secrets.push(gone.apikey);
    const { token } = await signIn(gone.apikey);
    assert.equal((await call(s, 'DELETE', `/api/runyard/admin/users/${gone.userId}`)).statusCode, 200);
    assertError(await withCookie(token, 'GET', '/api/v1/users/me'), 401, 'UNAUTHENTICATED');
  });

  it('an expired session is refused and its row removed; a sign-in removes expired rows', async () => {
    const { token } = await signIn(other.apikey);
    const stale = await signIn(other.apikey);
    await s.store.db
      .updateTable('web_sessions')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', 'in', [sha256(token), sha256(stale.token)])
      .execute();
    assertError(await withCookie(token, 'GET', `/api/v2/projects?teamId=${other.workspaceId}`), 401, 'UNAUTHENTICATED');
    const rows = async (t: string) =>
      (await s.store.db.selectFrom('web_sessions').select('id').where('token_hash', '=', sha256(t)).execute()).length;
    assert.equal(await rows(token), 0, 'removed when presented');
    assert.equal(await rows(stale.token), 1, 'not presented yet');
    await signIn(other.apikey);
    assert.equal(await rows(stale.token), 0, 'purged at the next sign-in');
  });

  it('an apikey header wins over the cookie: its user acts, a bad key is 401 whatever the cookie, and no CSRF token is asked', async () => {
    const adminSession = await signIn(s.admin.apikey);
    const me = await withCookie(adminSession.token, 'GET', '/api/v1/users/me', { headers: { apikey: other.apikey } });
    assert.equal(me.json().id, other.userId);
    assertError(await withCookie(adminSession.token, 'GET', '/api/v1/users/me', { headers: { apikey: 'wrong' } }), 401, 'UNAUTHENTICATED');
    assertError(await withCookie(adminSession.token, 'GET', '/api/v1/users/me', { headers: { apikey: '' } }), 401, 'UNAUTHENTICATED');
    const write = await withCookie(adminSession.token, 'POST', `/api/v1/projects?teamId=${other.workspaceId}`, {
      body: { name: 'by-key' },
      headers: { apikey: other.apikey },
    });
    assert.equal(write.statusCode, 200, write.body);
  });

  it("with a cookie, another tenant's workspace, project and job are still not found, and admin routes still need an administrator", async () => {
    const ws = s.admin.workspaceId;
    const project = await call(s, 'POST', `/api/v1/projects?teamId=${ws}`, { name: 'admins-own' });
    const workflow = await call(s, 'POST', '/api/runyard/admin/workflows/docker', {
      workspaceId: ws,
      name: 'sh',
      containerName: 'library/ubuntu',
    });
    const world = { projectId: project.json()._id, bashWorkflowId: workflow.json()._id } as JobWorld;
    const job = await call(s, 'POST', `/api/v2/jobs?teamId=${ws}`, bashBody(world, { name: 'admins-job' }));
    assert.equal(job.statusCode, 200, job.body);
    const jobId = job.json().jobId as string;

    const { token, csrf } = await signIn(other.apikey);
    assertError(await withCookie(token, 'GET', `/api/v2/projects?teamId=${ws}`), 404, 'WORKSPACE_NOT_FOUND');
    assertError(await withCookie(token, 'GET', `/api/v1/jobs/${jobId}?teamId=${other.workspaceId}`), 404, 'JOB_NOT_FOUND');
    assertError(await withCookie(token, 'GET', `/api/v1/jobs/${jobId}`), 404, 'JOB_NOT_FOUND');
    assertError(await withCookie(token, 'PUT', `/api/v2/jobs/${jobId}/abort?teamId=${ws}`, { csrf }), 404, 'WORKSPACE_NOT_FOUND');
    assertError(await withCookie(token, 'GET', '/api/runyard/admin/users'), 403, 'ADMIN_REQUIRED');

    const admin = await signIn(s.admin.apikey);
    assert.equal((await withCookie(admin.token, 'GET', `/api/v1/jobs/${jobId}?teamId=${ws}`)).statusCode, 200);
    assert.equal((await withCookie(admin.token, 'GET', '/api/runyard/admin/users')).statusCode, 200);
  });

  it('no log line holds an API key, a session cookie or a CSRF token', async () => {
    assert.ok(
      s.logs.some((l) => l.includes('/api/runyard/auth/login')),
      'the requests were logged',
    );
    for (const secret of secrets) {
      const line = s.logs.find((l) => l.includes(secret));
      assert.equal(line, undefined, `a log line holds a secret: ${line}`);
    }
  });
});

describe('dashboard sign-in on an HTTPS server', () => {
  let s: TestServer;
  let certFile: string;
  before(async () => {
    const cert = selfSignedCertificate();
    certFile = cert.certFile;
    s = await startTestServer({
      listen: true,
      env: {
        RUNYARD_TLS_CERT_FILE: cert.certFile,
        RUNYARD_TLS_KEY_FILE: cert.keyFile,
        RUNYARD_PUBLIC_URL: 'https://runyard.example.org',
        RUNYARD_WEB_SESSION_HOURS: '2',
      },
    });
  });
  after(() => s.close());

  function request(method: string, path: string, headers: Record<string, string>, body?: string) {
    return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = https.request(new URL(path, s.url), { method, headers, ca: readFileSync(certFile) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('sets a Secure cookie lasting RUNYARD_WEB_SESSION_HOURS, which authenticates over real HTTPS; the public URL is an accepted origin', async () => {
    assert.match(s.url, /^https:/);
    const r = await request(
      'POST',
      '/api/runyard/auth/login',
      { 'content-type': 'application/json' },
      JSON.stringify({ apikey: s.admin.apikey }),
    );
    assert.equal(r.status, 200, r.body);
    const setCookie = String(r.headers['set-cookie']);
    assert.match(setCookie, /^runyard_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=7200; Secure$/);
    const cookie = setCookie.split(';')[0];
    const csrf = JSON.parse(r.body).csrfToken as string;

    const me = await request('GET', '/api/v1/users/me', { cookie });
    assert.equal(me.status, 200, me.body);
    assert.equal(JSON.parse(me.body).id, s.admin.userId);
    const created = await request(
      'POST',
      `/api/v1/projects?teamId=${s.admin.workspaceId}`,
      { cookie, 'x-runyard-csrf': csrf, origin: 'https://runyard.example.org', 'content-type': 'application/json' },
      JSON.stringify({ name: 'over-https' }),
    );
    assert.equal(created.status, 200, created.body);
    const out = await request('POST', '/api/runyard/auth/logout', { cookie, 'x-runyard-csrf': csrf });
    assert.equal(out.status, 204);
    assert.match(String(out.headers['set-cookie']), /^runyard_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0; Secure$/);
    assert.equal((await request('GET', '/api/v1/users/me', { cookie })).status, 401);
  });
});
