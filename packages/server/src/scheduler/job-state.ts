import type { JobStatus } from '@runyard/contract';

/**
 * Every legal job status transition, in one place. Anything else is a bug or a race lost, and
 * terminal statuses never change.
 *   queued -> initializing (claimed with a lease; the engine prepares the task)
 *   -> running (external id stored) -> completed | failed
 *   (a task that ends before its job is reported running, within AttemptRunner's running-mark
 *   delay, goes from initializing to its outcome in one UPDATE that stores its id and start time too)
 *   (scheduled, between the claim and initializing, is what earlier Runyard schedulers wrote: one
 *   commit more per job, and whether its task was launched told nothing the reaper does not ask
 *   the executor anyway. It stays legal: such rows may be in a database.)
 *   a job that has not started can be aborted at once; a started one goes through aborting.
 *   a scheduler that lost its lease hands the job back to queued (never started) or re-runs it.
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  queued: ['initializing', 'scheduled', 'aborted'],
  scheduled: ['initializing', 'queued', 'failed', 'aborting', 'aborted'],
  initializing: ['running', 'completed', 'queued', 'failed', 'aborting', 'aborted'],
  running: ['completed', 'failed', 'aborting', 'queued'],
  aborting: ['aborted', 'completed', 'failed'],
  completed: [],
  failed: [],
  aborted: [],
};

export const ACTIVE_STATUSES: readonly JobStatus[] = ['scheduled', 'initializing', 'running', 'aborting'];

export function isTerminal(status: JobStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from]?.includes(to) ?? false;
}

/** The statuses a job may be in when it moves to `to` (for conditional UPDATE ... WHERE status IN). */
export function sourcesOf(to: JobStatus): JobStatus[] {
  return (Object.keys(TRANSITIONS) as JobStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}
