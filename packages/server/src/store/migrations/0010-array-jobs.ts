import type { Kysely } from 'kysely';

/**
 * Bash array jobs: how many tasks (data rows of the array file) the job runs and how many at once,
 * and, while it runs and after, how many of them are queued, running, completed and failed (JSON
 * text, written by the scheduler that runs it). Null for other jobs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('array_size', 'integer').execute();
  await db.schema.alterTable('jobs').addColumn('array_limit', 'integer').execute();
  await db.schema.alterTable('jobs').addColumn('array_tasks_json', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('array_tasks_json').execute();
  await db.schema.alterTable('jobs').dropColumn('array_limit').execute();
  await db.schema.alterTable('jobs').dropColumn('array_size').execute();
}
