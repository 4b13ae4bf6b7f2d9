import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { assertError, call } from './wire.js';

// /api/runyard/admin/members and /api/runyard/admin/apikeys.
describe('admin routes: members and API keys', () => {
  let s: TestServer;
  let owner: Tenant;
  let guest: Tenant;
  before(async () => {
    s = await startTestServer();
    owner = await s.newTenant('olive');
    guest = await s.newTenant('gus');
  });
  after(() => s.close());

  const admin = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => call(s, method, `/api/runyard/admin/${path}`, body);
  const members = async (workspaceId = owner.workspaceId) =>
    (await admin('GET', `members?workspaceId=${workspaceId}`))
      .json()
      .members.map((m: { username: string; role: string }) => `${m.username}:${m.role}`)
      .sort();
  const guestSees = async () => (await call(s, 'GET', `/api/v2/projects?teamId=${owner.workspaceId}`, undefined, guest.apikey)).statusCode;

  it('adds a member (role member by default), who can then use the workspace', async () => {
    assert.equal(await guestSees(), 404);
    const r = await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: guest.userId });
    assert.equal(r.statusCode, 201);
    assert.deepEqual(
      { ...r.json<object>(), createdAt: 0 },
      { workspaceId: owner.workspaceId, userId: guest.userId, username: 'gus', role: 'member', createdAt: 0 },
    );
    assert.deepEqual(await members(), ['gus:member', 'olive:owner']);
    assert.equal(await guestSees(), 200);
  });

  it('changes a role, and refuses an unknown role or unknown ids', async () => {
    assert.equal(
      (await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: guest.userId, role: 'viewer' })).json().role,
      'viewer',
    );
    assert.deepEqual(await members(), ['gus:viewer', 'olive:owner']);
    assert.match(
      assertError(
        await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: guest.userId, role: 'king' }),
        400,
        'VALIDATION_FAILED',
      ),
      /role/,
    );
    assertError(await admin('POST', 'members', { workspaceId: 'f'.repeat(24), userId: guest.userId }), 404, 'WORKSPACE_NOT_FOUND');
    assertError(await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: 'f'.repeat(24) }), 404, 'USER_NOT_FOUND');
    assert.match(
      assertError(await admin('POST', 'members', { workspaceId: 'nope', userId: guest.userId }), 400, 'VALIDATION_FAILED'),
      /workspaceId/,
    );
    assert.deepEqual(await members(), ['gus:viewer', 'olive:owner']);
  });

  it('never removes or demotes the last owner (409), but does once there is another', async () => {
    assertError(await admin('DELETE', `members/${owner.workspaceId}/${owner.userId}`), 409, 'LAST_OWNER');
    assertError(await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: owner.userId, role: 'admin' }), 409, 'LAST_OWNER');
    assert.deepEqual(await members(), ['gus:viewer', 'olive:owner']);
    await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: guest.userId, role: 'owner' });
    assert.equal((await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: owner.userId, role: 'admin' })).statusCode, 201);
    assert.deepEqual(await members(), ['gus:owner', 'olive:admin']);
    assertError(await admin('DELETE', `members/${owner.workspaceId}/${guest.userId}`), 409, 'LAST_OWNER');
    await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: owner.userId, role: 'owner' });
  });

  it('keeps an owner when two owners are demoted or removed at the same time', async () => {
    for (let i = 0; i < 5; i++) {
      const a = await s.newTenant(`race-a${i}`);
      const b = await s.newTenant(`race-b${i}`);
      await admin('POST', 'members', { workspaceId: a.workspaceId, userId: b.userId, role: 'owner' });
      const change = (t: Tenant, remove: boolean) =>
        remove
          ? admin('DELETE', `members/${a.workspaceId}/${t.userId}`)
          : admin('POST', 'members', { workspaceId: a.workspaceId, userId: t.userId, role: 'member' });
      const replies = await Promise.all([change(a, i % 2 === 0), change(b, i % 3 === 0)]);
      assert.deepEqual(replies.map((r) => r.statusCode < 300).sort(), [false, true], replies.map((r) => r.body).join());
      assertError(
        replies.find((r) => r.statusCode >= 300)!,
        409,
        'LAST_OWNER',
      );
      assert.equal((await members(a.workspaceId)).filter((m: string) => m.endsWith(':owner')).length, 1);
    }
  });

  it('adds a user once when the same membership is requested at the same time', async () => {
    const extra = await s.newTenant('extra');
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => admin('POST', 'members', { workspaceId: owner.workspaceId, userId: extra.userId })),
    );
    assert.deepEqual(
      replies.map((r) => r.statusCode),
      [201, 201, 201, 201, 201],
    );
    assert.equal((await members()).filter((m: string) => m.startsWith('extra:')).length, 1);
    assert.equal((await admin('DELETE', `members/${owner.workspaceId}/${extra.userId}`)).statusCode, 200);
  });

  it('removes a member, who then gets 404 for the workspace', async () => {
    await admin('POST', 'members', { workspaceId: owner.workspaceId, userId: guest.userId, role: 'member' });
    const r = await admin('DELETE', `members/${owner.workspaceId}/${guest.userId}`);
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().userId, guest.userId);
    assert.deepEqual(await members(), ['olive:owner']);
    assert.equal(await guestSees(), 404);
    assertError(await admin('DELETE', `members/${owner.workspaceId}/${guest.userId}`), 404, 'MEMBERSHIP_NOT_FOUND');
  });

  it('creates a key that works, lists keys without their secret, and revokes one', async () => {
    const r = await admin('POST', 'apikeys', { userId: guest.userId, name: 'ci' });
    assert.equal(r.statusCode, 201);
    const created = r.json();
    assert.match(created.apikey, /^ry_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.revokedAt, null);
    const me = await call(s, 'GET', '/api/v1/users/me', undefined, created.apikey);
    assert.equal(me.json().id, guest.userId);

    const listed = await admin('GET', `apikeys?userId=${guest.userId}`);
    const secret = created.apikey.slice(28);
    assert.ok(!listed.body.includes(secret), 'a listed key carries its secret');
    const keys = listed.json().apikeys;
    assert.deepEqual(keys.map((k: { name: string }) => k.name).sort(), ['ci', 'gus key']);
    for (const k of keys) assert.ok(!('apikey' in k));
    assert.ok(!(await admin('GET', 'apikeys')).body.includes(secret));

    const revoked = await admin('DELETE', `apikeys/${created.id}`);
    assert.equal(revoked.statusCode, 200);
    assert.ok(!revoked.body.includes(secret));
    assertError(await call(s, 'GET', '/api/v1/users/me', undefined, created.apikey), 401, 'UNAUTHENTICATED');
    assert.equal((await call(s, 'GET', '/api/v1/users/me', undefined, guest.apikey)).statusCode, 200);
    const after = (await admin('GET', `apikeys?userId=${guest.userId}`)).json().apikeys;
    assert.notEqual(after.find((k: { id: string }) => k.id === created.id).revokedAt, null);
  });

  it('refuses keys for unknown users and unknown key ids', async () => {
    assertError(await admin('POST', 'apikeys', { userId: 'f'.repeat(24) }), 404, 'USER_NOT_FOUND');
    assertError(await admin('DELETE', `apikeys/${'f'.repeat(24)}`), 404, 'API_KEY_NOT_FOUND');
    assert.match(
      assertError(await admin('POST', 'apikeys', { userId: guest.userId, scope: 'all' }), 400, 'VALIDATION_FAILED'),
      /unknown key "scope"/,
    );
    assert.match(assertError(await admin('DELETE', 'apikeys/xyz'), 400, 'VALIDATION_FAILED'), /id/);
  });
});
