import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { repeatable } from '../../../options/repeatable.js';

export interface HpcCreateOptions extends ConnectionFlags {
  name: string;
  partition: string[];
  sharedDirectory: string;
  submitPrefix?: string[];
}

/** Registers a Slurm cluster and prints its id: the --hpc-id of jobs and queues. */
export async function hpcCreate(opts: HpcCreateOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const cluster = await withClient(conn, (c) =>
    c.admin.createHpcCluster({
      name: opts.name,
      partitions: opts.partition,
      sharedDirectory: opts.sharedDirectory,
      ...(opts.submitPrefix && { submitPrefix: opts.submitPrefix }),
    }),
  );
  ctx.stdout.write(`${cluster.id}\n`);
  const prefix = cluster.submitPrefix.length ? `, Slurm commands run through ${JSON.stringify(cluster.submitPrefix)}` : '';
  ctx.stderr.write(
    `HPC cluster "${cluster.name}" registered (partitions ${cluster.partitions.join(', ')}, default ${cluster.defaultPartition}; ` +
      `shared directory ${cluster.sharedDirectory}${prefix}).\n`,
  );
}

export function hpcCreateCommand(ctx: CliContext): Command {
  const cmd = new Command('create')
    .description('register an HPC (Slurm) cluster and print its id')
    .requiredOption('--name <name>', 'name of the cluster (letters, digits, _ . -)')
    .requiredOption('--partition <partition>', 'a Slurm partition jobs may use; repeat for more (the first is the default)', repeatable)
    .requiredOption(
      '--shared-directory <dir>',
      'absolute path of a directory the server host and every node share (it must exist on the server host)',
    )
    .option(
      '--submit-prefix <arg>',
      'one argument put before every Slurm command, run without a shell; repeat for each (--submit-prefix ssh --submit-prefix login1)',
      repeatable,
    );
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: HpcCreateOptions) => hpcCreate(opts, ctx));
}
