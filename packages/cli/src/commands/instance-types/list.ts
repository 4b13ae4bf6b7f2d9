import type { InstanceTypeEntry } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { recordsOf } from '../../output/records.js';

export type InstanceTypeListOptions = ConnectionFlags & ListOutputFlags;

export const INSTANCE_TYPE_VIEW: ListView<InstanceTypeEntry> = {
  noun: 'instance types',
  columns: [
    { header: 'NAME', value: (t) => t.name },
    { header: 'PROVIDER', value: (t) => t.provider },
    { header: 'VCPUS', value: (t) => t.vcpus },
    { header: 'MEMORY (GiB)', value: (t) => t.memoryGiB },
    { header: 'USD/HOUR', value: (t) => t.pricePerHourUsd },
    { header: 'PRICE DATE', value: (t) => t.priceDate },
  ],
  records: recordsOf<InstanceTypeEntry>(['name', 'provider', 'vcpus', 'memoryGiB', 'pricePerHourUsd', 'priceDate']),
};

/** The server's instance-type catalogue: what a job may ask for, and what an hour of it costs. */
export async function instanceTypeList(opts: InstanceTypeListOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const reply = await withClient(conn, (client) => client.getInstanceTypes(conn.workspaceId));
  await emitList(reply.instanceTypes, INSTANCE_TYPE_VIEW, opts, ctx);
}

export function instanceTypeListCommand(ctx: CliContext): Command {
  const cmd = new Command('list').description('list the instance types jobs may ask for, with vCPUs, memory and hourly price');
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: InstanceTypeListOptions) => instanceTypeList(opts, ctx));
}
