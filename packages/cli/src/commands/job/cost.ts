import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InstanceCost } from '@runyard/client';
import { Command } from 'commander';
import { withClient } from '../../config/connect.js';
import { addConnectionOptions } from '../../config/connection-options.js';
import { resolveConnection, type ConnectionFlags } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { emitList } from '../../output/emit-list.js';
import { addListOutputOptions, type ListOutputFlags } from '../../output/format.js';
import type { ListView } from '../../output/list-view.js';
import { jobId } from '../../options/object-id.js';

export interface JobCostOptions extends ConnectionFlags, ListOutputFlags {
  jobId: string;
}

/** One machine of the job, with its role (master or worker). */
type CostRow = InstanceCost & { role: string };

const dollars = (p: { amount: number; currencyCode: string } | undefined) =>
  p && Number.isFinite(p.amount) ? `$${p.amount.toFixed(4)}${p.currencyCode === 'USD' ? '' : ` ${p.currencyCode}`}` : 'N/A';

const COST_VIEW: ListView<CostRow> = {
  noun: 'costs',
  columns: [
    { header: 'ROLE', value: (r) => r.role },
    { header: 'ID', value: (r) => r.id },
    { header: 'INSTANCE TYPE', value: (r) => r.machineType ?? 'N/A' },
    { header: 'COST SAVING', value: (r) => r.isCostSaving },
    { header: 'START', value: (r) => r.startTime ?? 'N/A' },
    { header: 'END', value: (r) => r.endTime ?? 'N/A' },
    { header: 'PRICE/HOUR', value: (r) => dollars(r.instancePricePerHour) },
    { header: 'STORAGE', value: (r) => `${r.storage.usageQuantity} ${r.storage.usageUnit}` },
    { header: 'TOTAL', value: (r) => dollars(r.totalPrice) },
  ],
  records: (rows) => ({
    columns: ['role', 'id', 'machineType', 'isCostSaving', 'startTime', 'endTime', 'instancePricePerHour', 'storage', 'totalPrice'],
    rows: rows.map((r) => ({
      role: r.role,
      id: r.id,
      machineType: r.machineType,
      isCostSaving: r.isCostSaving,
      startTime: r.startTime,
      endTime: r.endTime,
      instancePricePerHour: r.instancePricePerHour.amount,
      storage: `${r.storage.usageQuantity} ${r.storage.usageUnit}`,
      totalPrice: r.totalPrice.amount,
    })),
  }),
};

/**
 * What a job cost, in dollars: its master instance and workers (a table or csv), or with json the
 * server's answer as it is (master, workers, paginationMetadata).
 */
export async function jobCost(opts: JobCostOptions, ctx: CliContext): Promise<void> {
  const conn = resolveConnection(opts, ctx, { workspace: true });
  const costs = await withClient(conn, (client) => client.getJobCosts(opts.jobId, conn.workspaceId));
  if (opts.outputFormat !== 'json') {
    const rows = [{ ...costs.master, role: 'master' }, ...costs.workers.map((w) => ({ ...w, role: 'worker' }))];
    return emitList(rows, COST_VIEW, opts, ctx);
  }
  const text = JSON.stringify(costs, null, 2) + '\n';
  if (opts.outputBasename === undefined) return void ctx.stdout.write(text);
  const file = path.resolve(`${opts.outputBasename}.json`);
  writeFileSync(file, text);
  ctx.stderr.write(`Wrote the costs of job ${opts.jobId} to ${file}\n`);
}

export function jobCostCommand(ctx: CliContext): Command {
  const cmd = new Command('cost')
    .description('show what a job cost: its instance, hourly price and total, in dollars')
    .requiredOption('--job-id <id>', 'id of the job', jobId);
  addListOutputOptions(cmd);
  addConnectionOptions(cmd, { workspace: true });
  return cmd.action((opts: JobCostOptions) => jobCost(opts, ctx));
}
