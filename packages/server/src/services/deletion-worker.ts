import { isoNow } from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { BlobStore } from '../storage/blob-store.js';
import { checkKey } from '../storage/keys.js';
import type { Database } from '../store/schema.js';

type LogFn = (obj: object, msg?: string) => void;
export interface DeletionLog {
  info: LogFn;
  error: LogFn;
}
const SILENT: DeletionLog = { info: () => undefined, error: () => undefined };

export interface DeletionWorkerOptions {
  db: Kysely<Database>;
  blobs: BlobStore;
  /** Milliseconds between passes; wake() runs one at once. */
  pollMs: number;
  /** A folder left `deleting` longer than this (its worker died) is taken up again. Default: 60 s or 10 polls. */
  staleMs?: number;
  /** Folders per pass. */
  batch?: number;
}

/**
 * Deletes the blobs of folders marked `scheduledForDeletion`: each is claimed by a
 * compare-and-set to `deleting` (so two servers never work on the same folder), its prefix is
 * removed through the blob store, and it ends `deleted`, or `failedToDelete` with the reason.
 * A folder whose worker died while `deleting` is taken up again once stale; deleting a prefix
 * twice is harmless.
 */
export class DeletionWorker {
  private readonly staleMs: number;
  private readonly batch: number;
  private log: DeletionLog = SILENT;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: DeletionWorkerOptions) {
    this.staleMs = options.staleMs ?? Math.max(60_000, options.pollMs * 10);
    this.batch = options.batch ?? 20;
  }

  start(log: DeletionLog = SILENT): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.log = log;
    this.wake();
  }

  /** Runs a pass now (or right after the one under way). */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.passes();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private async passes(): Promise<void> {
    do {
      this.again = false;
      try {
        // Folders keep coming while a pass finds a full batch.
        while ((await this.runOnce()) === this.batch && !this.stopped);
      } catch (e) {
        this.log.error({ err: (e as Error).message }, 'deletion pass failed');
      }
    } while (this.again && !this.stopped);
    this.running = null;
    if (!this.stopped) this.timer = setTimeout(() => this.wake(), this.options.pollMs);
  }

  /** One pass: claims and deletes up to a batch of folders; resolves to how many it took. */
  async runOnce(): Promise<number> {
    const { db } = this.options;
    const stale = new Date(Date.now() - this.staleMs).toISOString();
    const due = await db
      .selectFrom('folders')
      .select(['id', 'workspace_id', 'bucket', 'storage_key', 'status', 'updated_at'])
      .where((eb) =>
        eb.or([eb('status', '=', 'scheduledForDeletion'), eb.and([eb('status', '=', 'deleting'), eb('updated_at', '<', stale)])]),
      )
      .orderBy('updated_at')
      .limit(this.batch)
      .execute();
    let taken = 0;
    for (const folder of due) {
      if (this.stopped) break;
      const claimed = await db
        .updateTable('folders')
        .set({ status: 'deleting', updated_at: isoNow() })
        .where('id', '=', folder.id)
        .where('status', '=', folder.status)
        .where('updated_at', '=', folder.updated_at)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 0) continue;
      taken++;
      await this.deleteFolder(folder);
    }
    return taken;
  }

  private async deleteFolder(folder: {
    id: string;
    workspace_id: string;
    bucket: string | null;
    storage_key: string | null;
  }): Promise<void> {
    const { db, blobs } = this.options;
    let outcome: { status: string; status_message: string | null };
    try {
      const key = folder.storage_key ?? '';
      // Only ever inside the workspace's own area: a folder row can never make the worker delete more.
      if (!folder.bucket || !key.startsWith(`${folder.workspace_id}/`))
        throw new Error(`refusing to delete "${key}": not inside the workspace's storage`);
      checkKey(key);
      const removed = await blobs.deletePrefix(folder.bucket, key);
      this.log.info({ folderId: folder.id, removed }, 'folder deleted');
      outcome = { status: 'deleted', status_message: null };
    } catch (e) {
      this.log.error({ folderId: folder.id, err: (e as Error).message }, 'folder deletion failed');
      outcome = { status: 'failedToDelete', status_message: (e as Error).message.slice(0, 1000) };
    }
    await db
      .updateTable('folders')
      .set({ ...outcome, updated_at: isoNow() })
      .where('id', '=', folder.id)
      .where('status', '=', 'deleting')
      .execute();
  }
}
