import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isoNow, newObjectId, type HpcCluster, type HpcClusterCreateBody } from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import type { Database, HpcClusterTable, QueueTable } from '../store/schema.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import { stringArray } from '../store/hpc-cluster-lookup.js';

type ClusterRow = Selectable<HpcClusterTable>;

/**
 * Concurrency of a cluster's queues: Slurm queues and schedules the jobs itself, so Runyard hands
 * it many at once rather than trickling them in as a local queue does.
 */
export const HPC_QUEUE_CONCURRENCY = 100;

export function partitionsOf(row: Pick<ClusterRow, 'partitions'>): string[] {
  return stringArray(row.partitions);
}

export function hpcClusterToWire(row: ClusterRow): HpcCluster {
  const partitions = partitionsOf(row);
  return {
    id: row.id,
    name: row.name,
    submitPrefix: stringArray(row.submit_prefix),
    partitions,
    defaultPartition: partitions[0] ?? '',
    sharedDirectory: row.shared_dir,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const invalid = (message: string) => new AppError('VALIDATION_FAILED', message);

/** An argv, never shell text: the program alone in its element, as the executor runs it without a shell. */
function checkSubmitPrefix(prefix: string[]): void {
  if (prefix.length && /\s/.test(prefix[0])) {
    throw invalid(
      `submitPrefix is an argv run without a shell: put the program and each argument in an element of their own ` +
        `(["ssh", "login1"], not ["ssh login1"]); ${quoted(prefix[0])} is not a program name.`,
    );
  }
}

function checkPartitions(partitions: string[]): void {
  const seen = new Set<string>();
  for (const p of partitions) {
    if (seen.has(p)) throw invalid(`partitions: ${quoted(p)} is given twice.`);
    seen.add(p);
  }
}

/** The shared directory, normalised; it must already be a directory here, where the server writes jobs' files. */
async function sharedDirectoryOf(dir: string): Promise<string> {
  if (!path.isAbsolute(dir)) {
    throw invalid(
      `sharedDirectory ${quoted(dir)} must be an absolute path: where the server and every node of the cluster see the same files.`,
    );
  }
  const normal = path.resolve(dir);
  const st = await stat(normal).catch(() => null);
  if (!st?.isDirectory()) {
    throw invalid(
      `sharedDirectory ${quoted(normal)} is not a directory on the server host. The server writes jobs' files there and the ` +
        `cluster's nodes read them at the same path: mount the shared filesystem on the server host first.`,
    );
  }
  return normal;
}

/** An administrator registers a Slurm cluster; nothing is written when the input is refused. */
export async function createHpcCluster(db: Kysely<Database>, body: HpcClusterCreateBody): Promise<HpcCluster> {
  const submitPrefix = body.submitPrefix ?? [];
  checkSubmitPrefix(submitPrefix);
  checkPartitions(body.partitions);
  const sharedDir = await sharedDirectoryOf(body.sharedDirectory);
  const now = isoNow();
  const row = {
    id: newObjectId(),
    name: body.name,
    submit_prefix: JSON.stringify(submitPrefix),
    partitions: JSON.stringify(body.partitions),
    shared_dir: sharedDir,
    created_at: now,
    updated_at: now,
  };
  try {
    await db.insertInto('hpc_clusters').values(row).execute();
  } catch (e) {
    if (isUniqueViolation(e))
      throw new AppError('HPC_CLUSTER_NAME_TAKEN', `An HPC cluster named ${quoted(body.name)} is already registered.`);
    throw e;
  }
  return hpcClusterToWire(row);
}

export async function listHpcClusters(db: Kysely<Database>): Promise<HpcCluster[]> {
  const rows = await db.selectFrom('hpc_clusters').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(hpcClusterToWire);
}

/** A registered cluster; 404 naming where the ids are listed otherwise. */
export async function getHpcCluster(db: Kysely<Database>, id: string): Promise<ClusterRow> {
  const row = await db.selectFrom('hpc_clusters').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) {
    throw new AppError(
      'HPC_NOT_FOUND',
      `HPC cluster ${quoted(id)} is not registered on this server; GET /api/runyard/admin/hpc (runyard admin hpc list) lists them.`,
    );
  }
  return row;
}

/**
 * The workspace's queue of a cluster (`hpc-<cluster name>`, the cluster's default partition), made
 * on first use. Race-safe: concurrent callers insert the same name and one row wins; usable inside
 * a transaction (no failed statement), so a job refused later leaves no queue behind.
 */
export async function hpcQueueFor(db: Kysely<Database>, workspaceId: string, clusterId: string): Promise<Selectable<QueueTable>> {
  const cluster = await getHpcCluster(db, clusterId);
  const name = `hpc-${cluster.name}`;
  const now = isoNow();
  await db
    .insertInto('queues')
    .values({
      id: newObjectId(),
      workspace_id: workspaceId,
      name,
      label: name,
      description: `Jobs on HPC cluster ${cluster.name}`,
      executor: 'nextflow',
      backend: 'slurm',
      concurrency: HPC_QUEUE_CONCURRENCY,
      task_network: null,
      hpc_id: cluster.id,
      partition: null,
      is_default: 0,
      is_system: 0,
      status: 'Ready',
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
    .execute();
  const row = await db
    .selectFrom('queues')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  // An administrator may have made a queue of that name first: only a queue of this cluster will do.
  if (row.hpc_id !== cluster.id) {
    throw new AppError(
      'QUEUE_NAME_TAKEN',
      `The queue ${quoted(name)} of this workspace does not run jobs on HPC cluster ${quoted(cluster.name)}, so its jobs have no queue; ` +
        `name a queue of the cluster in batch.jobQueue.`,
    );
  }
  return row;
}
