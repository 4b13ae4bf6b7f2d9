import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, platformUrlOf, sessionsOriginKind, sessionsUrlOf } from '../../src/config.js';
import { cookieOf, request, type Answer } from '../sessions-runtime/proxy-app.js';
import { assertError, call } from '../wire.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { sessionWorld, type SessionWorld } from './world.js';

/** An operator's command that follows the contract of docs/sessions.md (test/fixtures/bin/session-ui): it starts quickly. */
const SESSION_UI = fileURLToPath(new URL('../../../../test/fixtures/bin/session-ui', import.meta.url));

// Sessions' web UIs on an origin of their own (docs/sessions.md): the platform at 127.0.0.1:<port>,
// sessions at localhost:<port> by default. There the dashboard's cookie is neither set nor taken,
// and the proxy serves there only.

const asJson = (r: Answer) => JSON.parse(r.body) as Record<string, unknown>;
/** An Answer as assertError takes it. */
const reply = (r: Answer) => ({ statusCode: r.status, body: r.body });

/** A WebSocket upgrade request's status (101, or the answer of a refusal). */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
    });
    r.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    r.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    r.on('error', reject);
    r.end();
  });
}

describe("sessions' web UIs on an origin of their own (the loopback default)", { timeout: 300_000 }, () => {
  let w: RunningSessionWorld;
  let id: string;
  before(async () => {
    w = await runningSessionWorld({ RUNYARD_SESSION_COMMAND_VSCODE: `${SESSION_UI} --greeting hi` });
    const created = await w.session({ backend: 'vscode', name: 'origin' });
    id = created._id;
    await w.until(id, ['ready']);
  });
  after(() => w?.close());

  const link = async () => {
    const r = await call(w.s, 'POST', `/api/runyard/interactive-sessions/${id}/ui-link?teamId=${w.ws}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().url as string;
  };
  /** POST /api/runyard/auth/login on `base` (real HTTP): the answer and the dashboard cookie it set, if any. */
  const login = async (base: string) => {
    const r = await request(`${base}/api/runyard/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apikey: w.s.admin.apikey }),
    });
    const set = (r.headers['set-cookie'] ?? []).find((c) => c.startsWith('runyard_session='));
    return { r, cookie: set?.split(';', 1)[0] };
  };

  it('the platform is at 127.0.0.1 and the sessions at localhost, on the same port; the link is an absolute URL there', async () => {
    const port = new URL(w.url).port;
    assert.equal(w.url, `http://127.0.0.1:${port}`);
    assert.equal(w.sessionsUrl, `http://localhost:${port}`);
    assert.match(await link(), new RegExp(`^http://localhost:${port}/api/runyard/interactive-sessions/${id}/ui/\\?token=[^&]+$`));
  });

  it("following the link on localhost works: launch token -> cookie -> the session's page through the proxy", async () => {
    const launched = await request(await link());
    assert.equal(launched.status, 200, launched.body);
    const cookie = cookieOf(launched);
    const base = `/api/runyard/interactive-sessions/${id}/ui/`;
    const page = await request(`${w.sessionsUrl}${base}hello`, { headers: { cookie } });
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /^hi from the session UI: hello /);
    // A page of the sessions' origin may write; one of the platform's may not (Origin check).
    const own = await request(`${w.sessionsUrl}${base}posted`, { method: 'POST', headers: { cookie, origin: w.sessionsUrl } });
    assert.equal(own.status, 200, own.body);
    const fromPlatform = await request(`${w.sessionsUrl}${base}posted`, { method: 'POST', headers: { cookie, origin: w.url } });
    assertError(reply(fromPlatform), 404, 'ROUTE_NOT_FOUND');
    // The platform's credentials still never reach the session: it gets its own token only.
    const withKey = await request(`${w.sessionsUrl}${base}key`, {
      headers: { cookie: `${cookie}; runyard_session=x`, apikey: w.s.admin.apikey },
    });
    assert.equal(withKey.status, 200, withKey.body);
  });

  it("the same paths on 127.0.0.1 (the platform's host) answer 404: a launch link, the session cookie, a WebSocket", async () => {
    const launchPath = new URL(await link());
    const onPlatform = await request(`${w.url}${launchPath.pathname}${launchPath.search}`);
    assertError(reply(onPlatform), 404, 'ROUTE_NOT_FOUND');
    assert.equal(onPlatform.headers['set-cookie'], undefined);
    // That link was not taken by the refusal: it still opens the session on localhost.
    const launched = await request(launchPath.href);
    assert.equal(launched.status, 200, launched.body);
    const cookie = cookieOf(launched);
    const base = `/api/runyard/interactive-sessions/${id}/ui/`;
    assertError(reply(await request(`${w.url}${base}hello`, { headers: { cookie } })), 404, 'ROUTE_NOT_FOUND');
    assert.equal((await request(`${w.sessionsUrl}${base}hello`, { headers: { cookie } })).status, 200);
    assert.equal(await upgradeStatus(`${w.url}${base}api/kernels/k/channels`, { cookie }), 404);
  });

  it("the dashboard's cookie authenticates nothing on localhost; an apikey still does", async () => {
    const { r, cookie } = await login(w.url);
    assert.equal(r.status, 200, r.body);
    assert.ok(cookie, 'signed in on the platform');
    const me = await request(`${w.url}/api/v1/users/me`, { headers: { cookie } });
    assert.equal(me.status, 200, me.body);
    assert.equal(asJson(me).id, w.s.admin.userId);
    // The browser would not even send it there (another host); sent anyway, it is not taken.
    assertError(reply(await request(`${w.sessionsUrl}/api/v1/users/me`, { headers: { cookie } })), 401, 'UNAUTHENTICATED');
    assertError(
      reply(await request(`${w.sessionsUrl}/api/v2/projects?teamId=${w.ws}&pageSize=10&page=1`, { headers: { cookie } })),
      401,
      'UNAUTHENTICATED',
    );
    assertError(reply(await request(`${w.sessionsUrl}/api/runyard/auth/session`, { headers: { cookie } })), 403, 'CSRF_FAILED');
    // The CLI with http://localhost:<port> as its platform URL keeps working.
    const keyed = await request(`${w.sessionsUrl}/api/v1/users/me`, { headers: { apikey: w.s.admin.apikey } });
    assert.equal(keyed.status, 200, keyed.body);
    assert.equal(asJson(keyed).id, w.s.admin.userId);
  });

  it('sign-in is refused on localhost, and /app there is a 404 page that links to the dashboard', async () => {
    const { r, cookie } = await login(w.sessionsUrl);
    assert.match(assertError(reply(r), 403, 'CSRF_FAILED'), new RegExp(`sign in at ${w.url.replace(/\./g, '\\.')}/app/`));
    assert.equal(cookie, undefined);
    assert.equal(r.headers['set-cookie'], undefined);
    for (const path of ['/app/', '/app/advanced-analytics/analyses', '/app/assets/index.js']) {
      const page = await request(`${w.sessionsUrl}${path}`);
      assert.equal(page.status, 404, path);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.ok(page.body.includes(`<a href="${w.url}/app/">${w.url}/app/</a>`), page.body);
      assert.equal(page.headers['x-frame-options'], 'DENY');
    }
    // On the platform's host, /app is the dashboard (or, unbuilt, the page that says to build it).
    const dashboard = await request(`${w.url}/app/`);
    assert.ok([200, 503].includes(dashboard.status), `${dashboard.status}`);
    assert.ok(!dashboard.body.includes('The dashboard is not here'));
  });

  it('API and /app replies of the platform cannot be framed; /app keeps no opener across origins', async () => {
    const me = await request(`${w.url}/api/v1/users/me`, { headers: { apikey: w.s.admin.apikey } });
    assert.equal(me.headers['x-frame-options'], 'DENY');
    const missing = await request(`${w.url}/api/v1/users/me`);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers['x-frame-options'], 'DENY');
    const app = await request(`${w.url}/app/`);
    assert.equal(app.headers['x-frame-options'], 'DENY');
    assert.equal(app.headers['cross-origin-opener-policy'], 'same-origin');
  });
});

describe('RUNYARD_SESSIONS_URL and the default', () => {
  it("RUNYARD_SESSIONS_URL on the platform's host name (in any case, on any port) or with a path stops the start", () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(env);
      } catch (e) {
        assert.ok(e instanceof ConfigError);
        return e.problems.join('\n');
      }
      return assert.fail('loadConfig accepted it');
    };
    assert.match(
      problems({ RUNYARD_SESSIONS_URL: 'http://127.0.0.1:9000' }),
      /RUNYARD_SESSIONS_URL must name another host name than the platform's \(127\.0\.0\.1\): cookies are not isolated by port/,
    );
    assert.match(
      problems({ RUNYARD_PUBLIC_URL: 'https://runyard.example.org', RUNYARD_SESSIONS_URL: 'https://RUNYARD.example.org:8443' }),
      /another host name than the platform's \(runyard\.example\.org\)/,
    );
    // Listening on every interface, the server names itself 127.0.0.1.
    assert.match(problems({ RUNYARD_HOST: '0.0.0.0', RUNYARD_SESSIONS_URL: 'http://127.0.0.1:8081' }), /another host name/);
    for (const bad of [
      'https://sessions.example.org/path',
      'ftp://sessions.example.org',
      'https://user@sessions.example.org',
      'sessions.example.org',
    ]) {
      assert.match(problems({ RUNYARD_SESSIONS_URL: bad }), /RUNYARD_SESSIONS_URL/, bad);
    }
  });

  it('the default: 127.0.0.1 <-> localhost on the same port and scheme; any other host (or every interface) shares the origin', () => {
    const c = (env: NodeJS.ProcessEnv) => loadConfig(env);
    const local = c({});
    assert.equal(sessionsUrlOf(local, platformUrlOf(local, 8080)), 'http://localhost:8080');
    const named = c({ RUNYARD_HOST: 'localhost' });
    assert.equal(sessionsUrlOf(named, platformUrlOf(named, 9000)), 'http://127.0.0.1:9000');
    const proxied = c({ RUNYARD_PUBLIC_URL: 'https://127.0.0.1:8443/' });
    assert.equal(sessionsUrlOf(proxied, platformUrlOf(proxied, 8080)), 'https://localhost:8443');
    for (const env of [{ RUNYARD_HOST: '0.0.0.0' }, { RUNYARD_HOST: '10.1.2.3' }, { RUNYARD_PUBLIC_URL: 'https://runyard.example.org' }]) {
      const config = c(env);
      assert.equal(sessionsOriginKind(config), 'shared', JSON.stringify(env));
      assert.equal(sessionsUrlOf(config, platformUrlOf(config, 8080)), null, JSON.stringify(env));
    }
    const explicit = c({ RUNYARD_PUBLIC_URL: 'https://runyard.example.org', RUNYARD_SESSIONS_URL: 'https://Sessions.Example.org:443/' });
    assert.equal(explicit.sessionsUrl, 'https://sessions.example.org');
    assert.equal(sessionsUrlOf(explicit, platformUrlOf(explicit, 8080)), 'https://sessions.example.org');
  });

  describe('an explicit RUNYARD_SESSIONS_URL', () => {
    let w: SessionWorld;
    let url: string;
    before(async () => {
      w = await sessionWorld({ RUNYARD_SESSIONS_URL: 'http://sessions.test:4321/' });
      url = await w.s.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => w?.close());

    it("is where the link points, and its Host (in any case) is the sessions' host: no dashboard there, no session on the platform", async () => {
      const created = await w.session();
      await w.setSessionStatus(created._id, 'ready');
      const r = await call(w.s, 'POST', `/api/runyard/interactive-sessions/${created._id}/ui-link?teamId=${w.ws}`);
      assert.equal(r.statusCode, 200, r.body);
      const link = new URL(r.json().url as string);
      assert.equal(link.origin, 'http://sessions.test:4321');
      assert.equal(link.pathname, `/api/runyard/interactive-sessions/${created._id}/ui/`);
      const host = { host: 'SESSIONS.test:4321' };
      const app = await request(`${url}/app/`, { headers: host });
      assert.equal(app.status, 404);
      assert.match(app.body, /The dashboard is not here/);
      const signIn = await request(`${url}/api/runyard/auth/login`, {
        method: 'POST',
        headers: { ...host, 'content-type': 'application/json' },
        body: JSON.stringify({ apikey: w.s.admin.apikey }),
      });
      assertError(reply(signIn), 403, 'CSRF_FAILED');
      // Another port of that host name is not the sessions' origin (a browser sends the port it connected to).
      const other = await request(`${url}/app/`, { headers: { host: 'sessions.test:4322' } });
      assert.doesNotMatch(other.body, /The dashboard is not here/);
      // The proxy serves the sessions' host only (this session does not run: 404 there too, but not for the host's sake).
      const onPlatform = await request(`${url}${link.pathname}${link.search}`);
      assertError(reply(onPlatform), 404, 'ROUTE_NOT_FOUND');
    });
  });

  describe('a platform on another host without RUNYARD_SESSIONS_URL', () => {
    let w: SessionWorld;
    before(async () => {
      w = await sessionWorld({ RUNYARD_PUBLIC_URL: 'https://runyard.example.org' });
    });
    after(() => w?.close());

    it('keeps one origin (the link is a path) and warns at start why, naming RUNYARD_SESSIONS_URL', async () => {
      const warning = w.s.logs.find((l) => l.includes('RUNYARD_SESSIONS_URL'));
      assert.ok(warning, w.s.logs.join('\n'));
      const line = JSON.parse(warning) as { level: number; msg: string };
      assert.equal(line.level, 40, 'a warning');
      assert.match(line.msg, /served on the platform's own origin \(https:\/\/runyard\.example\.org\)/);
      assert.match(line.msg, /can call the API as the person viewing it/);
      const created = await w.session();
      await w.setSessionStatus(created._id, 'ready');
      const r = await call(w.s, 'POST', `/api/runyard/interactive-sessions/${created._id}/ui-link?teamId=${w.ws}`);
      assert.equal(r.statusCode, 200, r.body);
      assert.match(r.json().url as string, new RegExp(`^/api/runyard/interactive-sessions/${created._id}/ui/\\?token=`));
    });
  });
});
