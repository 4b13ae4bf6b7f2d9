import type { Kysely } from 'kysely';

/**
 * The claim's oldest queued jobs of a queue (scheduler/claim.ts) in the index's order, id last
 * (the claim orders by created_at, then id): without the id, finding the oldest few sorted every
 * queued job of the queue (0.7 ms a pass on SQLite with thousands queued, B2).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('jobs_claim_order').on('jobs').columns(['status', 'queue_id', 'created_at', 'id']).execute();
  await db.schema.dropIndex('jobs_claim').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'queue_id', 'created_at']).execute();
  await db.schema.dropIndex('jobs_claim_order').execute();
}
