import type { Kysely } from 'kysely';

/**
 * A queue's task network (`host` or `none`): what the tasks of its jobs may reach. Null: the
 * server's RUNYARD_TASK_NETWORK. Existing queues keep following the server's setting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('queues').addColumn('task_network', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('queues').dropColumn('task_network').execute();
}
