import { existsSync } from 'node:fs';
import path from 'node:path';
import { listBeneath, removeBeneath, removeEmptyDirBeneath } from '../storage/beneath.js';
import { pullDir, pushDir } from '../storage/blob-sync.js';
import type { SchedulerContext } from './context.js';
import { ACTIVE_STATUSES } from './job-state.js';
import { scratchRoot, taskPaths, type JobPaths } from './job-paths.js';
import { withWorkDirLock } from './work-dir-lock.js';

/**
 * A job's outputs in the workspace's store. On the local store tasks write in place and there is
 * nothing to do. On S3 and Azure a task runs on local copies under `<dataDir>/scratch`: its
 * parent's work directory is pulled before a resumed job starts, its logs are pushed while it
 * runs (every RUNYARD_LOG_SYNC_MS), and its logs, results and work directory when it settles,
 * before its final status is written; then the local copies are removed.
 */

export const isRemote = (ctx: SchedulerContext) => !ctx.blobs.localPath;

/** The task paths of a job, from its row. */
export async function loadTaskPaths(ctx: SchedulerContext, jobId: string): Promise<JobPaths | null> {
  const row = await ctx.db
    .selectFrom('jobs')
    .select(['id', 'workspace_id', 'work_bucket', 'work_prefix'])
    .where('id', '=', jobId)
    .executeTakeFirst();
  return row ? taskPaths(ctx.config.dataDir, ctx.blobs, row) : null;
}

/** Pulls the job's work directory from the store (a resumed job's is its parent's); nothing on the local store. */
export async function pullWorkDir(ctx: SchedulerContext, paths: JobPaths): Promise<void> {
  if (!isRemote(ctx)) return;
  try {
    await pullDir(ctx.blobs, paths.workBucket, paths.workPrefix, paths.work);
  } catch (e) {
    throw new Error(`The work directory could not be fetched from the store: ${(e as Error).message}`);
  }
}

/** Pushes the logs, and unless logsOnly the results and the work directory, to the store. */
export async function pushOutputs(ctx: SchedulerContext, paths: JobPaths, logsOnly = false): Promise<void> {
  if (!isRemote(ctx)) return;
  const targets: [string, string, string][] = [[paths.logs, paths.bucket, `${paths.prefix}/logs`]];
  if (!logsOnly) targets.push([paths.results, paths.bucket, `${paths.prefix}/results`], [paths.work, paths.workBucket, paths.workPrefix]);
  for (const [dir, bucket, prefix] of targets) {
    const { skipped } = await pushDir(ctx.blobs, dir, bucket, prefix);
    if (skipped.length)
      ctx.log.warn({ dir, skipped: skipped.slice(0, 20), count: skipped.length }, 'files whose names the store refuses were not uploaded');
  }
}

/**
 * Files of the control directory that hold values of the job (parameters, registry logins), needed
 * only while a task runs: the rows of an array job (array-<attempt>/), a login kept for a container
 * (registry-auth-<attempt>...), a Slurm task's environment (attempt-<n>.env).
 */
const TASK_SECRETS = /^(array-\d+|registry-auth-\d+(-\d+)?(\.json)?|attempt-\d+\.env)$/;

/**
 * After the job settled: removes its staged inputs, the control files that hold its values and, on
 * S3 and Azure, its local copies (the work directory only when no other active job works in it).
 * Tasks wrote in them (an array's directory, logs, results, work): each is listed and removed from
 * its parent's handle (the server's: the control directory, the job's directory, a work directory's
 * parent), never following a link. Failures are only logged.
 */
export async function removeLocalCopies(ctx: SchedulerContext, jobId: string, paths: JobPaths): Promise<void> {
  const remove = (dir: string) =>
    removeBeneath(path.dirname(dir), path.basename(dir)).catch((e: Error) =>
      ctx.log.warn({ jobId, dir, err: e.message }, 'could not remove a local copy'),
    );
  // Looked for at once: usually there are none, and a round trip through the thread pool waits milliseconds on a loaded machine.
  if (existsSync(paths.inputs)) await remove(paths.inputs);
  // Its names, listed from its handle (no control directory: nothing to remove).
  const control = (await listBeneath(paths.control).catch(() => [])).map((entry) => entry.name);
  for (const name of control.filter((n) => TASK_SECRETS.test(n))) await remove(path.join(paths.control, name));
  if (!isRemote(ctx) || !paths.root.startsWith(scratchRoot(ctx.config.dataDir) + path.sep)) return;
  for (const dir of [paths.logs, paths.results]) await remove(dir);
  // Checked and removed under the directory's lock: a resumed job that became active after the
  // check pulls its copy only once the removal is done (attempt-runner.ts).
  await withWorkDirLock(paths.work, async () => {
    const sharing = await ctx.db
      .selectFrom('jobs')
      .select('id')
      .where('id', '!=', jobId)
      .where('work_bucket', '=', paths.workBucket)
      .where('work_prefix', '=', paths.workPrefix)
      .where('status', 'in', ACTIVE_STATUSES)
      .executeTakeFirst();
    if (!sharing) await remove(paths.work);
    // The job's own directory, once empty (its work directory may still serve a resumed job); under
    // the lock too, as a resumed job's mkdir of the work directory recreates it.
    await removeEmptyDirBeneath(path.dirname(paths.root), path.basename(paths.root)).catch(() => undefined);
  });
}

/**
 * Pushes a running job's logs every RUNYARD_LOG_SYNC_MS (on S3 and Azure), one push at a time.
 * stop() ends it and waits for a push under way.
 */
export function startLogPusher(ctx: SchedulerContext, jobId: string): { stop(): Promise<void> } {
  if (!isRemote(ctx) || ctx.config.logSyncMs <= 0) return { stop: async () => undefined };
  let pushing: Promise<void> | null = null;
  let paths: Promise<JobPaths | null> | null = null;
  const timer = setInterval(() => {
    if (pushing) return;
    paths ??= loadTaskPaths(ctx, jobId);
    pushing = paths
      .then((p) => (p ? pushOutputs(ctx, p, true) : undefined))
      .catch((e: Error) => ctx.log.warn({ jobId, err: e.message }, 'could not upload the logs of a running job'))
      .finally(() => (pushing = null));
  }, ctx.config.logSyncMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await pushing;
    },
  };
}
