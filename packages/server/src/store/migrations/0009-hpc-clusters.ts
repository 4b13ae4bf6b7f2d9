import type { Kysely } from 'kysely';

/**
 * HPC (Slurm) clusters an administrator registers, and where jobs run on them: a queue of a
 * cluster (backend slurm) with its partition (null: the cluster's default), and the cluster of
 * each job (null: not on a cluster). Lists are JSON text, the same on both databases.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('hpc_clusters')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('submit_prefix', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('partitions', 'text', (c) => c.notNull())
    .addColumn('shared_dir', 'text', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  // No foreign keys on the added columns: SQLite cannot drop a column that has one (down), and
  // clusters are never deleted.
  await db.schema.alterTable('queues').addColumn('hpc_id', 'varchar(24)').execute();
  await db.schema.alterTable('queues').addColumn('partition', 'varchar(100)').execute();
  await db.schema.alterTable('jobs').addColumn('hpc_id', 'varchar(24)').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('hpc_id').execute();
  await db.schema.alterTable('queues').dropColumn('partition').execute();
  await db.schema.alterTable('queues').dropColumn('hpc_id').execute();
  await db.schema.dropTable('hpc_clusters').execute();
}
