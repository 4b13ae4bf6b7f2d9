import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Role } from '@runyard/contract';
import type { Tenant } from '../../../../test/support/server.js';
import { addMember } from '../reliability/members.js';
import { assertError, call } from '../wire.js';
import { engineWorld, withToken, type EngineWorld } from './world.js';

// Who may reach the engine server: the roles of the workspace, and its engine token
// (`Authorization: Bearer`, wire-api §1.2), which acts as a member of its own workspace only and
// is taken on the Cromwell routes alone.

describe('engine server: engine token and roles', { timeout: 120_000 }, () => {
  let w: EngineWorld;
  let other: Tenant;
  const members: Partial<Record<Role, Tenant>> = {};
  let token = '';
  before(async () => {
    // Debug: every request is logged, so that the test can see no token reaches a log line.
    w = await engineWorld({ RUNYARD_LOG_LEVEL: 'debug' });
    other = await w.s.newTenant('other');
    for (const role of ['viewer', 'member', 'admin', 'owner'] as Role[]) members[role] = await addMember(w.s, w.ws, `${role}-user`, role);
    const shown = await call(w.s, 'GET', `/api/runyard/engine-token?teamId=${w.ws}`);
    assert.equal(shown.statusCode, 200, shown.body);
    token = shown.json().token;
  });
  after(() => w.close());

  it('the token is ryc_ and 43 base64url characters; the server stores only its hash and its sealed form', async () => {
    assert.match(token, /^ryc_[A-Za-z0-9_-]{43}$/);
    const row = await w.s.store.db.selectFrom('engine_servers').selectAll().where('workspace_id', '=', w.ws).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(token));
    assert.match(row.token_hash, /^[0-9a-f]{64}$/);
  });

  it('GET and PUT take the token with no apikey, as the Cromwell header sends it', async () => {
    const status = await withToken(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, token);
    assert.equal(status.statusCode, 200, status.body);
    assert.equal(status.json().workspace, w.ws);
    const started = await withToken(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`, token);
    assert.equal(started.statusCode, 200, started.body);
    assert.equal(started.json().status, 'Running');
    const stopped = await withToken(w.s, 'PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`, token);
    assert.equal(stopped.json().status, 'Stopped');
  });

  it('the token wins over an apikey sent with it (a wrong one too); a wrong token is 401 even with a good apikey', async () => {
    const both = await w.s.app.inject({
      method: 'GET',
      url: `/api/v1/cromwell?teamId=${w.ws}`,
      headers: { authorization: `Bearer ${token}`, apikey: 'ry_not_a_key' },
    });
    assert.equal(both.statusCode, 200, both.body);
    const wrong = await w.s.app.inject({
      method: 'GET',
      url: `/api/v1/cromwell?teamId=${w.ws}`,
      headers: { authorization: `Bearer ryc_${'x'.repeat(43)}`, apikey: w.s.admin.apikey },
    });
    assert.match(assertError(wrong, 401, 'UNAUTHENTICATED'), /engine token is not valid/);
  });

  it('a wrong or malformed token is 401, never a 5xx', async () => {
    for (const bad of [`ryc_${'A'.repeat(43)}`, 'ryc_short', 'x'.repeat(5000), w.s.admin.apikey, '%00']) {
      assertError(await withToken(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, bad), 401, 'UNAUTHENTICATED');
      assertError(await withToken(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`, bad), 401, 'UNAUTHENTICATED');
    }
    const empty = await w.s.app.inject({ method: 'GET', url: `/api/v1/cromwell?teamId=${w.ws}`, headers: { authorization: 'Bearer ' } });
    assertError(empty, 401, 'UNAUTHENTICATED');
  });

  it("a workspace's token knows no other workspace: 404 as for any other tenant, nothing made there", async () => {
    for (const [method, url] of [
      ['GET', `/api/v1/cromwell?teamId=${other.workspaceId}`],
      ['PUT', `/api/v1/cromwell/restart?teamId=${other.workspaceId}`],
      ['GET', '/api/v1/cromwell?teamId=0123456789abcdef01234567'],
      ['GET', '/api/v1/cromwell?teamId=None'],
    ] as const) {
      assertError(await withToken(w.s, method, url, token), 404, 'WORKSPACE_NOT_FOUND');
    }
    assertError(await withToken(w.s, 'GET', '/api/v1/cromwell', token), 400, 'VALIDATION_FAILED');
    const made = await w.s.store.db.selectFrom('engine_servers').select('id').where('workspace_id', '=', other.workspaceId).execute();
    assert.deepEqual(made, []);
    // And the other tenant's own key does not reach this workspace's server.
    assertError(await call(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, undefined, other.apikey), 404, 'WORKSPACE_NOT_FOUND');
  });

  it('the token authenticates nothing but the Cromwell routes', async () => {
    for (const [method, url] of [
      ['GET', `/api/v2/projects?teamId=${w.ws}`],
      ['GET', '/api/v1/users/me'],
      ['GET', `/api/runyard/engine-token?teamId=${w.ws}`],
      ['POST', `/api/runyard/engine-token/rotate?teamId=${w.ws}`],
      ['GET', '/api/runyard/admin/users'],
    ] as const) {
      assertError(await withToken(w.s, method, url, token), 401, 'UNAUTHENTICATED');
    }
  });

  it('roles: any role reads the status; member and above start and stop it; admin and owner show and rotate the token', async () => {
    const expect: Record<Role, { get: number; put: number; token: number }> = {
      viewer: { get: 200, put: 403, token: 403 },
      member: { get: 200, put: 200, token: 403 },
      admin: { get: 200, put: 200, token: 200 },
      owner: { get: 200, put: 200, token: 200 },
    };
    for (const [role, e] of Object.entries(expect) as [Role, (typeof expect)[Role]][]) {
      const key = members[role]!.apikey;
      assert.equal((await call(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, undefined, key)).statusCode, e.get, role);
      const put = await call(w.s, 'PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`, undefined, key);
      assert.equal(put.statusCode, e.put, `${role}: ${put.body}`);
      if (e.put === 403) assert.match(assertError(put, 403, 'FORBIDDEN'), /needs the member role/);
      const shown = await call(w.s, 'GET', `/api/runyard/engine-token?teamId=${w.ws}`, undefined, key);
      assert.equal(shown.statusCode, e.token, `${role}: ${shown.body}`);
      if (e.token === 200) assert.equal(shown.json().token, token);
      else assert.ok(!shown.body.includes(token));
      // Choosing the driver is the platform administrator's, whatever the workspace role.
      assertError(await call(w.s, 'PUT', '/api/runyard/admin/engine', { workspaceId: w.ws, driver: 'toil' }, key), 403, 'ADMIN_REQUIRED');
    }
  });

  it('rotate: the new token works at once, the old one no longer', async () => {
    const r = await call(w.s, 'POST', `/api/runyard/engine-token/rotate?teamId=${w.ws}`, undefined, members.owner!.apikey);
    assert.equal(r.statusCode, 200, r.body);
    const fresh = r.json().token as string;
    assert.notEqual(fresh, token);
    assert.equal(r.json().workspace, w.ws);
    assertError(await withToken(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, token), 401, 'UNAUTHENTICATED');
    assert.equal((await withToken(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, fresh)).statusCode, 200);
    assert.equal((await call(w.s, 'GET', `/api/runyard/engine-token?teamId=${w.ws}`)).json().token, fresh);
    const refused = await call(w.s, 'POST', `/api/runyard/engine-token/rotate?teamId=${w.ws}`, undefined, members.member!.apikey);
    assertError(refused, 403, 'FORBIDDEN');
    assert.equal(
      (await withToken(w.s, 'GET', `/api/v1/cromwell?teamId=${w.ws}`, fresh)).statusCode,
      200,
      'a refused rotate changes nothing',
    );
    token = fresh;
  });

  it('no token reaches a log line', () => {
    const logs = w.s.logs.join('\n');
    assert.ok(
      w.s.logs.some((l) => l.includes('/api/v1/cromwell')),
      'requests are logged at debug',
    );
    assert.ok(!/ryc_[A-Za-z0-9_-]{43}/.test(logs), 'an engine token in the logs');
  });
});
