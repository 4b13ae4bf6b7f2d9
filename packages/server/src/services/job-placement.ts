import type { JobSubmitBody } from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import type { Database, QueueTable } from '../store/schema.js';
import { getHpcCluster, hpcQueueFor, listHpcClusters } from './hpc-clusters.js';
import { defaultQueueFor, getQueue } from './queues.js';

/** Where a submitted job will run, known before anything is written. */
export interface JobPlacement {
  /** The backend of its queue (what admits it by size). */
  backend: string;
  /** The HPC cluster it runs on; null: not on a cluster. */
  hpcId: string | null;
  /** How many of its queue's jobs run at once; null while the queue is not known (a cluster's workspace queue, made with the job). */
  concurrency: number | null;
  /** Its queue's id. Call it in the job's transaction: a cluster's workspace queue is made then, so a refused job leaves none. */
  queueId(tx: Kysely<Database>): Promise<string>;
}

const ready = (queue: Selectable<QueueTable>): Selectable<QueueTable> => {
  if (queue.status !== 'Ready') throw new AppError('VALIDATION_FAILED', `Job queue ${quoted(queue.label)} is not ready.`);
  return queue;
};

const inQueue = (queue: Selectable<QueueTable>): JobPlacement => ({
  backend: queue.backend,
  hpcId: queue.hpc_id ?? null,
  concurrency: queue.concurrency,
  queueId: async () => queue.id,
});

/**
 * The queue of a job: on `hpc`, the `batch.jobQueue` it names when that is a queue of its cluster,
 * else the cluster's workspace queue. On aws and azure, `hpc` is kept as sent but changes nothing
 * (the public client sends its default hpc id with every job): the named queue, else the default.
 * A queue of a cluster runs its jobs there whatever their platform. An `hpc` job without `hpc` (the
 * public client's bash jobs have no way to send one) runs on the server's cluster when it has one.
 */
export async function placeJob(
  db: Kysely<Database>,
  workspaceId: string,
  body: JobSubmitBody,
  executor: 'nextflow' | 'cromwell',
  module: boolean,
): Promise<JobPlacement> {
  const named = body.batch?.jobQueue;
  if ((body.executionPlatform ?? 'aws') !== 'hpc') {
    return inQueue(ready(named ? await getQueue(db, workspaceId, named) : await defaultQueueFor(db, workspaceId, executor, module)));
  }
  const cluster = body.hpc ? await getHpcCluster(db, body.hpc) : await soleHpcCluster(db);
  if (named) {
    const queue = ready(await getQueue(db, workspaceId, named));
    if (queue.hpc_id !== cluster.id) {
      const what = queue.hpc_id ? 'runs its jobs on another HPC cluster' : 'is a local queue';
      throw new AppError(
        'VALIDATION_FAILED',
        `Job queue ${quoted(queue.label)} ${what}; a job on HPC cluster ${quoted(cluster.name)} needs one of that cluster's queues, ` +
          `or none (its workspace queue hpc-${cluster.name}).`,
      );
    }
    return inQueue(queue);
  }
  return {
    backend: 'slurm',
    hpcId: cluster.id,
    concurrency: null,
    queueId: async (tx) => ready(await hpcQueueFor(tx, workspaceId, cluster.id)).id,
  };
}

/** The cluster of an `hpc` job that names none: the one registered, or a 400 that says what to send. */
async function soleHpcCluster(db: Kysely<Database>) {
  const clusters = await listHpcClusters(db);
  if (clusters.length === 1) return getHpcCluster(db, clusters[0].id);
  const known = clusters.length
    ? `this server has ${clusters.length}: ${clusters.map((c) => `${quoted(c.name)} (${c.id})`).join(', ')}`
    : 'this server has none (runyard admin hpc create)';
  throw new AppError(
    'VALIDATION_FAILED',
    `executionPlatform hpc needs hpc: the id of a registered HPC cluster (runyard job run --hpc-id ID); ${known}.`,
  );
}
