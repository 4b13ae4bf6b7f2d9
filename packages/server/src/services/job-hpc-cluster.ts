import type { Selectable } from 'kysely';
import type { HpcClusterTable, JobTable, QueueTable } from '../store/schema.js';
import { partitionsOf } from './hpc-clusters.js';

/** Where on an HPC cluster a job runs: Runyard's `hpcCluster` key of the job document. */
export interface JobHpcCluster {
  id: string;
  name: string;
  /** Its queue's partition, else the cluster's default. */
  partition: string | null;
  /** Slurm's id of the job, once the executor has submitted it. */
  slurmJobId: string | null;
}

/** The Slurm job id in a task's stored external id (`{"backend":"slurm","jobId":"123",...}`). */
function slurmJobIdOf(externalId: string | null): string | null {
  if (!externalId) return null;
  try {
    const id = JSON.parse(externalId) as { backend?: unknown; jobId?: unknown } | null;
    if (id?.backend !== 'slurm') return null;
    return typeof id.jobId === 'string' || typeof id.jobId === 'number' ? String(id.jobId) : null;
  } catch {
    return null;
  }
}

/** Null for a job that does not run on a cluster (an aws job that carries the public client's default hpc id among them). */
export function hpcClusterKey(
  job: Pick<Selectable<JobTable>, 'external_id'>,
  queue: Pick<Selectable<QueueTable>, 'hpc_id' | 'partition'> | undefined,
  cluster: Selectable<HpcClusterTable> | undefined,
): JobHpcCluster | null {
  if (!cluster) return null;
  const queuePartition = queue?.hpc_id === cluster.id ? queue.partition : null;
  return {
    id: cluster.id,
    name: cluster.name,
    partition: queuePartition ?? partitionsOf(cluster)[0] ?? null,
    slurmJobId: slurmJobIdOf(job.external_id),
  };
}
