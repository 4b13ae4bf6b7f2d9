import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { isoNow, newObjectId } from '@runyard/contract';
import { freshDatabaseUrl } from '../../../../test/support/database.js';
import { openStore, type Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { insertRows, preparedQuery } from '../../src/store/prepared-query.js';

// Queries compiled once and run with new values (store/prepared-query.ts), on the test's database
// (SQLite, or PostgreSQL with RUNYARD_TEST_DATABASE_URL: its SQL has $1-style parameters).
describe('prepared queries', () => {
  let store: Store;
  const workspaceId = newObjectId();
  const userId = newObjectId();
  before(async () => {
    store = openStore(await freshDatabaseUrl());
    await migrateToLatest(store.db);
    const now = isoNow();
    await store.db
      .insertInto('users')
      .values({ id: userId, username: 'u', email: 'u@example.org', name: 'U', surname: 'U', is_admin: 0, active: 1, created_at: now })
      .execute();
    await store.db.insertInto('workspaces').values({ id: workspaceId, name: 'w', created_at: now }).execute();
  });
  after(() => store.close());

  const project = (name: string) => ({
    id: newObjectId(),
    workspace_id: workspaceId,
    name,
    user_id: userId,
    created_at: isoNow(),
    updated_at: isoNow(),
  });
  const byName = preparedQuery((db, p: { workspaceId: string; name: string }) =>
    db.selectFrom('projects').select(['id', 'name', 'job_count']).where('workspace_id', '=', p.workspaceId).where('name', '=', p.name),
  );

  it('runs with the values of each call, not those of the first', async () => {
    const [a, b] = [project('alpha'), project('beta')];
    await insertRows(store.db, 'projects', [a, b]);
    assert.equal((await byName.executeTakeFirst(store.db, { workspaceId, name: 'alpha' }))?.id, a.id);
    assert.equal((await byName.executeTakeFirst(store.db, { workspaceId, name: 'beta' }))?.id, b.id);
    assert.equal(await byName.executeTakeFirst(store.db, { workspaceId: newObjectId(), name: 'beta' }), undefined);
    assert.deepEqual(await byName.execute(store.db, { workspaceId, name: 'gamma' }), []);
  });

  it('keeps the constants the builder gave, and runs in a transaction as outside it', async () => {
    const c = project('counted');
    await insertRows(store.db, 'projects', [c]);
    const countOne = preparedQuery((db, p: { id: string }) =>
      db
        .updateTable('projects')
        .set((eb) => ({ job_count: eb('job_count', '+', 3) }))
        .where('id', '=', p.id),
    );
    assert.equal((await countOne.run(store.db, { id: c.id })).numAffectedRows, 1n);
    await store.db.transaction().execute(async (tx) => {
      assert.equal((await countOne.run(tx, { id: c.id })).numAffectedRows, 1n);
      assert.equal((await countOne.run(tx, { id: newObjectId() })).numAffectedRows, 0n);
    });
    assert.equal(Number((await byName.executeTakeFirst(store.db, { workspaceId, name: 'counted' }))?.job_count), 6);
  });

  it('refuses a slot that is not a parameter of its own, when first run', async () => {
    const inPattern = preparedQuery((db, p: { name: string }) =>
      db.selectFrom('projects').select('id').where('name', 'like', `%${p.name}%`),
    );
    await assert.rejects(inPattern.execute(store.db, { name: 'a' }), /a slot is inside a larger value/);
    const inText = preparedQuery((db, p: { column: string }) => db.selectFrom('projects').select(sql.raw<string>(p.column).as('x')));
    await assert.rejects(inText.execute(store.db, { column: 'id' }), /slot column is not a parameter/);
  });

  it('inserts rows of one shape, leaving out undefined columns, and refuses rows of different shapes', async () => {
    const d = { ...project('delta'), job_count: undefined };
    await insertRows(store.db, 'projects', [d]);
    assert.equal((await byName.executeTakeFirst(store.db, { workspaceId, name: 'delta' }))?.id, d.id);
    const [e, f] = [project('epsilon'), { ...project('zeta'), job_count: 5 }];
    await assert.rejects(insertRows(store.db, 'projects', [e, f]), /do not all have the same columns/);
    assert.equal(await byName.executeTakeFirst(store.db, { workspaceId, name: 'epsilon' }), undefined);
    // Same columns in another order: the statement of that order, with each value in its place.
    const { name, id, ...rest } = project('eta');
    await insertRows(store.db, 'projects', [{ name, ...rest, id }]);
    assert.equal((await byName.executeTakeFirst(store.db, { workspaceId, name: 'eta' }))?.id, id);
  });
});
