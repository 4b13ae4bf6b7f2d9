import { diskUsageBeneath } from '../storage/beneath.js';
import { preparedQuery } from '../store/prepared-query.js';
import type { SchedulerContext } from './context.js';
import type { JobPaths } from './job-paths.js';

const GIB = 1024 ** 3;

/**
 * The bytes a job's task has written: its work, logs and results directories (allocated blocks,
 * walked without following links; a work directory shared with the job it resumes counts whole).
 */
export async function jobDiskUsage(paths: Pick<JobPaths, 'work' | 'logs' | 'results'>): Promise<number> {
  const dirs = [...new Set([paths.work, paths.logs, paths.results])];
  const used = await Promise.all(dirs.map((dir) => diskUsageBeneath(dir)));
  return used.reduce((a, b) => a + b, 0);
}

/** Whether what a job wrote passed its disk limit (storageSizeInGb, GiB). */
export function pastDiskLimit(usedBytes: number, limitGb: number): boolean {
  return usedBytes > limitGb * GIB;
}

/** The reason a job past its disk limit failed: its status message and its log's last line. */
export function diskLimitMessage(usedBytes: number, limitGb: number, checkSeconds: number): string {
  return (
    `Runyard: the job was stopped: it wrote ${(usedBytes / GIB).toFixed(2)} GiB to its work, results and logs directories, ` +
    `past its disk limit of ${limitGb} GiB (storageSizeInGb, --instance-disk). The limit is checked every ${checkSeconds} s.`
  );
}

/** What the disk check needs of a running attempt (AttemptRunner). */
export interface DiskWatched {
  paths: Pick<JobPaths, 'work' | 'logs' | 'results'>;
  failWith(message: string): void;
}

const runningLimitsOf = preparedQuery((db, p: { owner: string }) =>
  db.selectFrom('jobs').select(['id', 'storage_size_gb']).where('lease_owner', '=', p.owner).where('status', '=', 'running'),
);

/** Measures what each running job of this scheduler wrote, and stops (failing it) each that passed its disk limit. */
export async function enforceDiskLimits(ctx: SchedulerContext, runners: ReadonlyMap<string, DiskWatched>): Promise<void> {
  for (const row of await runningLimitsOf.execute(ctx.db, { owner: ctx.owner })) {
    const runner = runners.get(row.id);
    if (!runner || ctx.signal.aborted) continue;
    const used = await jobDiskUsage(runner.paths);
    if (pastDiskLimit(used, row.storage_size_gb)) runner.failWith(diskLimitMessage(used, row.storage_size_gb, ctx.config.diskCheckSeconds));
  }
}
