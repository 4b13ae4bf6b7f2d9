import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('workflows')
    .addColumn('id', 'varchar(24)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(24)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('user_id', 'varchar(24)', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('workflow_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('group_name', 'varchar(100)', (c) => c.notNull())
    .addColumn('main_file', 'varchar(500)')
    .addColumn('imports_file', 'varchar(500)')
    .addColumn('platform', 'varchar(32)')
    .addColumn('repository_url', 'varchar(500)')
    .addColumn('repository_name', 'varchar(200)')
    .addColumn('repository_owner', 'varchar(300)')
    .addColumn('repository_id', 'varchar(100)')
    .addColumn('repository_owner_id', 'varchar(100)')
    .addColumn('default_branch', 'varchar(300)')
    .addColumn('is_private', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('container_name', 'varchar(300)')
    .addColumn('default_command', 'text')
    .addColumn('docs_link', 'varchar(2000)', (c) => c.notNull())
    .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cost_limit_usd', 'double precision', (c) => c.notNull())
    .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('archived_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('workflows_workspace_name').on('workflows').columns(['workspace_id', 'name']).execute();
  await db.schema.createIndex('workflows_workspace_created').on('workflows').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('workflows_workspace_repository').on('workflows').columns(['workspace_id', 'repository_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('workflows').execute();
}
