import type { HpcCluster } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../../config/connect.js';
import { addConnectionOptions } from '../../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../../config/connection.js';
import type { CliContext } from '../../../context.js';
import { emitList } from '../../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../../output/format.js';
import type { ListView } from '../../../output/list-view.js';
import { recordsOf } from '../../../output/records.js';

export type HpcListOptions = ConnectionFlags & ListOutputFlags;

export const HPC_VIEW: ListView<HpcCluster> = {
  noun: 'HPC clusters',
  columns: [
    { header: 'ID', value: (c) => c.id },
    { header: 'NAME', value: (c) => c.name },
    { header: 'PARTITIONS', value: (c) => c.partitions.join(',') },
    { header: 'DEFAULT PARTITION', value: (c) => c.defaultPartition },
    { header: 'SHARED DIRECTORY', value: (c) => c.sharedDirectory },
    // JSON: the argv as it is run, each argument whole even when it holds a space.
    { header: 'SUBMIT PREFIX', value: (c) => (c.submitPrefix.length ? JSON.stringify(c.submitPrefix) : '') },
    { header: 'CREATED', value: (c) => c.createdAt },
  ],
  records: recordsOf<HpcCluster>(['id', 'name', 'partitions', 'defaultPartition', 'sharedDirectory', 'submitPrefix', 'createdAt']),
};

export async function hpcList(opts: HpcListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: false });
  const clusters = await withClient(conn, (c) => c.admin.listHpcClusters());
  await emitList(clusters, HPC_VIEW, opts, ctx);
}

export function hpcListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the registered HPC clusters');
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: false });
  return cmd.action((opts: HpcListOptions) => hpcList(opts, ctx));
}
