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
  /** The sync under way, if any. */
  private running: Promise<void> | null = null;
  /** The one that begins when it ends, shared by every caller that came meanwhile. */
  private queued: Promise<void> | null = null;
  private closed = false;

  /** file: the database's WAL file (`<database>-wal`); syncData: fdatasync (a test's own, to hold it). */
  constructor(
    private readonly file: string,
    private readonly syncData: (fd: number, done: (e: NodeJS.ErrnoException | null) => void) => void = fdatasync,
  ) {}

  /**
   * Syncs the WAL file as it is now; resolves when its contents are on disk. One sync at a time:
   * a caller that comes while one is under way (which may have begun before its commit) waits for
   * the next, which all such callers share. Under a stream of commits (a busy API's), each was a
   * sync of its own, and they queued on libuv's four threads in front of the other thread's syncs
   * and file reads.
   */
  sync(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.begin();
    this.queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.begin();
      });
    return this.queued;
  }

  private begin(): Promise<void> {
    if (this.closed) return Promise.resolve();
    let fd: number;
    try {
      fd = this.current();
    } catch (e) {
      return Promise.reject(e as Error);
    }
    // A sync that ends after close() (EBADF: the descriptor went) had syncNow() do its work.
    const running = new Promise<void>((resolve, reject) => this.syncData(fd, (e) => (e && !this.closed ? reject(e) : resolve())));
    this.running = running;
    const over = () => {
      if (this.running === running) this.running = null;
    };
    running.then(over, over);
    return running;
  }

  /** The same, on this thread (at close). */
  syncNow(): void {
    fdatasyncSync(this.current());
  }

  /**
   * Closes the descriptor. Call it after syncNow(), which made all that was committed durable: a
   * sync still queued then has nothing left to do, and resolves without reopening the file; one
   * under way resolves whatever it met.
   */
  close(): void {
    this.closed = true;
    this.closeDescriptor();
  }

  private closeDescriptor(): void {
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
      this.closeDescriptor();
      this.fd = openSync(this.file, 'r');
      this.ino = fstatSync(this.fd).ino;
    }
    return this.fd;
  }
}
