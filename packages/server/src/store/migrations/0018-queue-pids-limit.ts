import type { Kysely } from 'kysely';

/**
 * A queue's process limit per task (the cgroup pids controller's pids.max). Null: the default,
 * 256 per CPU and at least 512 (executors/sandbox/cgroup.ts). Existing queues keep the default.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('queues').addColumn('pids_limit', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('queues').dropColumn('pids_limit').execute();
}
