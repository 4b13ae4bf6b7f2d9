import type { Config } from '../config.js';
import { DEFAULT_INSTANCE_TYPE } from '../instance-types/catalogue.js';
import { instanceTypes } from '../instance-types/load.js';

/** What the cost of a job depends on. */
export interface CostedJob {
  instance_type: string | null;
  resource_cpu: number;
  start_time: string | null;
  /** A bash array job runs this many tasks at once, each holding what the job asks for. */
  array_limit?: number | null;
  /** A bash array job's last reading of its tasks (StoredArrayTasks, JSON). */
  array_tasks_json?: string | null;
}

/**
 * What an array job's row keeps of its tasks (array-progress.ts): their counts, and the seconds they
 * had run, summed, at the time `at` (ms) of the reading, when `running` of them ran.
 */
export interface StoredArrayTasks {
  total: number;
  queued: number;
  running: number;
  completed: number;
  failed: number;
  taskSeconds: number;
  at: number;
}

function storedArrayTasks(json: string | null | undefined): StoredArrayTasks | null {
  if (!json) return null;
  const t = JSON.parse(json) as Partial<StoredArrayTasks>;
  return typeof t.taskSeconds === 'number' && typeof t.at === 'number' && typeof t.running === 'number' ? (t as StoredArrayTasks) : null;
}

/**
 * The price of an hour of the job, in cents: its instance type's hourly on-demand price (a job
 * without one, or with a type the catalogue lacks, is priced as the default type, c5.xlarge), or,
 * when the operator sets RUNYARD_CPU_HOUR_COST_CENTS, requested CPUs x that price. An array job
 * pays for each of the tasks it runs at once.
 */
export function hourlyPriceCents(config: Config, job: Pick<CostedJob, 'instance_type' | 'resource_cpu' | 'array_limit'>): number {
  const tasks = Math.max(1, job.array_limit ?? 1);
  if (config.cpuHourCostCents) return tasks * Math.max(1, job.resource_cpu) * config.cpuHourCostCents;
  const catalogue = instanceTypes(config);
  const type = (job.instance_type && catalogue.get(job.instance_type)) || catalogue.get(DEFAULT_INSTANCE_TYPE);
  return tasks * (type?.pricePerHourUsd ?? 0) * 100;
}

/**
 * The compute cost in cents: the hourly price x the task's wall time from start to `endMs`, billed
 * per second (to the millisecond), rounded to 1/10,000 of a cent. Nothing before the job starts.
 * An array job pays for its tasks' run times, summed, at the price of one task (a task waiting for
 * its turn costs nothing); until its first reading, for all it runs at once.
 */
export function computeCostCents(config: Config, job: CostedJob, endMs: number): number {
  if (!job.start_time) return 0;
  const tasks = storedArrayTasks(job.array_tasks_json);
  const hours = tasks
    ? (tasks.taskSeconds + (tasks.running * Math.max(0, endMs - tasks.at)) / 1000) / 3600
    : Math.max(0, endMs - Date.parse(job.start_time)) / 3_600_000;
  const price = tasks ? hourlyPriceCents(config, { ...job, array_limit: 1 }) : hourlyPriceCents(config, job);
  return Math.round(hours * price * 10_000) / 10_000;
}

/** cost_limit is in dollars; -1 (any negative) means no limit. */
export function costLimitExceeded(costCents: number, costLimitDollars: number): boolean {
  return costLimitDollars >= 0 && costCents > costLimitDollars * 100;
}

/**
 * How long the job (an array job: one of its tasks) may run before its cost passes its limit, in seconds (cost limit / hourly price),
 * or undefined without a limit (or a price). An executor that queues tasks passes it on (Slurm's
 * --time) so the cluster can plan; the scheduler's own cost watch still ends the job first, with
 * the cost message, so the executor is given a minute more.
 */
export function runTimeLimitSeconds(
  config: Config,
  job: Pick<CostedJob, 'instance_type' | 'resource_cpu' | 'array_limit'> & { cost_limit: number },
): number | undefined {
  // An array job's tasks each run on their own (a Slurm array's elements): one may run as long as the limit buys one.
  const price = hourlyPriceCents(config, { ...job, array_limit: 1 });
  if (job.cost_limit < 0 || price <= 0) return undefined;
  return Math.ceil(((job.cost_limit * 100) / price) * 3600) + 60;
}
