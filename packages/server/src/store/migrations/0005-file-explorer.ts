import type { Kysely } from 'kysely';

/**
 * The File Explorer: per project the datasets Data, Analyses Results and Cohorts; folders
 * (virtual, or pointing into a bucket/container) and files (pointing to an object), each with its
 * deletion status; and on each job the folders of its results and work directory.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('datasets')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('kind', 'varchar(20)', (c) => c.notNull())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('datasets_project_kind', ['project_id', 'kind'])
    .execute();
  await db.schema.createIndex('datasets_workspace').on('datasets').columns(['workspace_id']).execute();

  for (const table of ['folders', 'files'] as const) {
    let t = db.schema
      .createTable(table)
      .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
      .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
      .addColumn('name', 'varchar(200)', (c) => c.notNull())
      .addColumn('item_type', 'varchar(20)', (c) => c.notNull())
      // Dataset, Folder, or (the work directory of a job) Job.
      .addColumn('parent_kind', 'varchar(10)', (c) => c.notNull())
      .addColumn('parent_id', 'varchar(24)', (c) => c.notNull())
      // Where it points: a bucket (S3, local) or container (Azure), and an account for Azure.
      .addColumn('bucket', 'varchar(255)')
      .addColumn('account', 'varchar(255)')
      // A folder's prefix (no trailing slash) or a file's key.
      .addColumn('storage_key', 'varchar(1024)')
      .addColumn('size_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('is_managed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
      .addColumn('status', 'varchar(24)', (c) => c.notNull().defaultTo('ready'))
      .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
      .addColumn('updated_at', 'varchar(32)', (c) => c.notNull());
    if (table === 'folders') {
      t = t
        // The job that made it, and which of its directories it is (results or work).
        .addColumn('job_id', 'varchar(24)')
        .addColumn('job_role', 'varchar(10)')
        .addColumn('status_message', 'text')
        .addColumn('deleted_by', 'varchar(24)')
        .addColumn('deletion_date', 'varchar(32)');
    }
    await t.execute();
    await db.schema.createIndex(`${table}_parent`).on(table).columns(['parent_id', 'name']).execute();
    await db.schema.createIndex(`${table}_workspace_bucket`).on(table).columns(['workspace_id', 'bucket']).execute();
  }
  await db.schema.createIndex('folders_status').on('folders').columns(['status', 'updated_at']).execute();

  await db.schema.alterTable('jobs').addColumn('results_folder_id', 'varchar(24)').execute();
  await db.schema.alterTable('jobs').addColumn('work_folder_id', 'varchar(24)').execute();
  // Where the engine finds the work directory: the folder's bucket and prefix (a resumed job's is its parent's).
  await db.schema.alterTable('jobs').addColumn('work_bucket', 'varchar(255)').execute();
  await db.schema.alterTable('jobs').addColumn('work_prefix', 'varchar(1024)').execute();
  await db.schema.createIndex('jobs_work_folder').on('jobs').columns(['work_folder_id', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('jobs_work_folder').execute();
  for (const c of ['work_prefix', 'work_bucket', 'work_folder_id', 'results_folder_id'])
    await db.schema.alterTable('jobs').dropColumn(c).execute();
  await db.schema.dropTable('files').execute();
  await db.schema.dropTable('folders').execute();
  await db.schema.dropTable('datasets').execute();
}
