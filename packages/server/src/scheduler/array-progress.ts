import type { ArrayTaskCounts } from '@runyard/contract';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { arrayDirOf, readArrayMarkers, type ArrayMarkers } from '../executors/array-run.js';
import type { TaskEnd } from '../executors/executor.js';
import type { AttemptRef, SchedulerContext } from './context.js';
import type { StoredArrayTasks } from './cost.js';

export interface ArrayProgress extends ArrayTaskCounts {
  /** The failed tasks by index, with their exit codes, in index order. */
  failures: { index: number; exitCode: number }[];
  /** How long its tasks have run, summed, in seconds (a running one until now): what the job's cost counts. */
  taskSeconds: number;
}

/**
 * When each task of an attempt started and ended: its markers' modification times, each read once
 * (a watch reads the directory every second; a task's times do not change).
 */
export class TaskTimes {
  private readonly starts = new Map<number, number>();
  private readonly ends = new Map<number, number>();

  async secondsRun(dir: string, { started, exits }: ArrayMarkers, now: number): Promise<number> {
    for (const i of started)
      if (!this.starts.has(i)) await mtimeOf(path.join(dir, `start-${i}`)).then((t) => t !== null && this.starts.set(i, t));
    for (const [i, code] of exits)
      if (!this.ends.has(i)) await mtimeOf(path.join(dir, `exit-${i}-${code}`)).then((t) => t !== null && this.ends.set(i, t));
    let ms = 0;
    for (const [i, start] of this.starts) ms += Math.max(0, (this.ends.get(i) ?? now) - start);
    return ms / 1000;
  }
}

/** A marker's time (the marker itself: a link in its place is not followed to a file of the host). */
const mtimeOf = (file: string) =>
  lstat(file).then(
    (s) => s.mtimeMs,
    () => null,
  );

/** Progress of one attempt of an array job, from its array directory's markers (executors/array-run.ts). */
export async function readArrayProgress(
  controlDir: string,
  attempt: number,
  total: number,
  times = new TaskTimes(),
): Promise<ArrayProgress> {
  const dir = arrayDirOf(controlDir, attempt);
  const markers = await readArrayMarkers(dir);
  const { started, exits } = markers;
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
    taskSeconds: await times.secondsRun(dir, markers, Date.now()),
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

/** What is kept on the job's row: the counts, and for its cost the tasks' seconds run at the time of the reading (cost.ts). */
const stored = ({ total, queued, running, completed, failed, taskSeconds }: ArrayProgress, at: number): StoredArrayTasks => ({
  total,
  queued,
  running,
  completed,
  failed,
  taskSeconds,
  at,
});

/** Stores the reading on the job, only while the attempt is current and ours. */
async function storeCounts(ctx: SchedulerContext, ref: AttemptRef, p: ArrayProgress): Promise<void> {
  await ctx.db
    .updateTable('jobs')
    .set({ array_tasks_json: JSON.stringify(stored(p, Date.now())) })
    .where('id', '=', ref.id)
    .where('attempt', '=', ref.attempt)
    .where('lease_owner', '=', ref.owner)
    .execute();
}

/**
 * Keeps an array job's task counts on its row while its attempt runs: read every `everyMs`, written
 * when they change (with the seconds its tasks ran, for its cost). stop() takes a last reading, stores it, and answers it.
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
  const times = new TaskTimes();
  const update = async () => {
    const p = await readArrayProgress(controlDir, ref.attempt, total, times);
    // Stored when a count changes (the seconds of running tasks are counted on from the reading's time).
    const text = JSON.stringify({ ...stored(p, 0), taskSeconds: p.running ? 0 : p.taskSeconds });
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
