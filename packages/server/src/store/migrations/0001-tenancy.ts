import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('username', 'varchar(100)', (c) => c.notNull().unique())
    .addColumn('email', 'varchar(200)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('surname', 'varchar(200)', (c) => c.notNull())
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull().unique())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('memberships')
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['workspace_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user').on('memberships').column('user_id').execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('prefix', 'varchar(40)', (c) => c.notNull())
    .addColumn('secret_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('last_used_at', 'varchar(32)')
    .addColumn('revoked_at', 'varchar(32)')
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
  await db.schema
    .createTable('projects')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('workflow_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('job_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('notebook_session_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('projects_workspace_name', ['workspace_id', 'name'])
    .execute();
  await db.schema.createIndex('projects_workspace_created').on('projects').columns(['workspace_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['projects', 'api_keys', 'memberships', 'workspaces', 'users']) {
    await db.schema.dropTable(t).execute();
  }
}
