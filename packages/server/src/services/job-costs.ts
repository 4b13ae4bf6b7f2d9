import type { InstanceCost, JobCostsQuery, JobCostsReply } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { DEFAULT_INSTANCE_TYPE } from '../instance-types/catalogue.js';
import { hourlyPriceCents } from '../scheduler/cost.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { jobRow } from './jobs.js';

const DEFAULT_PAGE_SIZE = 100;
const usd = (dollars: number) => ({ amount: Math.round(dollars * 1_000_000) / 1_000_000, currencyCode: 'USD' });

/**
 * `GET /api/v1/jobs/{id}/costs/compute` (wire-api §2.1 "Costs"): the job's master instance (the
 * machine its task ran on) with its hourly price and what it cost so far (the job document's
 * computeCostSpent, in dollars here), and its workers, paged; the executors of this server run a
 * job on one machine, so there are none yet. Storage is not priced (0).
 */
export async function getJobCosts(
  db: Kysely<Database>,
  config: Config,
  ctx: Context,
  id: string,
  query: JobCostsQuery,
): Promise<JobCostsReply> {
  const job = await jobRow(db, ctx.workspaceId, id);
  const master: InstanceCost = {
    id: job.id,
    machineType: job.instance_type ?? DEFAULT_INSTANCE_TYPE,
    isCostSaving: false,
    startTime: job.start_time,
    endTime: job.end_time,
    instancePricePerHour: usd(hourlyPriceCents(config, job) / 100),
    storage: { usageQuantity: job.storage_size_gb, usageUnit: 'Gb' },
    storagePricePerHour: usd(0),
    totalPrice: usd(Number(job.compute_cost_cents) / 100),
  };
  const workers: InstanceCost[] = [];
  const page = query.page ?? 1;
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  return {
    master,
    workers: workers.slice((page - 1) * limit, page * limit),
    paginationMetadata: { 'Pagination-Count': 1 + workers.length, 'Pagination-Page': page, 'Pagination-Limit': limit },
  };
}
