import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql, type RawBuilder } from 'kysely';
import { openStore } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';

/** SQLite's plan of a query on a freshly migrated file, one line per step. */
async function planOf(query: RawBuilder<unknown>): Promise<string> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-index-')), 'db.sqlite');
  const migrating = openStore(`sqlite:${file}`);
  await migrateToLatest(migrating.db);
  await migrating.close();
  // A connection opened after the migration: an EXPLAIN is planned on the schema the connection has read.
  const store = openStore(`sqlite:${file}`);
  try {
    const plan = await sql<{ detail: string }>`explain query plan ${query}`.execute(store.db);
    return plan.rows.map((r) => r.detail).join('\n');
  } finally {
    await store.close();
  }
}

describe('query plans', () => {
  // The job list's counts (services/jobs.ts) read an index only, not every job of the workspace (B1 with 100,000 jobs).
  it('the job list counts come from the index jobs_workspace_status alone', async () => {
    const details = await planOf(sql`select count(*) as n, sum(case when status = 'completed' then 1 else 0 end) as completed
      from jobs where workspace_id = ${'w'} and archived = ${0}`);
    assert.match(details, /USING COVERING INDEX jobs_workspace_status/, details);
  });

  // The claim's oldest queued jobs of a queue (scheduler/claim.ts) in the index's order: with
  // thousands queued, a sort of them all cost every pass 0.7 ms (B2).
  it("the claim reads a queue's oldest queued jobs in the order of jobs_claim_order, with no sort", async () => {
    const details = await planOf(sql`select id, queue_id, cpus, memory_gib, created_at from jobs
      where status = ${'queued'} and queue_id = ${'q'} order by created_at, id limit ${8}`);
    assert.match(details, /USING INDEX jobs_claim_order \(status=\? AND queue_id=\?\)/, details);
    assert.doesNotMatch(details, /TEMP B-TREE/, details);
  });
});
