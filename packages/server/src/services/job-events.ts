import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TERMINAL_JOB_STATUSES, type JobStatus } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { stdoutFileOf } from '../engines/task-env.js';
import { EventStream, type EventSink } from './event-stream.js';
import { jobPaths, taskPaths } from '../scheduler/job-paths.js';
import { BeneathError, readBeneath } from '../storage/beneath.js';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { jobRow } from './jobs.js';

/** How often a followed job's row and log are read. */
const POLL_MS = 250;
/** A comment this often keeps an idle stream open through proxies. */
const KEEPALIVE_MS = 15_000;
/** Most bytes of log one read takes (a long log is sent in several events). */
const MAX_READ = 256 * 1024;

/**
 * The bytes of a job's log (its stdout.txt) from an offset: the local file where this host has it
 * (the store's own file on the local store; on S3 and Azure the scheduler's working copy, while
 * the job runs here), else the store's copy (pushed every RUNYARD_LOG_SYNC_MS while it runs, and
 * in full before its end is recorded). The task writes the local file's directory: it is read
 * beneath it (storage/beneath.ts), and a log that the task made a link or a FIFO reads as empty.
 */
class LogSource {
  constructor(
    private readonly logsDir: string,
    private readonly name: string,
    private readonly blobs: BlobStore,
    private readonly bucket: string,
    private readonly key: string,
  ) {}

  async read(offset: number): Promise<Buffer> {
    const local = await this.readLocal(offset);
    return local ?? (this.blobs.localPath ? Buffer.alloc(0) : this.readStore(offset));
  }

  private async readLocal(offset: number): Promise<Buffer | null> {
    try {
      return await readBeneath(this.logsDir, this.name, offset, MAX_READ);
    } catch (e) {
      // No local copy (the log is in the store): null. A link or a FIFO that the task made: nothing to read.
      if (e instanceof BeneathError && e.reason !== 'missing') return Buffer.alloc(0);
      return null;
    }
  }

  private async readStore(offset: number): Promise<Buffer> {
    const stat = await this.blobs.stat(this.bucket, this.key);
    if (!stat || stat.size <= offset) return Buffer.alloc(0);
    const chunks: Buffer[] = [];
    try {
      // Only the new bytes, at most MAX_READ of them.
      for await (const chunk of await this.blobs.get(this.bucket, this.key, {
        start: offset,
        end: Math.min(stat.size, offset + MAX_READ) - 1,
      }))
        chunks.push(chunk as Buffer);
    } catch (e) {
      if (e instanceof BlobNotFoundError) return Buffer.alloc(0);
      throw e;
    }
    return Buffer.concat(chunks);
  }
}

/** Sends a log as whole lines (`log` events, each with the offset after it), holding a partial last line until it ends. */
class LogLines {
  private pending = Buffer.alloc(0);

  constructor(
    private readonly source: LogSource,
    /** Offset of the next byte to read. */
    private offset: number,
  ) {}

  /** Reads what is new and sends its complete lines; with `final`, sends the rest too. */
  async pump(sink: EventSink, final: boolean): Promise<void> {
    for (;;) {
      const bytes = await this.source.read(this.offset);
      this.offset += bytes.length;
      this.pending = Buffer.concat([this.pending, bytes]);
      const end = final && bytes.length < MAX_READ ? this.pending.length : this.pending.lastIndexOf(0x0a) + 1;
      if (end > 0) {
        const sentUpTo = this.offset - (this.pending.length - end);
        sink.event('log', { offset: sentUpTo, text: this.pending.subarray(0, end).toString('utf8') }, String(sentUpTo));
        this.pending = this.pending.subarray(end);
      }
      if (bytes.length < MAX_READ) return;
    }
  }
}

export interface JobEventDeps {
  db: Kysely<Database>;
  config: Config;
  blobs: BlobStore;
  /** Aborted when the server closes. */
  closing?: AbortSignal;
}

/**
 * `GET /api/runyard/jobs/{id}/events`: the job's log from `offset` (bytes) and its status changes
 * as they happen, as Server-Sent Events, until the job ends:
 *
 * - `log` `{offset, text}`: whole lines of the log (id: the offset after them, to resume from);
 * - `status` `{status, statusMessage, arrayTasks?}`: at once, then at each change that a look at the
 *   job's row sees (one every POLL_MS: a state that lasts less can be skipped, the final one never is);
 * - `end` `{status, statusMessage, exitCode}`: the job ended (after the last of its log); the stream closes.
 *
 * 404 for a job that is not the workspace's, before anything is streamed.
 */
export async function jobEvents(deps: JobEventDeps, ctx: Context, jobId: string, offset = 0): Promise<EventStream> {
  const job = await jobRow(deps.db, ctx.workspaceId, jobId);
  const paths = await taskPaths(deps.config.dataDir, deps.blobs, job);
  const base = jobPaths(deps.config.dataDir, job.workspace_id, job.id);
  const lines = new LogLines(
    new LogSource(paths.logs, path.basename(stdoutFileOf(paths)), deps.blobs, base.bucket, `${base.prefix}/logs/stdout.txt`),
    offset,
  );
  return new EventStream(async (sink, clientGone) => {
    const signal = deps.closing ? AbortSignal.any([clientGone, deps.closing]) : clientGone;
    let shown = '';
    let beat = Date.now();
    while (!signal.aborted) {
      const row = await deps.db
        .selectFrom('jobs')
        .select(['status', 'status_message', 'exit_code', 'array_tasks_json'])
        .where('id', '=', job.id)
        .executeTakeFirstOrThrow();
      const ended = TERMINAL_JOB_STATUSES.includes(row.status as JobStatus);
      // The row first: once it says ended, the log is whole, and all of it goes before the end.
      await lines.pump(sink, ended);
      const status = {
        status: row.status,
        statusMessage: row.status_message,
        ...(row.array_tasks_json && { arrayTasks: JSON.parse(row.array_tasks_json) as unknown }),
      };
      if (JSON.stringify(status) !== shown) {
        sink.event('status', status);
        shown = JSON.stringify(status);
      }
      if (ended) {
        sink.event('end', { status: row.status, statusMessage: row.status_message, exitCode: row.exit_code });
        return;
      }
      if (Date.now() - beat >= KEEPALIVE_MS) {
        sink.comment('keep-alive');
        beat = Date.now();
      }
      await sleep(POLL_MS, undefined, { signal }).catch(() => undefined);
    }
  });
}
