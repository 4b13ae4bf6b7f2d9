import type { Kysely } from 'kysely';

/**
 * What a job's document says when the local executor gives it less than it asked for
 * (instance-types/job-resources.ts cappedNote): "asked for c5.xlarge: 4 vCPUs, 8 GiB; this server
 * gives at most 2 vCPUs, ...". Null: it runs with what it asked for.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').addColumn('resources_note', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('resources_note').execute();
}
