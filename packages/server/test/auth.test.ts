import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createApiKey } from '@runyard/server';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { assertError, assertIsoTime, call } from './wire.js';

/** The secret part of `ry_<24 hex id>_<secret>`. */
const secretOf = (apikey: string) => apikey.slice('ry_'.length + 24 + 1);

// T6: authentication by the apikey header; the key never leaks into logs, replies or the database.
describe('authentication (T6)', () => {
  let s: TestServer;
  let bob: Tenant;
  /** Every reply this file received, headers included, to look for leaked keys. */
  const replies: string[] = [];
  const me = async (apikey: string | null) => {
    const r = await call(s, 'GET', '/api/v1/users/me', undefined, apikey);
    replies.push(JSON.stringify(r.headers) + r.body);
    return r;
  };
  before(async () => {
    // At debug, every request is logged: the last test looks for keys in those lines.
    s = await startTestServer({ listen: true, env: { RUNYARD_LOG_LEVEL: 'debug' } });
    bob = await s.newTenant('bob');
  });
  after(() => s.close());

  it('answers 401 without a key', async () => {
    assert.match(assertError(await me(null), 401, 'UNAUTHENTICATED'), /apikey/);
    assertError(await call(s, 'GET', `/api/v2/projects?teamId=${bob.workspaceId}`, undefined, null), 401, 'UNAUTHENTICATED');
    assertError(await call(s, 'POST', `/api/v1/projects?teamId=${bob.workspaceId}`, { name: 'x' }, null), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 for malformed and unknown keys', async () => {
    const id = bob.apikey.slice(3, 27);
    const wrongSecret = `ry_${id}_${'A'.repeat(43)}`;
    const unknownId = `ry_${'0'.repeat(24)}_${secretOf(bob.apikey)}`;
    for (const key of [
      '',
      'abc',
      'ry_',
      `ry_${id}`,
      `ry_${id}_short`,
      `${bob.apikey}x`,
      bob.apikey.toUpperCase(),
      `Bearer ${bob.apikey}`,
      wrongSecret,
      unknownId,
    ]) {
      assertError(await me(key), 401, 'UNAUTHENTICATED');
    }
  });

  it('accepts the header in any letter case over real HTTP', async () => {
    for (const header of ['apikey', 'ApiKey', 'APIKEY']) {
      const r = await fetch(`${s.url}/api/v1/users/me`, { headers: { [header]: bob.apikey } });
      const text = await r.text();
      replies.push(JSON.stringify([...r.headers]) + text);
      assert.equal(r.status, 200, `${header}: ${text}`);
      assert.equal(JSON.parse(text).id, bob.userId);
    }
  });

  it('stops accepting a revoked key, while the user’s other keys work', async () => {
    const spare = await createApiKey(s.store.db, bob.userId, 'spare');
    const doomed = await createApiKey(s.store.db, bob.userId, 'doomed');
    assert.equal((await me(doomed.apikey)).statusCode, 200);
    const r = await call(s, 'DELETE', `/api/runyard/admin/apikeys/${doomed.id}`);
    assert.equal(r.statusCode, 200);
    assertIsoTime(r.json().revokedAt, 'revokedAt');
    assertError(await me(doomed.apikey), 401, 'UNAUTHENTICATED');
    assert.equal((await me(spare.apikey)).statusCode, 200);
  });

  it('stops accepting every key of a deactivated user', async () => {
    const gone = await s.newTenant('gone');
    const second = await createApiKey(s.store.db, gone.userId, 'second');
    assert.equal((await me(gone.apikey)).statusCode, 200);
    assert.equal((await call(s, 'DELETE', `/api/runyard/admin/users/${gone.userId}`)).statusCode, 200);
    assertError(await me(gone.apikey), 401, 'UNAUTHENTICATED');
    assertError(await me(second.apikey), 401, 'UNAUTHENTICATED');
    assertError(await call(s, 'GET', `/api/v2/projects?teamId=${gone.workspaceId}`, undefined, gone.apikey), 401, 'UNAUTHENTICATED');
  });

  it('records when a key was last used', async () => {
    const fresh = await createApiKey(s.store.db, bob.userId, 'fresh');
    const row = () => s.store.db.selectFrom('api_keys').select('last_used_at').where('id', '=', fresh.id).executeTakeFirstOrThrow();
    assert.equal((await row()).last_used_at, null);
    const t0 = Date.now();
    assert.equal((await me(fresh.apikey)).statusCode, 200);
    const used = (await row()).last_used_at;
    assertIsoTime(used, 'last_used_at');
    assert.ok(Math.abs(Date.parse(used!) - t0) < 10_000);
    const listed = (await call(s, 'GET', `/api/runyard/admin/apikeys?userId=${bob.userId}`)).json().apikeys;
    assert.equal(listed.find((k: { id: string }) => k.id === fresh.id).lastUsedAt, used);
  });

  it('never writes a key or its secret to a log line', async () => {
    assert.ok(s.logs.length > 10, 'the server logged its requests');
    assert.ok(s.logs.some((l) => l.includes('/api/v1/users/me')));
    for (const key of [s.admin.apikey, bob.apikey]) {
      const leaks = s.logs.filter((l) => l.includes(key) || l.includes(secretOf(key)));
      assert.deepEqual(leaks, []);
    }
  });

  it('never puts a key in a reply', () => {
    assert.ok(replies.length > 10);
    for (const key of [s.admin.apikey, bob.apikey]) {
      assert.deepEqual(
        replies.filter((r) => r.includes(secretOf(key))),
        [],
      );
    }
  });

  it('stores only a hash: no table row holds a key or its secret', async () => {
    const dump = await dumpDatabase(s);
    assert.ok(dump.includes(bob.userId), 'the dump holds the users');
    for (const key of [s.admin.apikey, bob.apikey]) {
      assert.ok(!dump.includes(key), 'a key is stored');
      assert.ok(!dump.includes(secretOf(key)), 'a secret is stored');
      // What is stored instead: the SHA-256 of the secret.
      assert.ok(dump.includes(createHash('sha256').update(secretOf(key)).digest('hex')));
    }
  });
});

/** Every row of every table of the test's database (its own schema on PostgreSQL), as text. */
async function dumpDatabase(s: TestServer): Promise<string> {
  const db = s.store.db;
  let tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (s.store.kind === 'postgres') {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    tables = tables.filter((t) => t.schema === rows[0].schema);
  }
  assert.ok(tables.some((t) => t.name === 'api_keys'));
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await (db as any).selectFrom(t.name).selectAll().execute();
    parts.push(`${t.name}: ${JSON.stringify(rows)}`);
  }
  return parts.join('\n');
}
