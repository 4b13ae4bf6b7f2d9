import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { assertError, assertIsoTime, call } from './wire.js';

// /api/runyard/admin/*: users, workspaces, members, API keys; admins only.
describe('admin routes', () => {
  let s: TestServer;
  let plain: Tenant;
  before(async () => {
    s = await startTestServer();
    plain = await s.newTenant('plain');
  });
  after(() => s.close());

  const admin = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => call(s, method, `/api/runyard/admin/${path}`, body);
  // Everything an admin can list (a key's last use aside: the failed calls themselves use a key).
  const state = async () =>
    Promise.all(
      ['users', 'workspaces', 'members', 'apikeys'].map(async (p) =>
        (await admin('GET', p)).body.replace(/"lastUsedAt":("[^"]*"|null)/g, ''),
      ),
    );

  it('answers 403 ADMIN_REQUIRED to a non-admin on every admin route, and changes nothing', async () => {
    const before = await state();
    const id = plain.userId;
    const attempts: [string, string, unknown][] = [
      ['GET', 'users', undefined],
      ['POST', 'users', { username: 'sneaky', email: 'sneaky@example.org', isAdmin: true }],
      ['POST', 'users', { not: 'even valid' }],
      ['DELETE', `users/${s.admin.userId}`, undefined],
      ['GET', 'workspaces', undefined],
      ['POST', 'workspaces', { name: 'sneaky ws', ownerId: id }],
      ['GET', 'members', undefined],
      ['POST', 'members', { workspaceId: s.admin.workspaceId, userId: id, role: 'owner' }],
      ['DELETE', `members/${s.admin.workspaceId}/${s.admin.userId}`, undefined],
      ['GET', 'apikeys', undefined],
      ['POST', 'apikeys', { userId: s.admin.userId }],
      ['DELETE', `apikeys/${s.admin.apikey.slice(3, 27)}`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const r = await call(s, method as 'GET', `/api/runyard/admin/${path}`, body, plain.apikey);
      assertError(r, 403, 'ADMIN_REQUIRED');
      assert.doesNotMatch(r.body, /admin@localhost/);
    }
    assert.deepEqual(await state(), before);
    assert.equal((await call(s, 'GET', '/api/v1/users/me')).statusCode, 200, 'the admin key still works');
  });

  it('creates and lists users; 409 on a duplicate username or email', async () => {
    const r = await admin('POST', 'users', { username: 'erin', email: 'erin@example.org', name: 'Erin', surname: 'Ek' });
    assert.equal(r.statusCode, 201);
    const erin = r.json();
    assert.match(erin.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(
      { ...erin, id: 0, createdAt: 0 },
      { id: 0, createdAt: 0, username: 'erin', email: 'erin@example.org', name: 'Erin', surname: 'Ek', isAdmin: false, active: true },
    );
    assertIsoTime(erin.createdAt);
    const users = (await admin('GET', 'users')).json().users;
    assert.deepEqual(
      users.find((u: { id: string }) => u.id === erin.id),
      erin,
    );
    assert.match(
      assertError(await admin('POST', 'users', { username: 'erin', email: 'other@example.org' }), 409, 'USERNAME_TAKEN'),
      /erin/,
    );
    assert.match(
      assertError(await admin('POST', 'users', { username: 'erin2', email: 'erin@example.org' }), 409, 'EMAIL_TAKEN'),
      /erin@example\.org/,
    );
    assert.equal((await admin('GET', 'users')).json().users.length, users.length);
  });

  it('creates a user and a workspace once when requests race for the name: 409 for the others, no 5xx', async () => {
    const users = await Promise.all(
      Array.from({ length: 6 }, (_, i) => admin('POST', 'users', { username: 'racer', email: `racer${i}@example.org` })),
    );
    assert.deepEqual(users.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409]);
    const spaces = await Promise.all(Array.from({ length: 6 }, () => admin('POST', 'workspaces', { name: 'Race track' })));
    assert.deepEqual(spaces.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409]);
    for (const r of spaces.filter((r) => r.statusCode === 409)) assertError(r, 409, 'WORKSPACE_NAME_TAKEN');
  });

  it('refuses unknown keys and bad fields on user creation, naming them', async () => {
    const count = (await admin('GET', 'users')).json().users.length;
    const cases: [unknown, RegExp][] = [
      [{ username: 'finn', email: 'finn@example.org', role: 'admin' }, /unknown key "role"/],
      [{ username: 'finn', email: 'finn@example.org', isAdmin: 'true' }, /isAdmin/],
      [{ username: 'finn', email: 'not-an-email' }, /email/],
      [{ username: '', email: 'finn@example.org' }, /username/],
      [{ username: 'has space', email: 'finn@example.org' }, /username/],
      [{ email: 'finn@example.org' }, /username is required/],
      [{ username: 'finn' }, /email is required/],
    ];
    for (const [body, pattern] of cases) {
      assert.match(assertError(await admin('POST', 'users', body), 400, 'VALIDATION_FAILED'), pattern, JSON.stringify(body));
    }
    assert.equal((await admin('GET', 'users')).json().users.length, count);
  });

  it('creates and lists workspaces; 409 on a duplicate name', async () => {
    const r = await admin('POST', 'workspaces', { name: 'Lab', ownerId: plain.userId });
    assert.equal(r.statusCode, 201);
    const lab = r.json();
    assert.equal(lab.name, 'Lab');
    assert.equal(lab.memberCount, 1);
    const listed = (await admin('GET', 'workspaces')).json().workspaces;
    assert.deepEqual(
      listed.find((w: { id: string }) => w.id === lab.id),
      lab,
    );
    assert.match(assertError(await admin('POST', 'workspaces', { name: 'Lab' }), 409, 'WORKSPACE_NAME_TAKEN'), /Lab/);
    assertError(await admin('POST', 'workspaces', { name: 'Lab 2', ownerId: 'f'.repeat(24) }), 404, 'USER_NOT_FOUND');
    assert.match(assertError(await admin('POST', 'workspaces', { name: '  ' }), 400, 'VALIDATION_FAILED'), /name/);
    assert.match(
      assertError(await admin('POST', 'workspaces', { name: 'Lab 3', extra: 1 }), 400, 'VALIDATION_FAILED'),
      /unknown key "extra"/,
    );
    assert.equal((await admin('GET', 'workspaces')).json().workspaces.length, listed.length);
    // The owner can use it at once.
    assert.equal((await call(s, 'GET', `/api/v2/projects?teamId=${lab.id}`, undefined, plain.apikey)).statusCode, 200);
  });
});

describe('admin: the last active administrator', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it('cannot be deactivated, so the server always keeps an administrator', async () => {
    const r = await call(s, 'DELETE', `/api/runyard/admin/users/${s.admin.userId}`);
    assertError(r, 409, 'LAST_ADMIN');
    assert.equal((await call(s, 'GET', '/api/v1/users/me')).statusCode, 200);
    const other = (await call(s, 'POST', '/api/runyard/admin/users', { username: 'root2', email: 'root2@x.org', isAdmin: true })).json();
    assert.equal((await call(s, 'DELETE', `/api/runyard/admin/users/${other.id}`)).statusCode, 200);
  });
});
