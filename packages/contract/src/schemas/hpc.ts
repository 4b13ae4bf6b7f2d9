import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, ObjectId } from './common.js';

/** A Slurm partition name, kept to characters that are safe in an argv element (`--partition=P`) and a message. */
export const PartitionName = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' });

/** A registered HPC (Slurm) cluster. Its id is what a job sends as `hpc` (the seed's hpc_id). */
export const HpcCluster = Type.Object({
  id: ObjectId,
  name: Type.String(),
  /** argv put before every Slurm command (`["ssh", "login1"]`), run without a shell; empty: run them here. */
  submitPrefix: Type.Array(Type.String()),
  /** The first is the default, used by jobs whose queue names none. */
  partitions: Type.Array(Type.String()),
  defaultPartition: Type.String(),
  /** Where the server and every node see the same files. */
  sharedDirectory: Type.String(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type HpcCluster = Static<typeof HpcCluster>;

export const HpcClusterCreateBody = Type.Object(
  {
    // Like a queue name, 4 shorter: the cluster's workspace queues are named `hpc-<name>`.
    name: Type.String({ minLength: 1, maxLength: 96, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
    partitions: Type.Array(PartitionName, { minItems: 1, maxItems: 100 }),
    sharedDirectory: Type.String({ minLength: 1, maxLength: 4096 }),
    submitPrefix: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 64 })),
  },
  { additionalProperties: false },
);
export type HpcClusterCreateBody = Static<typeof HpcClusterCreateBody>;

export const HpcClusterListReply = Type.Object({ clusters: Type.Array(HpcCluster) });
export type HpcClusterListReply = Static<typeof HpcClusterListReply>;
