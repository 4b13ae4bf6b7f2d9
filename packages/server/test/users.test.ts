import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUser, setMembership } from '@runyard/server';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { assertError, call } from './wire.js';

// GET /api/v1/users/me and GET /api/v1/users/search-assist (wire §2.7, §8.17).
describe('users (wire)', () => {
  let s: TestServer;
  let carol: Tenant;
  before(async () => {
    s = await startTestServer();
    carol = await s.newTenant('carol');
    // Members of the admin's workspace besides the admin; carol is in her own workspace only.
    const add = async (username: string, name: string, surname = '') => {
      const u = await createUser(s.store.db, { username, email: `${username}@example.org`, name, surname });
      await setMembership(s.store.db, s.admin.workspaceId, u.id, 'member');
      return u.id;
    };
    await add('dave', 'Dave', 'Jones');
    await add('x_y', 'Underscore');
    await add('xzy', 'Plain');
    await add('pct', '100%');
  });
  after(() => s.close());

  const search = (q: string | null, teamId = s.admin.workspaceId, apikey = s.admin.apikey) =>
    call(s, 'GET', `/api/v1/users/search-assist?teamId=${teamId}${q === null ? '' : `&q=${q}`}`, undefined, apikey);
  const usernames = async (q: string | null) => {
    const r = await search(q);
    assert.equal(r.statusCode, 200, r.body);
    return (r.json().items as { username: string }[]).map((i) => i.username).sort();
  };

  it('GET /users/me answers the caller without a teamId', async () => {
    const r = await call(s, 'GET', '/api/v1/users/me');
    assert.equal(r.statusCode, 200);
    const me = r.json();
    assert.equal(me.id, s.admin.userId);
    assert.equal(me._id, s.admin.userId);
    assert.equal(me.name, 'Admin');
    assert.equal(me.surname, '');
    assert.equal(me.email, 'admin@localhost');
    assert.ok(Array.isArray(me.dockerRegistriesCredentials));
  });

  it('GET /users/me answers each caller with themselves', async () => {
    const me = (await call(s, 'GET', '/api/v1/users/me', undefined, carol.apikey)).json();
    assert.deepEqual([me.id, me._id, me.name, me.surname, me.email], [carol.userId, carol.userId, 'carol', 'Tester', 'carol@example.org']);
  });

  it('search-assist lists members of the workspace only, in the wire shape', async () => {
    assert.deepEqual(await usernames(''), ['admin', 'dave', 'pct', 'x_y', 'xzy']);
    assert.deepEqual(await usernames(null), ['admin', 'dave', 'pct', 'x_y', 'xzy']);
    const r = await search('dave');
    assert.equal(r.json().items.length, 1);
    const item = r.json().items[0];
    assert.equal(item.username, 'dave');
    assert.equal(item.name, 'Dave');
    assert.match(item.id, /^[0-9a-f]{24}$/);
  });

  it('search-assist never lists users of another workspace', async () => {
    assert.deepEqual(await usernames('carol'), []);
    assert.deepEqual(await usernames('Tester'), []);
    const own = await search('', carol.workspaceId, carol.apikey);
    assert.deepEqual(
      own.json().items.map((i: { username: string }) => i.username),
      ['carol'],
    );
  });

  it('search-assist matches case-insensitively on username, name, surname and display name', async () => {
    assert.deepEqual(await usernames('DAVE'), ['dave']);
    assert.deepEqual(await usernames('jones'), ['dave']);
    assert.deepEqual(await usernames(encodeURIComponent('dave jones')), ['dave']);
  });

  it('search-assist takes % and _ literally', async () => {
    assert.deepEqual(await usernames('x_y'), ['x_y']);
    assert.deepEqual(await usernames('_'), ['x_y']);
    assert.deepEqual(await usernames(encodeURIComponent('%')), ['pct']);
  });

  it('search-assist answers 404 with no data for a workspace the caller is not in', async () => {
    const message = assertError(await search('', s.admin.workspaceId, carol.apikey), 404, 'WORKSPACE_NOT_FOUND');
    assert.doesNotMatch(message, /dave|admin/);
    assertError(await search('', 'None', carol.apikey), 404, 'WORKSPACE_NOT_FOUND');
  });

  it('search-assist refuses a missing teamId with 400 naming it', async () => {
    const r = await call(s, 'GET', '/api/v1/users/search-assist?q=dave');
    assert.match(assertError(r, 400, 'VALIDATION_FAILED'), /teamId/);
  });
});
