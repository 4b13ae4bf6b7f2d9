// Following a job live: `GET /api/runyard/jobs/{id}/events` (Server-Sent Events), read as an async iterator.
import type { ArrayTaskCounts } from '@runyard/contract';
import { ApiError, RunyardValueError, TransportError } from '../errors.js';
import type { ApiTransport, ByteStream } from '../api-transport.js';
import { sleep } from '../sleep.js';
import { requireWorkspace } from './types.js';

/** What following a job yields: lines of its log, its status changes, and its end (the last event). */
export type JobEvent =
  | { type: 'log'; text: string; offset: number }
  | { type: 'status'; status: string; statusMessage: string | null; arrayTasks?: ArrayTaskCounts }
  | { type: 'end'; status: string; statusMessage: string | null; exitCode: number | null };

export interface FollowJobOptions {
  /** Byte of the log to start from (default 0: the whole log). */
  offset?: number;
  /** Ends the iteration (and the request). */
  signal?: AbortSignal;
  /** How many times in a row a dropped stream is reopened (from the last offset) before the error is thrown; default 5. */
  reconnects?: number;
}

/** The events of one SSE stream, as they arrive (chunks decoded as UTF-8, a character split between two kept whole). */
async function* sseEvents(res: ByteStream): AsyncGenerator<{ event: string; data: string }> {
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of res) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length) yield { event, data: data.join('\n') };
    }
  }
}

/**
 * Follows a job: yields its log (whole lines, from `offset`), its status changes and, last, its
 * end. A stream that drops before the end (a server restart, a proxy) is reopened from the last
 * offset received, so no line is repeated or lost.
 */
export async function* followJob(
  t: ApiTransport,
  jobId: string,
  workspaceId: string,
  options: FollowJobOptions = {},
): AsyncGenerator<JobEvent> {
  requireWorkspace(workspaceId);
  if (!jobId) throw new RunyardValueError('A job id is required.');
  const eventsPath = `/api/runyard/jobs/${encodeURIComponent(jobId)}/events`;
  let offset = options.offset ?? 0;
  let failures = 0;
  const reconnects = options.reconnects ?? 5;
  for (;;) {
    try {
      const res = await t.stream(eventsPath, {
        query: { teamId: workspaceId, offset },
        signal: options.signal,
      });
      for await (const { event, data } of sseEvents(res)) {
        // Events already received are not yielded once the caller has aborted.
        options.signal?.throwIfAborted();
        failures = 0;
        const body = JSON.parse(data) as Record<string, unknown>;
        if (event === 'log') {
          offset = Number(body.offset);
          yield { type: 'log', text: String(body.text), offset };
        } else if (event === 'status') {
          yield { type: 'status', ...(body as { status: string; statusMessage: string | null; arrayTasks?: ArrayTaskCounts }) };
        } else if (event === 'end') {
          yield { type: 'end', ...(body as { status: string; statusMessage: string | null; exitCode: number | null }) };
          return;
        } else if (event === 'error') throw new TransportError(String(body.message));
      }
      throw new TransportError('The stream of the job ended before the job did.');
    } catch (e) {
      if (options.signal?.aborted || e instanceof ApiError || ++failures > reconnects) throw e;
      await sleep(Math.min(5000, 250 * 2 ** failures));
    }
  }
}
