import type { ArrayTaskCounts } from '@runyard/contract';
import { arrayDirOf, readArrayMarkers } from '../executors/array-run.js';
import type { TaskEnd } from '../executors/executor.js';
import type { AttemptRef, SchedulerContext } from './context.js';

export interface ArrayProgress extends ArrayTaskCounts {
  /** The failed tasks by index, with their exit codes, in index order. */
  failures: { index: number; exitCode: number }[];
}

/** Progress of one attempt of an array job, from its array directory's markers (executors/array-run.ts). */
export async function readArrayProgress(controlDir: string, attempt: number, total: number): Promise<ArrayProgress> {
  const { started, exits } = await readArrayMarkers(arrayDirOf(controlDir, attempt));
  const failures = [...exits]
    .filter(([, code]) => code !== 0)
    .map(([index, exitCode]) => ({ index, exitCode }))
    .sort((a, b) => a.index - b.index);
  const completed = exits.size - failures.length;
  return {
    total,
    queued: Math.max(0, total - started.size),
    running: Math.max(0, started.size - exits.size),
    completed,
    failed: failures.length,
    failures,
  };
}

/** The failure message of an array job: how many tasks failed, and the first few with their codes. */
export function arrayFailureMessage(p: ArrayProgress): string {
  const shown = p.failures
    .slice(0, 5)
    .map((f) => `task ${f.index}: exit code ${f.exitCode}`)
    .join(', ');
  const more = p.failures.length > 5 ? ', …' : '';
  return `${p.failed} of ${p.total} tasks failed (${shown}${more}); each task's output is in the job's log under its index.`;
}

const counts = ({ total, queued, running, completed, failed }: ArrayTaskCounts): ArrayTaskCounts => ({
  total,
  queued,
  running,
  completed,
  failed,
});

/** Stores the counts on the job, only while the attempt is current and ours. */
async function storeCounts(ctx: SchedulerContext, ref: AttemptRef, c: ArrayTaskCounts): Promise<void> {
  await ctx.db
    .updateTable('jobs')
    .set({ array_tasks_json: JSON.stringify(counts(c)) })
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .execute();
}

/**
 * Keeps an array job's task counts on its row while its attempt runs: read every `everyMs`, written
 * when they change. stop() takes a last reading, stores it, and answers it.
 */
export function watchArrayProgress(
  ctx: SchedulerContext,
  ref: AttemptRef,
  controlDir: string,
  total: number,
  everyMs = 1000,
): { stop(): Promise<ArrayProgress> } {
  let last = '';
  let reading: Promise<void> | null = null;
  const update = async () => {
    const p = await readArrayProgress(controlDir, ref.attempt, total);
    const text = JSON.stringify(counts(p));
    if (text !== last && !ctx.signal.aborted) {
      await storeCounts(ctx, ref, p);
      last = text;
    }
    return p;
  };
  const timer = setInterval(() => {
    if (reading) return;
    reading = update()
      .then(() => undefined)
      .catch((e: Error) => ctx.log.warn({ jobId: ref.id, err: e.message }, 'could not record the progress of an array job'))
      .finally(() => (reading = null));
  }, everyMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      return update();
    },
  };
}

/** The end of an array job's task, with the message that says which of its tasks failed when some did. */
export function withArrayOutcome<E extends TaskEnd | { state: 'absent' }>(end: E, progress: ArrayProgress | undefined): E {
  if (!progress?.failed || end.state !== 'exited' || end.exitCode === 0 || end.message) return end;
  return { ...end, message: arrayFailureMessage(progress) };
}

/** Reads an attempt's progress once and stores its counts (a task found ended after a restart). */
export async function recordArrayProgress(
  ctx: SchedulerContext,
  ref: AttemptRef,
  controlDir: string,
  total: number,
): Promise<ArrayProgress> {
  const p = await readArrayProgress(controlDir, ref.attempt, total);
  await storeCounts(ctx, ref, p);
  return p;
}
