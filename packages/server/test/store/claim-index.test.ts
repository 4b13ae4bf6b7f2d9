import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';

// The claim's oldest queued jobs of a queue (scheduler/claim.ts) are read in the index's order:
// with thousands queued, a sort of them all cost every pass 0.7 ms (B2).
describe('the claim index', () => {
  it("gives a queue's oldest queued jobs in order, with no sort (SQLite query plan)", async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-index-')), 'db.sqlite');
    const migrating = openStore(`sqlite:${file}`);
    await migrateToLatest(migrating.db);
    await migrating.close();
    // A connection opened after the migration: an EXPLAIN is planned on the schema the connection has read.
    const store = openStore(`sqlite:${file}`);
    try {
      const plan = await sql<{ detail: string }>`explain query plan
        select id, queue_id, cpus, memory_gib, created_at from jobs
        where status = ${'queued'} and queue_id = ${'q'} order by created_at, id limit ${8}`.execute(store.db);
      const details = plan.rows.map((r) => r.detail).join('\n');
      assert.match(details, /USING INDEX jobs_claim_order \(status=\? AND queue_id=\?\)/, details);
      assert.doesNotMatch(details, /TEMP B-TREE/, details);
    } finally {
      await store.close();
    }
  });
});
