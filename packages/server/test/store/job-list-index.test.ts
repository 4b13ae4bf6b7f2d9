import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';

// The job list's counts (services/jobs.ts) read an index only, not every job of the workspace (B1 with 100,000 jobs).
describe('job list counts', () => {
  it('come from the index jobs_workspace_status alone (SQLite query plan)', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-index-')), 'db.sqlite');
    const migrating = openStore(`sqlite:${file}`);
    await migrateToLatest(migrating.db);
    await migrating.close();
    // A connection opened after the migration: an EXPLAIN is planned on the schema the connection has read.
    const store = openStore(`sqlite:${file}`);
    try {
      const plan = await sql<{ detail: string }>`explain query plan
        select count(*) as n, sum(case when status = 'completed' then 1 else 0 end) as completed
        from jobs where workspace_id = ${'w'} and archived = ${0}`.execute(store.db);
      const details = plan.rows.map((r) => r.detail).join('\n');
      assert.match(details, /USING COVERING INDEX jobs_workspace_status/, details);
    } finally {
      await store.close();
    }
  });
});
