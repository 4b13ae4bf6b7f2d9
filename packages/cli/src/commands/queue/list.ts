import type { JobQueue } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { recordsOf } from '../../output/records.js';

export interface QueueListOptions extends ConnectionFlags, ListOutputFlags {
  allFields?: boolean;
  excludeSystemQueues?: boolean;
}

export const QUEUE_VIEW: ListView<JobQueue> = {
  noun: 'job queues',
  columns: [
    { header: 'ID', value: (q) => q.id ?? q._id },
    { header: 'LABEL', value: (q) => q.label },
    { header: 'EXECUTOR', value: (q) => q.executor },
    { header: 'DEFAULT', value: (q) => q.isDefault },
    { header: 'STATUS', value: (q) => q.status },
    { header: 'TYPE', value: (q) => q.resourceType },
    { header: 'BACKEND', value: (q) => q.backend },
    { header: 'CONCURRENCY', value: (q) => q.concurrency },
    { header: 'NETWORK', value: (q) => q.taskNetwork ?? 'server default' },
    { header: 'PROCESSES', value: (q) => q.pidsLimit ?? 'by CPUs' },
    { header: 'HPC CLUSTER', value: (q) => q.hpcId ?? '' },
    { header: 'PARTITION', value: (q) => q.partition ?? (q.hpcId ? "cluster's default" : '') },
  ],
  records: recordsOf<JobQueue>([
    'id',
    'name',
    'label',
    'description',
    'executor',
    'isDefault',
    'status',
    'resourceType',
    'backend',
    'concurrency',
    'taskNetwork',
    'pidsLimit',
    'hpcId',
    'partition',
  ]),
};

/** The job queues of the workspace, then the system queues of platform modules (unless excluded). */
export async function queueList(opts: QueueListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const queues = await withClient(conn, (client) =>
    client.getJobQueues(conn.workspaceId, { excludeSystemQueues: Boolean(opts.excludeSystemQueues) }),
  );
  if (!queues.length) throw new CliError(`No job queues found in workspace ${conn.workspaceId}.`);
  await emitList(queues, QUEUE_VIEW, opts, ctx);
}

export function queueListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the job queues of the workspace');
  addListOutputOptions(cmd);
  cmd
    .option('--all-fields', 'every field of the queue documents (table and csv)')
    .option('--exclude-system-queues', 'leave out the queues of platform modules');
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: QueueListOptions) => queueList(opts, ctx));
}
