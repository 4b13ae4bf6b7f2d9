import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from 'node:fs';

/**
 * Makes what was committed to a SQLite file in WAL mode durable, off the calling thread: an
 * fdatasync of the WAL file on libuv's thread pool.
 *
 * With `synchronous = FULL` SQLite fsyncs the WAL inside COMMIT, and the thread that commits
 * (with better-sqlite3, the event loop of the API or of the scheduler) stands still for it: about
 * 2 ms a commit on the machines measured, a fifth of the scheduler thread's time, and the other
 * thread's turn to write waited for it too. With `synchronous = NORMAL` COMMIT only writes the WAL
 * (SQLite still syncs at each checkpoint); the group commit (sqlite-group-commit.ts) then releases
 * the turn, syncs here, and answers its callers only once the sync is done: an acknowledged write
 * is as durable as with FULL. What differs: another connection may read a commit before its sync
 * ends (a power cut in that moment loses a write that someone read, never one that was
 * acknowledged).
 *
 * A sync covers everything written to the file before it, whoever wrote it: a write that depends
 * on another's (a claim of a job another thread inserted) is made durable after it.
 */
export class WalSync {
  private fd: number | null = null;
  private ino = -1;

  /** file: the database's WAL file (`<database>-wal`). */
  constructor(private readonly file: string) {}

  /** Syncs the WAL file as it is now; resolves when its contents are on disk. */
  sync(): Promise<void> {
    let fd: number;
    try {
      fd = this.current();
    } catch (e) {
      return Promise.reject(e as Error);
    }
    return new Promise((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
  }

  /** The same, on this thread (at close). */
  syncNow(): void {
    fdatasyncSync(this.current());
  }

  /** Closes the descriptor; call after the last sync. */
  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  /**
   * The descriptor of the WAL file that is there now. SQLite keeps that file while a connection is
   * open and reuses it from its start after a checkpoint; should it ever be another one (removed
   * and made again), a sync of the old one would make nothing durable.
   */
  private current(): number {
    const ino = statSync(this.file).ino;
    if (this.fd === null || ino !== this.ino) {
      this.close();
      this.fd = openSync(this.file, 'r');
      this.ino = fstatSync(this.fd).ino;
    }
    return this.fd;
  }
}
