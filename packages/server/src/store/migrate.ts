import { Migrator, PostgresAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { withSchemaIntrospection } from './schema-introspector.js';
import * as tenancy from './migrations/0001-tenancy.js';
import * as workflows from './migrations/0002-workflows.js';
import * as jobs from './migrations/0003-jobs.js';
import * as listOrderIndexes from './migrations/0004-list-order-indexes.js';
import * as fileExplorer from './migrations/0005-file-explorer.js';
import * as jobResources from './migrations/0006-job-resources.js';
import * as queueNetwork from './migrations/0007-queue-network.js';
import * as externalIdText from './migrations/0008-external-id-text.js';
import * as hpcClusters from './migrations/0009-hpc-clusters.js';
import * as arrayJobs from './migrations/0010-array-jobs.js';
import * as dockerRegistries from './migrations/0011-docker-registries.js';
import * as engineServers from './migrations/0012-engine-servers.js';
import * as interactiveSessions from './migrations/0013-interactive-sessions.js';
import * as sessionMounts from './migrations/0014-session-mounts.js';
import * as webSessions from './migrations/0015-web-sessions.js';
import * as jobsStatusIndex from './migrations/0016-jobs-status-index.js';
import * as jobsClaimOrder from './migrations/0017-jobs-claim-order.js';
import * as queuePidsLimit from './migrations/0018-queue-pids-limit.js';
import * as uploadsManaged from './migrations/0019-uploads-managed.js';
import * as jobsResourcesNote from './migrations/0020-jobs-resources-note.js';
import * as jobsImageDigest from './migrations/0021-jobs-image-digest.js';
import * as sessionImage from './migrations/0022-session-image.js';

/** Migrations in order; names sort, and a new one is a new file added here. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-tenancy': tenancy,
  '0002-workflows': workflows,
  '0003-jobs': jobs,
  '0004-list-order-indexes': listOrderIndexes,
  '0005-file-explorer': fileExplorer,
  '0006-job-resources': jobResources,
  '0007-queue-network': queueNetwork,
  '0008-external-id-text': externalIdText,
  '0009-hpc-clusters': hpcClusters,
  '0010-array-jobs': arrayJobs,
  '0011-docker-registries': dockerRegistries,
  '0012-engine-servers': engineServers,
  '0013-interactive-sessions': interactiveSessions,
  '0014-session-mounts': sessionMounts,
  '0015-web-sessions': webSessions,
  '0016-jobs-status-index': jobsStatusIndex,
  '0017-jobs-claim-order': jobsClaimOrder,
  '0018-queue-pids-limit': queuePidsLimit,
  '0019-uploads-managed': uploadsManaged,
  '0020-jobs-resources-note': jobsResourcesNote,
  '0021-jobs-image-digest': jobsImageDigest,
  '0022-session-image': sessionImage,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  // On PostgreSQL the bookkeeping tables live in the connection's own schema: the migrator would
  // otherwise take a same-named table in another schema for its own.
  const schema =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0].s
      : undefined;
  const migrator = new Migrator({
    db: schema ? withSchemaIntrospection(db, schema) : db,
    provider,
    migrationTableName: 'runyard_migrations',
    migrationLockTableName: 'runyard_migrations_lock',
    ...(schema && { migrationTableSchema: schema }),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ''} failed: ${(error as Error)?.message ?? error}`);
  }
}
