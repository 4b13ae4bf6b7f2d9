import type { Kysely } from 'kysely';

/**
 * Interactive sessions (wire-api §2.11): what the session document shows (configuration, data
 * items, status, costs) and what the runner that starts and stops them keeps: the executor's id of
 * the running session, where its web UI listens and its own token (sealed), its home in the workspace's storage, the price of an hour (from the
 * instance-type catalogue at creation or resume), the run under way and what earlier runs cost,
 * and what a pause asked for. Money is in cents, as for jobs, except the cost limit (dollars, -1: none).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('interactive_sessions')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'varchar(24)', (c) => c.notNull().references('projects.id'))
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addColumn('backend', 'varchar(16)', (c) => c.notNull())
    .addColumn('execution_platform', 'varchar(16)', (c) => c.notNull())
    .addColumn('visibility', 'varchar(16)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('status_message', 'text')
    .addColumn('stop_reason', 'varchar(16)')
    .addColumn('instance_type', 'varchar(100)', (c) => c.notNull())
    .addColumn('cpus', 'double precision', (c) => c.notNull())
    .addColumn('memory_gib', 'double precision', (c) => c.notNull())
    .addColumn('price_per_hour_cents', 'double precision', (c) => c.notNull())
    .addColumn('is_cost_saving', 'integer', (c) => c.notNull())
    .addColumn('storage_size_gb', 'integer', (c) => c.notNull())
    .addColumn('storage_mode', 'varchar(20)', (c) => c.notNull())
    .addColumn('cost_limit', 'double precision', (c) => c.notNull())
    .addColumn('auto_shutdown_at', 'varchar(32)')
    .addColumn('r_version', 'varchar(20)')
    .addColumn('cluster_json', 'text')
    .addColumn('data_items_json', 'text', (c) => c.notNull())
    .addColumn('fuse_file_systems_json', 'text', (c) => c.notNull())
    .addColumn('request_json', 'text', (c) => c.notNull())
    .addColumn('home_bucket', 'varchar(255)', (c) => c.notNull())
    .addColumn('home_prefix', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('ui_address', 'text')
    .addColumn('ui_token_sealed', 'text')
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_expires_at', 'varchar(32)')
    .addColumn('upload_on_close', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('abort_force', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('run_started_at', 'varchar(32)')
    .addColumn('running_seconds', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_cents', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('last_saved_at', 'varchar(32)')
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived_at', 'varchar(40)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('ended_at', 'varchar(32)')
    .execute();
  await db.schema
    .createIndex('interactive_sessions_list')
    .on('interactive_sessions')
    .columns(['workspace_id', 'archived', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('interactive_sessions_status').on('interactive_sessions').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('interactive_sessions').execute();
}
