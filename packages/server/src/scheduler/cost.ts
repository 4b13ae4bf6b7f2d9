import type { Config } from '../config.js';

/**
 * The compute cost model: requested CPUs x hours between start and end x the configured price
 * of a CPU-hour (RUNYARD_CPU_HOUR_COST_CENTS, default 0). Cents, rounded to 1/10,000 of a cent.
 */
export function computeCostCents(config: Config, cpus: number, startIso: string | null, endMs: number): number {
  if (!startIso || !config.cpuHourCostCents) return 0;
  const hours = Math.max(0, endMs - Date.parse(startIso)) / 3_600_000;
  return Math.round(Math.max(1, cpus) * hours * config.cpuHourCostCents * 10_000) / 10_000;
}

/** cost_limit is in dollars; -1 (any negative) means no limit. */
export function costLimitExceeded(costCents: number, costLimitDollars: number): boolean {
  return costLimitDollars >= 0 && costCents > costLimitDollars * 100;
}
