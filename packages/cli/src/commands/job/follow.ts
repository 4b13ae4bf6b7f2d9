import type { JobDocument, RunyardClient } from '@runyard/client';
import type { Connection } from '../../config/connection.js';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { loadSdk } from '../../sdk.js';
import { followLog } from './follow-log.js';
import type { WaitFlags } from './job-options.js';
import { duration } from '../../output/duration.js';

/** The job's page in the web application, as cloudos-cli prints it. */
export function jobUrl(platformUrl: string, jobId: string): string {
  return `${platformUrl}/app/advanced-analytics/analyses/${jobId}`;
}

/** The new job's id on stdout (for scripts); `what` ("Job "x" launched") and the job's link on stderr. */
export function reportLaunched(ctx: CliContext, conn: Connection, jobId: string, what: string): void {
  ctx.stdout.write(`${jobId}\n`);
  ctx.stderr.write(`${what}: ${jobUrl(conn.platformUrl, jobId)}\n`);
}

const CLEAR_LINE = '\r\x1b[2K';

/** The first seconds of a wait poll every QUICK_INTERVAL seconds (or --request-interval if shorter). */
const QUICK_SECONDS = 3;
const QUICK_INTERVAL = 0.25;

/**
 * Waits for the job with wait_job_completion: four polls a second for the first 3 seconds, then
 * one every --request-interval seconds. On a terminal, stderr shows one status line that is
 * redrawn every second; otherwise a plain line is written each time the status changes. Returns
 * when the job completed; a failed or aborted job, or one still going after --wait-time, is a
 * CliError (exit 1).
 */
export async function followJob(client: RunyardClient, conn: Connection, jobId: string, flags: WaitFlags, ctx: CliContext): Promise<void> {
  const tty = Boolean(ctx.stderr.isTTY);
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  let last: JobDocument | undefined;
  let shown = '';
  const draw = () => {
    if (last) ctx.stderr.write(`${CLEAR_LINE}Job ${jobId} (${last.name}): ${last.status}, ${duration(elapsed())}`);
  };
  const ticker = tty ? setInterval(draw, 1000) : undefined;
  ticker?.unref();
  const { FINISHED_JOB_STATUSES } = await loadSdk();
  const wait = (requestInterval: number, waitTime: number) =>
    client.waitJobCompletion(jobId, conn.workspaceId, {
      waitTime,
      requestInterval,
      onStatus: (job) => {
        last = job;
        if (flags.verbose) {
          ctx.stderr.write(`${tty ? CLEAR_LINE : ''}Job ${jobId} status: ${job.status}, ${duration(elapsed())} elapsed.\n`);
        }
        if (tty) draw();
        else if (job.status !== shown && !flags.verbose) ctx.stderr.write(`Job ${jobId}: ${job.status} (${duration(elapsed())})\n`);
        shown = job.status;
      },
    });
  let result: { status: string };
  try {
    // Quick polls for the first seconds, so that a short job is seen to finish at once; then every --request-interval.
    const quick = Math.min(QUICK_SECONDS, flags.waitTime);
    result = await wait(Math.min(QUICK_INTERVAL, flags.requestInterval), quick);
    if (!FINISHED_JOB_STATUSES.includes(result.status) && flags.waitTime > quick) {
      result = await wait(flags.requestInterval, Math.max(0, flags.waitTime - elapsed()));
    }
  } finally {
    clearInterval(ticker);
    if (tty && last) ctx.stderr.write(CLEAR_LINE);
  }
  const took = duration(elapsed());
  const why = typeof last?.statusMessage === 'string' && last.statusMessage ? `: ${last.statusMessage}` : '';
  switch (result.status) {
    case 'completed':
      ctx.stderr.write(`Job ${jobId} completed (${took}).\n`);
      return;
    case 'failed':
      throw new CliError(`Job ${jobId} failed after ${took}${why}${/[.!?]$/.test(why) ? '' : '.'}`);
    case 'aborted':
      throw new CliError(`Job ${jobId} was aborted${why}${/[.!?]$/.test(why) ? '' : '.'}`);
    default:
      throw new CliError(
        `Job ${jobId} has not finished after ${flags.waitTime} seconds; its status is ${result.status}. ` +
          `Follow it with "runyard job status --job-id ${jobId}".`,
      );
  }
}

/**
 * After a launch: with --wait-completion, follows the job (followJob); otherwise reads it once, as
 * cloudos-cli does, and says where it stands and how to follow it.
 */
export async function afterLaunch(
  client: RunyardClient,
  conn: Connection,
  jobId: string,
  flags: WaitFlags,
  ctx: CliContext,
): Promise<void> {
  if (flags.follow) return followLog(client, ctx, jobId, conn.workspaceId, { follow: true });
  if (flags.waitCompletion) return followJob(client, conn, jobId, flags, ctx);
  const job = await client.getJobStatus(jobId, conn.workspaceId);
  ctx.stderr.write(`Job ${jobId} is ${job.status}; follow it with "runyard job status --job-id ${jobId}".\n`);
}
