import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isoNow, newObjectId } from '@runyard/contract';
import { ReadCaches } from '../../src/http/read-caches.js';
import { openStore } from '../../src/store/database.js';
import type { AuthUser } from '../../src/services/context.js';
import { startTestServer, type TestServer } from '../../../../test/support/server.js';
import { assertError, call } from '../wire.js';

const someone: AuthUser = { id: 'u1', username: 'u', name: 'U', surname: 'V', email: 'u@example.org', isAdmin: false };

describe('read caches: kept until the next commit', () => {
  it('serializes a reply once per database version', async () => {
    let version = 1;
    let made = 0;
    const caches = new ReadCaches(() => version);
    const make = async () => `{"n":${++made}}`;
    assert.equal((await caches.reply('k', make)).toString(), '{"n":1}');
    assert.equal((await caches.reply('k', make)).toString(), '{"n":1}');
    assert.equal((await caches.reply('other', make)).toString(), '{"n":2}');
    version = 2;
    assert.equal((await caches.reply('k', make)).toString(), '{"n":3}');
  });

  it('keeps a reply at the version read before it was made, so a commit while it is made leaves it stale', async () => {
    let version = 1;
    let made = 0;
    const caches = new ReadCaches(() => version);
    const make = async () => {
      made++;
      version++; // a commit by someone else while the reads ran
      return '{}';
    };
    await caches.reply('k', make);
    await caches.reply('k', make);
    assert.equal(made, 2);
  });

  it('keeps an accepted key, never a refused one, and a role only for a member', async () => {
    const caches = new ReadCaches(() => 1);
    let checks = 0;
    assert.equal(await caches.user('key', async () => (checks++, null)), null);
    assert.equal(await caches.user('key', async () => (checks++, null)), null);
    assert.equal(checks, 2);
    assert.equal(await caches.user('good', async () => (checks++, someone)), someone);
    assert.equal(await caches.user('good', async () => (checks++, null)), someone);
    assert.equal(checks, 3);
    let lookups = 0;
    const refuse = async (): Promise<string> => {
      lookups++;
      throw new Error('not a member');
    };
    await assert.rejects(caches.role('u1', 'w1', refuse));
    await assert.rejects(caches.role('u1', 'w1', refuse));
    assert.equal(lookups, 2);
    assert.equal(await caches.role('u1', 'w2', async () => (lookups++, 'member')), 'member');
    assert.equal(await caches.role('u1', 'w2', async () => (lookups++, 'viewer')), 'member');
    assert.equal(lookups, 3);
  });
});

// The same through the server: what another connection commits is seen by the next request.
describe('read caches: a server sees every commit at once', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const total = async (apikey = s.admin.apikey, teamId = s.admin.workspaceId) => {
    const r = await call(s, 'GET', `/api/v2/projects?teamId=${teamId}&pageSize=10`, undefined, apikey);
    assert.equal(r.statusCode, 200, r.body);
    return (r.json() as { total: number }).total;
  };

  it('lists a project that another connection inserted', async () => {
    const before = await total();
    assert.equal(await total(), before);
    const other = openStore(s.config.databaseUrl);
    try {
      const { id: userId } = await other.db.selectFrom('users').select('id').where('username', '=', 'admin').executeTakeFirstOrThrow();
      const now = isoNow();
      await other.db
        .insertInto('projects')
        .values({
          id: newObjectId(),
          workspace_id: s.admin.workspaceId,
          name: 'from-elsewhere',
          user_id: userId,
          created_at: now,
          updated_at: now,
        })
        .execute();
    } finally {
      await other.close();
    }
    assert.equal(await total(), before + 1);
  });

  it('refuses a key revoked by another connection, and a member removed by one', async () => {
    const carol = await s.newTenant('carol');
    assert.equal(await total(carol.apikey, carol.workspaceId), 0);
    assert.equal(await total(carol.apikey, carol.workspaceId), 0);
    const other = openStore(s.config.databaseUrl);
    try {
      await other.db.deleteFrom('memberships').where('user_id', '=', carol.userId).execute();
      const r = await call(s, 'GET', `/api/v2/projects?teamId=${carol.workspaceId}`, undefined, carol.apikey);
      assertError(r, 404, 'WORKSPACE_NOT_FOUND');
      await other.db.updateTable('api_keys').set({ revoked_at: isoNow() }).where('user_id', '=', carol.userId).execute();
      assertError(await call(s, 'GET', '/api/v1/users/me', undefined, carol.apikey), 401, 'UNAUTHENTICATED');
    } finally {
      await other.close();
    }
  });
});
