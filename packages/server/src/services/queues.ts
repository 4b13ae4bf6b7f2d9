import { isoNow, newObjectId, type JobQueue, type QueueCreateBody } from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import { isTaskNetwork } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { getHpcCluster, HPC_QUEUE_CONCURRENCY, partitionsOf } from './hpc-clusters.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { Database, QueueTable } from '../store/schema.js';
import { isUniqueViolation } from '../store/unique-violation.js';

/** Concurrency of the queues a workspace starts with. */
export const DEFAULT_QUEUE_CONCURRENCY = 4;

/** The queues every workspace starts with: a default for Nextflow and bash jobs, one for WDL, and the module queue. */
const STARTER_QUEUES = [
  {
    name: 'default',
    label: 'default',
    description: 'Default queue for Nextflow and bash jobs',
    executor: 'nextflow',
    is_default: 1,
    is_system: 0,
  },
  {
    name: 'default-wdl',
    label: 'default-wdl',
    description: 'Default queue for WDL jobs',
    executor: 'cromwell',
    is_default: 1,
    is_system: 0,
  },
  { name: 'system', label: 'system', description: 'Queue of platform modules', executor: 'nextflow', is_default: 0, is_system: 1 },
] as const;

export function queueToWire(q: Selectable<QueueTable>): JobQueue {
  return {
    id: q.id,
    _id: q.id,
    resource: q.workspace_id,
    name: q.name,
    label: q.label,
    description: q.description,
    isDefault: q.is_default === 1,
    resourceType: q.is_system ? 'systemBatchJobQueue' : 'teamBatchJobQueue',
    executor: q.executor,
    arn: '',
    computeEnvironments: [
      {
        label: `${q.name}-${q.backend}`,
        environment: { backend: q.backend, concurrency: q.concurrency },
        status: 'VALID',
        createdAt: q.created_at,
        updatedAt: q.updated_at,
      },
    ],
    status: q.status,
    backend: q.backend,
    concurrency: q.concurrency,
    taskNetwork: isTaskNetwork(q.task_network) ? q.task_network : null,
    pidsLimit: q.pids_limit ?? null,
    hpcId: q.hpc_id ?? null,
    partition: q.partition ?? null,
    createdAt: q.created_at,
    updatedAt: q.updated_at,
  };
}

const queueNames = preparedQuery((db, p: { workspaceId: string }) =>
  db.selectFrom('queues').select('name').where('workspace_id', '=', p.workspaceId),
);

/** Creates the starter queues of a workspace if it has none yet (idempotent, race-safe). */
export async function ensureStarterQueues(db: Kysely<Database>, workspaceId: string): Promise<void> {
  const existing = await queueNames.execute(db, { workspaceId });
  const have = new Set(existing.map((q) => q.name));
  const now = isoNow();
  for (const q of STARTER_QUEUES) {
    if (have.has(q.name)) continue;
    try {
      await db
        .insertInto('queues')
        .values({
          ...q,
          id: newObjectId(),
          workspace_id: workspaceId,
          backend: 'local',
          concurrency: DEFAULT_QUEUE_CONCURRENCY,
          status: 'Ready',
          created_at: now,
          updated_at: now,
        })
        .execute();
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }
}

export async function listQueues(db: Kysely<Database>, workspaceId: string, system: boolean): Promise<JobQueue[]> {
  await ensureStarterQueues(db, workspaceId);
  const rows = await db
    .selectFrom('queues')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('is_system', '=', system ? 1 : 0)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(queueToWire);
}

export async function getQueue(db: Kysely<Database>, workspaceId: string, id: string): Promise<Selectable<QueueTable>> {
  const row = await db.selectFrom('queues').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('QUEUE_NOT_FOUND', `Job queue ${id} not found in this workspace.`);
  return row;
}

const readyQueues = (db: Kysely<Database>, workspaceId: string) =>
  db.selectFrom('queues').selectAll().where('workspace_id', '=', workspaceId).where('status', '=', 'Ready');
const systemQueue = preparedQuery((db, p: { workspaceId: string }) =>
  readyQueues(db, p.workspaceId).where('is_system', '=', 1).orderBy('created_at').limit(1),
);
const defaultQueue = preparedQuery((db, p: { workspaceId: string; executor: string }) =>
  readyQueues(db, p.workspaceId)
    .where('executor', '=', p.executor)
    .where('is_system', '=', 0)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .limit(1),
);

/** The queue a job without an explicit queue goes to: modules to the system queue, others to the default of their executor. */
export async function defaultQueueFor(
  db: Kysely<Database>,
  workspaceId: string,
  executor: 'nextflow' | 'cromwell',
  module: boolean,
): Promise<Selectable<QueueTable>> {
  const pick = () =>
    module ? systemQueue.executeTakeFirst(db, { workspaceId }) : defaultQueue.executeTakeFirst(db, { workspaceId, executor });
  // The starter queues are made with the workspace's first use of queues (before any other queue
  // but a cluster's) and never removed: once a default (or system) queue is found they exist, and
  // would not come first anyway (the oldest wins). So they are made, and the queue chosen again,
  // only when none is found: one query fewer per submission.
  let row = await pick();
  if (!row || (!module && row.is_default !== 1)) {
    await ensureStarterQueues(db, workspaceId);
    row = await pick();
  }
  if (!row) throw new AppError('QUEUE_NOT_FOUND', `This workspace has no ready ${module ? 'module' : executor} queue.`);
  return row;
}

/** Where a new queue's jobs run: locally, or on a registered cluster (backend slurm) in one of its partitions. */
async function placementOf(
  db: Kysely<Database>,
  body: QueueCreateBody,
): Promise<{ backend: string; hpcId: string | null; partition: string | null }> {
  if (!body.hpcId) {
    if (body.backend === 'slurm')
      throw new AppError('VALIDATION_FAILED', 'A slurm queue needs hpcId: the registered HPC cluster its jobs run on.');
    if (body.partition !== undefined) throw new AppError('VALIDATION_FAILED', 'partition is for queues of an HPC cluster: give hpcId too.');
    return { backend: body.backend ?? 'local', hpcId: null, partition: null };
  }
  if (body.backend === 'local') throw new AppError('VALIDATION_FAILED', 'A queue of an HPC cluster has backend slurm, not local.');
  if (body.pidsLimit !== undefined)
    throw new AppError(
      'VALIDATION_FAILED',
      "pidsLimit is for local queues: on an HPC cluster, the processes of a job are limited by the cluster's own cgroup settings.",
    );
  const cluster = await getHpcCluster(db, body.hpcId);
  const partitions = partitionsOf(cluster);
  if (body.partition !== undefined && !partitions.includes(body.partition)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Partition ${quoted(body.partition)} is not one of HPC cluster ${quoted(cluster.name)}'s: ${partitions.join(', ')}.`,
    );
  }
  return { backend: 'slurm', hpcId: cluster.id, partition: body.partition ?? null };
}

/** An administrator adds a queue to a workspace; making it the default unsets the previous default of that executor. */
export async function createQueue(db: Kysely<Database>, body: QueueCreateBody): Promise<JobQueue> {
  const ws = await db.selectFrom('workspaces').select('id').where('id', '=', body.workspaceId).executeTakeFirst();
  if (!ws) throw new AppError('WORKSPACE_NOT_FOUND', `Workspace ${body.workspaceId} not found.`);
  const placement = await placementOf(db, body);
  await ensureStarterQueues(db, body.workspaceId);
  const now = isoNow();
  const executor = body.executor ?? 'nextflow';
  const row = {
    id: newObjectId(),
    workspace_id: body.workspaceId,
    name: body.name,
    label: body.label ?? body.name,
    description: body.description ?? '',
    executor,
    backend: placement.backend,
    concurrency: body.concurrency ?? (placement.hpcId ? HPC_QUEUE_CONCURRENCY : DEFAULT_QUEUE_CONCURRENCY),
    task_network: body.taskNetwork ?? null,
    pids_limit: body.pidsLimit ?? null,
    hpc_id: placement.hpcId,
    partition: placement.partition,
    is_default: body.isDefault ? 1 : 0,
    is_system: 0,
    status: 'Ready',
    created_at: now,
    updated_at: now,
  };
  try {
    await db.transaction().execute(async (tx) => {
      if (body.isDefault) {
        await tx
          .updateTable('queues')
          .set({ is_default: 0, updated_at: now })
          .where('workspace_id', '=', body.workspaceId)
          .where('executor', '=', executor)
          .execute();
      }
      await tx.insertInto('queues').values(row).execute();
    });
  } catch (e) {
    if (isUniqueViolation(e))
      throw new AppError('QUEUE_NAME_TAKEN', `A queue named ${quoted(body.name)} already exists in workspace ${body.workspaceId}.`);
    throw e;
  }
  return queueToWire(row);
}

export async function listAllQueues(db: Kysely<Database>, workspaceId?: string): Promise<JobQueue[]> {
  let q = db.selectFrom('queues').selectAll().orderBy('created_at');
  if (workspaceId) q = q.where('workspace_id', '=', workspaceId);
  return (await q.execute()).map(queueToWire);
}

/** The queues whose jobs get the host's network (named "<workspace id>/<name>"), for the warning at start. */
export async function queuesOnHostNetwork(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('queues').select(['workspace_id', 'name']).where('task_network', '=', 'host').orderBy('id').execute();
  return rows.map((r) => `${r.workspace_id}/${r.name}`);
}
