import type { JobQueue } from '@runyard/client';
import { Command, Option } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { integerIn } from '../../options/integer.js';
import { objectId } from '../../options/object-id.js';

export interface QueueCreateOptions extends ConnectionFlags {
  name: string;
  label?: string;
  description?: string;
  concurrency?: number;
  executor?: 'nextflow' | 'cromwell';
  default?: boolean;
  taskNetwork?: 'outbound' | 'host' | 'none';
  pidsLimit?: number;
  hpcId?: string;
  partition?: string;
}

/**
 * Creates a job queue in the workspace (POST /api/runyard/admin/queues; needs an administrator key)
 * and prints its id. Jobs choose it with --job-queue LABEL; --default makes it the executor's default.
 */
export async function queueCreate(opts: QueueCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const queue = await withClient(conn, (client) =>
    client.request<JobQueue>('POST', '/api/runyard/admin/queues', {
      body: {
        workspaceId: conn.workspaceId,
        name: opts.name,
        ...(opts.label !== undefined && { label: opts.label }),
        ...(opts.description !== undefined && { description: opts.description }),
        ...(opts.concurrency !== undefined && { concurrency: opts.concurrency }),
        ...(opts.executor !== undefined && { executor: opts.executor }),
        ...(opts.default && { isDefault: true }),
        ...(opts.taskNetwork !== undefined && { taskNetwork: opts.taskNetwork }),
        ...(opts.pidsLimit !== undefined && { pidsLimit: opts.pidsLimit }),
        ...(opts.hpcId !== undefined && { hpcId: opts.hpcId }),
        ...(opts.partition !== undefined && { partition: opts.partition }),
      },
    }),
  );
  ctx.stdout.write(`${queue.id ?? queue._id}\n`);
  const cluster = queue.hpcId ? `, HPC cluster ${queue.hpcId} partition ${queue.partition ?? '(the default)'}` : '';
  ctx.stderr.write(
    `Job queue "${queue.label}" (${queue.executor}, concurrency ${queue.concurrency}${cluster}` +
      `${queue.taskNetwork ? `, task network ${queue.taskNetwork}` : ''}` +
      `${queue.pidsLimit ? `, at most ${queue.pidsLimit} processes a task` : ''}${queue.isDefault ? ', default' : ''}) ` +
      `created in workspace ${conn.workspaceId}.\n`,
  );
}

export function queueCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('create a job queue in the workspace and print its id (needs an administrator key)')
    .requiredOption('--name <name>', 'name of the queue (letters, digits, _ . -)')
    .option('--label <label>', 'label that jobs choose it by with --job-queue (default: the name)')
    .option('--description <text>', 'description')
    .addOption(new Option('--concurrency <n>', 'jobs it runs at the same time').argParser(integerIn(1, 1024)))
    .addOption(
      new Option('--executor <executor>', 'engine of its jobs: nextflow (and bash jobs) or cromwell (WDL)').choices([
        'nextflow',
        'cromwell',
      ]),
    )
    .option('--default', 'make it the default queue of its executor')
    .addOption(
      new Option(
        '--task-network <network>',
        "what its jobs' tasks may reach: outbound (the internet, not the platform's host), none (only a loopback of their own) or host (the host's network, its services included); default: the server's setting",
      ).choices(['outbound', 'none', 'host']),
    )
    .addOption(
      new Option(
        '--pids-limit <n>',
        'the most processes (threads included) each task of its jobs may have; local queues only (default: 256 per CPU, at least 512)',
      ).argParser(integerIn(64, 4_194_304)),
    )
    .option(
      '--hpc-id <id>',
      'run its jobs on this HPC (Slurm) cluster (an id from "runyard admin hpc list")',
      objectId('cluster', '"runyard admin hpc list"'),
    )
    .option('--partition <partition>', "the cluster's Slurm partition for its jobs (default: the cluster's default)");
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: QueueCreateOptions) => queueCreate(opts, ctx));
}
