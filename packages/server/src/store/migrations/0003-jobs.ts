import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('queues')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('label', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'varchar(2000)', (c) => c.notNull())
    .addColumn('executor', 'varchar(16)', (c) => c.notNull())
    .addColumn('backend', 'varchar(16)', (c) => c.notNull())
    .addColumn('concurrency', 'integer', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_system', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addUniqueConstraint('queues_workspace_name', ['workspace_id', 'name'])
    .execute();
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('workflow_id', 'varchar(24)', (c) => c.notNull().references('workflows.id'))
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('queue_id', 'varchar(24)', (c) => c.references('queues.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('job_type', 'varchar(32)', (c) => c.notNull())
    .addColumn('workflow_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('execution_platform', 'varchar(16)', (c) => c.notNull())
    .addColumn('request_json', 'text', (c) => c.notNull())
    .addColumn('parameters_json', 'text', (c) => c.notNull())
    .addColumn('revision_json', 'text', (c) => c.notNull())
    .addColumn('profile', 'varchar(300)')
    .addColumn('nextflow_version', 'varchar(50)')
    .addColumn('command', 'text')
    .addColumn('resource_cpu', 'integer', (c) => c.notNull())
    .addColumn('resource_ram', 'double precision', (c) => c.notNull())
    .addColumn('instance_type', 'varchar(100)')
    .addColumn('storage_size_gb', 'integer', (c) => c.notNull())
    .addColumn('cost_limit', 'double precision', (c) => c.notNull())
    .addColumn('compute_cost_cents', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('resumable', 'integer', (c) => c.notNull())
    .addColumn('save_process_logs', 'integer', (c) => c.notNull())
    .addColumn('batch_enabled', 'integer', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived_at', 'varchar(40)')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_expires_at', 'varchar(32)')
    .addColumn('external_id', 'varchar(200)')
    .addColumn('exit_code', 'integer')
    .addColumn('status_message', 'text')
    .addColumn('abort_force', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('resume_work_dir', 'varchar(24)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('start_time', 'varchar(32)')
    .addColumn('end_time', 'varchar(32)')
    .execute();
  await db.schema.createIndex('jobs_workspace_list').on('jobs').columns(['workspace_id', 'archived', 'created_at', 'id']).execute();
  await db.schema.createIndex('jobs_claim').on('jobs').columns(['status', 'queue_id', 'created_at']).execute();
  await db.schema.createIndex('jobs_lease').on('jobs').columns(['lease_owner', 'status']).execute();
  await db.schema.createIndex('jobs_project').on('jobs').columns(['project_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
  await db.schema.dropTable('queues').execute();
}
