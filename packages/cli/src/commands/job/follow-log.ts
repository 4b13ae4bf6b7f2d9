import type { JobEvent, RunyardClient } from '@runyard/client';
import type { CliContext } from '../../context.js';
import { CliError } from '../../errors/cli-error.js';
import { EXIT } from '../../errors/exit-codes.js';

/** The last `n` lines of a text (a trailing newline does not count as a line). */
export function lastLines(text: string, n: number): string {
  if (n <= 0 || !text) return '';
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return `${lines.slice(-n).join('\n')}\n`;
}

/**
 * The job's log so far: the log events the server sends before its first status event (the server
 * reads the whole log, then says the status), then the stream is closed.
 */
async function logSoFar(client: RunyardClient, jobId: string, workspaceId: string): Promise<{ text: string; offset: number }> {
  const stop = new AbortController();
  let text = '';
  let offset = 0;
  try {
    for await (const e of client.followJob(jobId, workspaceId, { signal: stop.signal })) {
      if (e.type === 'log') {
        text += e.text;
        offset = e.offset;
      } else break;
    }
  } finally {
    stop.abort();
  }
  return { text, offset };
}

/**
 * `job logs --tail N [--follow]`: prints the job's log (its last N lines first, with --tail), then
 * with --follow what it writes as it runs, until it ends: exit 0 if it completed, 1 if it failed,
 * 3 if it was aborted. Status changes go to stderr, the log to stdout.
 */
export async function followLog(
  client: RunyardClient,
  ctx: CliContext,
  jobId: string,
  workspaceId: string,
  { tail, follow }: { tail?: number; follow: boolean },
): Promise<void> {
  let offset = 0;
  if (tail !== undefined) {
    const sofar = await logSoFar(client, jobId, workspaceId);
    ctx.stdout.write(lastLines(sofar.text, tail));
    offset = sofar.offset;
    if (!follow) return;
  }
  let end: Extract<JobEvent, { type: 'end' }> | undefined;
  for await (const e of client.followJob(jobId, workspaceId, { offset })) {
    if (e.type === 'log') ctx.stdout.write(e.text);
    else if (e.type === 'status') ctx.stderr.write(`Job ${jobId}: ${e.status}${arrayNote(e)}\n`);
    else end = e;
  }
  if (!end) throw new CliError(`The log of job ${jobId} stopped before the job ended.`);
  if (end.status === 'completed') return;
  const why = end.statusMessage ? `: ${end.statusMessage}` : '';
  if (end.status === 'aborted') throw new CliError(`Job ${jobId} was aborted${why}`, EXIT.ABORTED);
  throw new CliError(`Job ${jobId} failed${why}`, EXIT.ERROR);
}

function arrayNote(e: Extract<JobEvent, { type: 'status' }>): string {
  const a = e.arrayTasks;
  return a ? ` (tasks: ${a.completed} completed, ${a.running} running, ${a.queued} queued, ${a.failed} failed of ${a.total})` : '';
}
