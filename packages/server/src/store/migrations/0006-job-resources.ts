import { sql, type Kysely } from 'kysely';
import { BUILT_IN_INSTANCE_TYPES, DEFAULT_INSTANCE_TYPE } from '../../instance-types/catalogue.js';

/**
 * The CPUs and memory a job's task is given, fixed at submission (instance-types/job-resources.ts):
 * what the claim sums over the active jobs to admit a job only when they are free. Jobs from
 * before are filled in as submission would have (a bash job's, or one without an instance type's,
 * cpu/ram; else its instance type's size in the built-in catalogue, else the default type's).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('cpus', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('jobs')
    .addColumn('memory_gib', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update jobs set cpus = resource_cpu, memory_gib = resource_ram where workflow_type = 'docker' or instance_type is null`.execute(
    db,
  );
  const fallback = BUILT_IN_INSTANCE_TYPES.find((t) => t.name === DEFAULT_INSTANCE_TYPE)!;
  await sql`update jobs set cpus = ${fallback.vcpus}, memory_gib = ${fallback.memoryGiB}
    where workflow_type <> 'docker' and instance_type is not null`.execute(db);
  for (const t of BUILT_IN_INSTANCE_TYPES) {
    await sql`update jobs set cpus = ${t.vcpus}, memory_gib = ${t.memoryGiB}
      where workflow_type <> 'docker' and instance_type = ${t.name}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('jobs').dropColumn('memory_gib').execute();
  await db.schema.alterTable('jobs').dropColumn('cpus').execute();
}
