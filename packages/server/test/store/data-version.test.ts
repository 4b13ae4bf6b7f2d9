import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';

// Store.dataVersion: what the read caches (http/read-caches.ts) trust to see every commit.
describe('a SQLite store’s data version', () => {
  const fresh = async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-version-')), 'db.sqlite');
    const store = openStore(`sqlite:${file}`);
    await sql`create table t (x integer)`.execute(store.db);
    await sql`insert into t values (1), (2), (3)`.execute(store.db);
    return { file, store };
  };

  it('changes with a commit by the store itself and by another connection, and not without one', async () => {
    const { file, store } = await fresh();
    const other = openStore(`sqlite:${file}`);
    try {
      const v0 = store.dataVersion!();
      await sql`select count(*) from t`.execute(store.db);
      assert.equal(store.dataVersion!(), v0, 'a read is no commit');
      await sql`insert into t values (4)`.execute(store.db);
      const v1 = store.dataVersion!();
      assert.notEqual(v1, v0);
      await sql`insert into t values (5)`.execute(other.db);
      assert.notEqual(store.dataVersion!(), v1);
    } finally {
      await other.close();
      await store.close();
    }
  });

  it('changes while a read is streaming on the store’s read-only connection', async () => {
    const { file, store } = await fresh();
    const other = openStore(`sqlite:${file}`);
    try {
      const rows = store.db
        .selectFrom('t' as never)
        .select(sql`x`.as('x'))
        .stream();
      await rows.next();
      const before = store.dataVersion!();
      await sql`insert into t values (6)`.execute(other.db);
      assert.notEqual(store.dataVersion!(), before);
      await rows.return?.();
    } finally {
      await other.close();
      await store.close();
    }
  });
});
