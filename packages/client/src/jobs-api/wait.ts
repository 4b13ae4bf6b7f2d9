// wait_job_completion (seed contract §4.1, wire reference §2.1): polling the job document.
import { RunyardValueError } from '../errors.js';
import type { ApiTransport } from '../api-transport.js';
import { sleep } from '../sleep.js';
import { getJobStatus } from './job-read.js';
import { FINISHED_JOB_STATUSES, requireWorkspace, type JobDocument } from './types.js';

export interface WaitOptions {
  /** Seconds to wait at most (default 3600); fractions allowed. */
  waitTime?: number;
  /** Seconds between two polls (default 30); fractions allowed. */
  requestInterval?: number;
  /** Writes one line per poll to `log`. */
  verbose?: boolean;
  log?: (message: string) => void;
  /** Called with every job document polled, e.g. for a live status line. */
  onStatus?: (job: JobDocument, elapsedSeconds: number) => void;
  /** Stops waiting (the promise rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface JobCompletion {
  name: string;
  id: string;
  status: string;
}

function checkSeconds(name: string, value: number, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new RunyardValueError(`${name} must be a number of seconds${min > 0 ? ' above 0' : ' of 0 or more'}, not ${value}.`);
  }
}

/**
 * wait_job_completion: polls `GET /api/v1/jobs/{id}` every `requestInterval` seconds until the status is
 * completed, failed or aborted, or until `waitTime` has passed; then a last poll gives the answer.
 * Returns `{name, id, status}` of the last document read, finished or not.
 */
export async function waitJobCompletion(
  t: ApiTransport,
  jobId: string,
  workspaceId: string,
  options: WaitOptions = {},
): Promise<JobCompletion> {
  const { waitTime = 3600, requestInterval = 30, verbose = false, log = console.log, onStatus, signal } = options;
  requireWorkspace(workspaceId);
  checkSeconds('wait_time', waitTime, 0);
  checkSeconds('request_interval', requestInterval, Number.MIN_VALUE);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  for (;;) {
    signal?.throwIfAborted();
    const job = await getJobStatus(t, jobId, workspaceId);
    const seconds = elapsed();
    onStatus?.(job, seconds);
    if (verbose) log(`\tYour current job status is: ${job.status}. ${Math.round(seconds)} seconds elapsed.`);
    const remaining = waitTime - seconds;
    if (FINISHED_JOB_STATUSES.includes(job.status) || remaining <= 0) {
      if (verbose && remaining <= 0 && !FINISHED_JOB_STATUSES.includes(job.status)) {
        log(`\tThe job has not finished after ${waitTime} seconds; its status is ${job.status}.`);
      }
      return { name: job.name, id: jobId, status: job.status };
    }
    await sleep(Math.min(requestInterval, remaining) * 1000, signal);
  }
}
