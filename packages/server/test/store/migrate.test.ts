import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { freshDatabaseUrl, usingPostgres } from '../../../../test/support/database.js';
import { openStore, type Store } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { withSchemaIntrospection } from '../../src/store/schema-introspector.js';

// Migrations on the test's database (SQLite, or PostgreSQL with RUNYARD_TEST_DATABASE_URL).
describe('migrations', () => {
  const stores: Store[] = [];
  const open = async () => {
    const store = openStore(await freshDatabaseUrl());
    stores.push(store);
    return store;
  };
  after(async () => {
    for (const store of stores) await store.close();
  });

  it('make a fresh database, and a second run finds everything done', async () => {
    const store = await open();
    await migrateToLatest(store.db);
    const applied = await store.db
      .selectFrom('runyard_migrations' as never)
      .select(sql<string>`name`.as('name'))
      .execute();
    assert.ok(applied.length >= 17, `${applied.length} migrations recorded`);
    await migrateToLatest(store.db);
    const again = await store.db
      .selectFrom('runyard_migrations' as never)
      .select(sql<string>`name`.as('name'))
      .execute();
    assert.deepEqual(again, applied);
    assert.deepEqual(await store.db.selectFrom('projects').selectAll().execute(), []);
  });

  it(
    "on PostgreSQL, see only their own schema's tables: a migrated schema beside them is not taken for theirs",
    { skip: !usingPostgres() && 'PostgreSQL only (RUNYARD_TEST_DATABASE_URL)' },
    async () => {
      const done = await open();
      await migrateToLatest(done.db);
      const fresh = await open();
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(fresh.db)).rows[0]!.s;
      const scoped = withSchemaIntrospection(fresh.db, schema);
      assert.deepEqual(await scoped.introspection.getTables(), []);
      await migrateToLatest(fresh.db);
      const tables = (await scoped.introspection.getTables()).map((t) => t.name);
      assert.ok(tables.includes('runyard_migrations') && tables.includes('jobs'), tables.join(', '));
      assert.ok(tables.every((name) => !name.startsWith('pg_')));
      // The proxy is the database itself for everything else.
      assert.deepEqual(await scoped.selectFrom('projects').selectAll().execute(), []);
    },
  );
});
