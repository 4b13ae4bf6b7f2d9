import type SQLite from 'better-sqlite3';
import { SqliteDialect, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { ConnectionQueue } from './connection-queue.js';
import { sameThreadWriters, type WriterTurn } from './same-thread-writers.js';
import type { ThreadTurns } from './thread-turns.js';
import type { WalSync } from './wal-sync.js';

export interface GroupCommitOptions {
  /** A read-only connection to the same file for the reads outside transactions (none for a database in memory). */
  reader?: SQLite.Database;
  /** Past this age (default 10 ms) or size (default 200) a batch commits as soon as its present member is done, even while others wait. */
  maxBatchMs?: number;
  maxBatchMembers?: number;
  /** This thread's turns at the file, shared with the process's other threads (thread-turns.ts). */
  turns?: ThreadTurns;
  /** Called after each commit with the number of writes, transactions and reads it made durable. */
  onCommit?: (members: number) => void;
  /** Called right after each COMMIT, before its sync: what it wrote is what readers see now, not yet durable. */
  onCommitted?: () => void;
  /**
   * For a connection with `synchronous = NORMAL`: syncs the WAL after each commit, off this thread
   * (wal-sync.ts). The turn to write is released at the commit; the members are answered after the sync.
   */
  walSync?: Pick<WalSync, 'sync' | 'syncNow' | 'close'>;
}

/**
 * Kysely's SQLite dialect with group commit: the writes and transactions of one connection that
 * come while others are under way share one SQLite transaction and one fsync, as PostgreSQL's
 * backends share a WAL flush.
 *
 * The writing connection runs one caller at a time (a write, or a whole transaction, as Kysely's
 * SQLite driver does). The first write opens a batch (`begin immediate`: the write lock, taken
 * when it begins, so a transaction never fails with SQLITE_BUSY half way); each transaction is a
 * savepoint in it, rolled back alone when it fails; a statement that fails is undone alone by
 * SQLite. The batch commits once nobody waits for the connection (after the callbacks of this
 * turn of the event loop, so the requests that came together join), as soon as another thread or
 * connection waits for the turn to write, or once it is maxBatchMs old or maxBatchMembers large. Nothing is revealed before it is durable: every member resolves
 * only after the commit (and, with walSync, the WAL's sync that follows it), and fails if either does. Reads outside transactions go to a
 * read-only connection: in WAL mode it sees what is committed, never waits for a writer, and so
 * never waits for a batch either. (Without one, for a database in memory, a read joins the open
 * batch and resolves after its commit.)
 *
 * A batch is one turn to write: for the connections of this thread to the same file
 * (same-thread-writers.ts) and, with turns, for the threads of this process, so that none waits
 * in SQLite's busy handler, which blocks its thread and is not fair. Other processes meet the busy timeout.
 */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(
    private readonly database: SQLite.Database,
    private readonly options: GroupCommitOptions = {},
  ) {
    super({ database });
  }

  override createDriver(): Driver {
    return new GroupCommitSqliteDriver(this.database, this.options);
  }
}

interface Batch {
  openedAt: number;
  members: number;
  /** Settles when the batch is committed (or is not). */
  done: Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  // A batch that fails before any member waits for it must not be an unhandled rejection.
  done.catch(() => undefined);
  return { openedAt: performance.now(), members: 0, done, resolve, reject };
}

/** One caller's use of the connection, from acquireConnection() to releaseConnection(). */
class Handle implements DatabaseConnection {
  /** Its transaction: the batch it runs in, and its savepoint there. */
  tx: { batch: Batch; savepoint: string } | null = null;
  /** It has the connection (it writes, or runs a transaction); reads do not take it. */
  holding = false;

  constructor(private readonly driver: GroupCommitSqliteDriver) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.driver.execute<R>(this, query);
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.driver.stream<R>(this, query);
  }
}

class GroupCommitSqliteDriver implements Driver {
  private readonly queue = new ConnectionQueue();
  private batch: Batch | null = null;
  private savepoints = 0;
  /** Turns with the other connections of this thread to the same file. */
  private readonly writers: WriterTurn | undefined;

  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly options: GroupCommitOptions,
  ) {
    this.writers = sameThreadWriters(sqlite.name);
  }

  async init(): Promise<void> {}

  /** The connection is taken by the first write or transaction, not here: reads do without it. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Handle(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle;
    await this.take(handle);
    const batch = await this.openBatch();
    const savepoint = `runyard_tx_${++this.savepoints}`;
    this.sqlite.exec(`savepoint ${savepoint}`);
    handle.tx = { batch, savepoint };
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle;
    const { batch, savepoint } = this.currentTx(handle);
    handle.tx = null;
    this.sqlite.exec(`release ${savepoint}`);
    await this.leave(handle, batch);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle;
    if (!handle.tx) return; // its commit failed: the batch is over already
    const { batch, savepoint } = handle.tx;
    handle.tx = null;
    if (this.batch === batch && this.sqlite.inTransaction) {
      try {
        this.sqlite.exec(`rollback to ${savepoint}; release ${savepoint}`);
      } catch (e) {
        this.failBatch(batch, e);
      }
    } else {
      this.failBatch(batch, new Error('SQLite rolled back the transaction'));
    }
    // What the failed transaction read of the others' writes is not revealed before they are durable.
    await this.leave(handle, batch).catch(() => undefined);
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    this.savepointCommand(connection as Handle, 'savepoint', name);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    this.savepointCommand(connection as Handle, 'rollback to', name);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    this.savepointCommand(connection as Handle, 'release', name);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const handle = connection as Handle;
    if (handle.tx) await this.rollbackTransaction(handle); // never left open: Kysely always ends its transactions first
    this.handOn(handle);
  }

  async destroy(): Promise<void> {
    if (this.batch) this.commit(this.batch);
    // The syncs under way end with it (one more, on this thread, covers them all).
    if (this.options.walSync) {
      try {
        this.options.walSync.syncNow();
      } catch {
        // Nothing was committed to a WAL by this connection (none was made).
      }
      this.options.walSync.close();
    }
    this.writers?.close();
    this.sqlite.close();
    this.options.reader?.close();
  }

  async execute<R>(handle: Handle, query: CompiledQuery): Promise<QueryResult<R>> {
    if (handle.tx) {
      this.currentTx(handle);
      return this.run<R>(this.sqlite.prepare(query.sql), query);
    }
    const { reader } = this.options;
    if (reader) {
      // In WAL mode a reader sees what is committed when it starts, never a batch under way, and never waits for it.
      const statement = reader.prepare(query.sql);
      if (statement.readonly) return this.run<R>(statement, query);
    }
    await this.take(handle);
    const statement = this.sqlite.prepare(query.sql);
    if (statement.readonly && !this.batch) return this.run<R>(statement, query);
    // A write opens a batch. Without a reader, a read joins the open one: it may see the batch's writes, so it waits for them to be durable.
    const batch = this.batch ?? (await this.openBatch());
    let result: QueryResult<R> | undefined;
    let failure: unknown;
    try {
      result = this.run<R>(statement, query);
    } catch (e) {
      failure = e;
    }
    if (failure === undefined) {
      await this.leave(handle, batch);
      return result!;
    }
    await this.leave(handle, batch).catch(() => undefined);
    throw failure;
  }

  async *stream<R>(handle: Handle, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    let database = this.options.reader ?? this.sqlite;
    if (handle.tx) {
      this.currentTx(handle);
      database = this.sqlite;
    } else if (!this.options.reader) {
      // Committed rows only: the open batch (of callers that left) commits first.
      await this.take(handle);
      if (this.batch) this.commit(this.batch);
    }
    for (const row of database.prepare(query.sql).iterate(query.parameters as unknown[])) yield { rows: [row as R] };
  }

  /** Runs one statement on the connection; a failure that ended the whole batch (SQLITE_FULL, an I/O error) ends it here too. */
  private run<R>(statement: SQLite.Statement, query: CompiledQuery): QueryResult<R> {
    const parameters = query.parameters as unknown[];
    try {
      if (statement.reader) return { rows: statement.all(parameters) as R[] };
      const { changes, lastInsertRowid } = statement.run(parameters);
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    } catch (e) {
      if (this.batch && !this.sqlite.inTransaction) this.failBatch(this.batch, e);
      throw e;
    }
  }

  /** A savepoint of the caller's own inside its transaction (Kysely's controlled transactions). */
  private savepointCommand(handle: Handle, command: string, name: string): void {
    this.currentTx(handle);
    this.sqlite.exec(`${command} "${name.replace(/"/g, '""')}"`);
  }

  /** The handle's transaction, while its batch lasts (after SQLite rolled a batch back, its members must not go on in autocommit). */
  private currentTx(handle: Handle): { batch: Batch; savepoint: string } {
    if (!handle.tx || handle.tx.batch !== this.batch) throw new Error('The transaction was rolled back: SQLite ended it after an error.');
    return handle.tx;
  }

  /** Opens a batch (called by the caller holding the connection): this thread's turn, then the write lock. */
  private async openBatch(): Promise<Batch> {
    if (this.batch) return this.batch;
    await this.writers?.take();
    try {
      await this.options.turns?.take();
    } catch (e) {
      this.writers?.release();
      throw e;
    }
    try {
      this.sqlite.exec('begin immediate');
    } catch (e) {
      this.releaseTurns();
      throw e;
    }
    this.batch = newBatch();
    return this.batch;
  }

  private async take(handle: Handle): Promise<void> {
    if (handle.holding) return;
    await this.queue.take();
    handle.holding = true;
  }

  /** The caller is done with the connection: the next one takes it, and the caller's work is revealed once its batch commits. */
  private leave(handle: Handle, batch: Batch): Promise<void> {
    batch.members++;
    this.handOn(handle);
    return batch.done;
  }

  /** Hands the connection (if the handle has it) to the next caller, committing the open batch first when it is due. */
  private handOn(handle: Handle): void {
    if (!handle.holding) return;
    handle.holding = false;
    const batch = this.batch;
    if (batch) {
      // The turn to write is not kept from another thread or connection that waits for it.
      const due =
        batch.members >= (this.options.maxBatchMembers ?? 200) ||
        performance.now() - batch.openedAt >= (this.options.maxBatchMs ?? 10) ||
        this.options.turns?.othersWaiting() === true ||
        this.writers?.othersWaiting() === true;
      if (due || !this.queue.waiting) {
        // Nobody waits: commit after this turn's callbacks, unless one of them took the connection meanwhile.
        if (due) this.commit(batch);
        else setImmediate(() => this.commitIfIdle(batch));
      }
    }
    this.queue.handOn();
  }

  private commitIfIdle(batch: Batch): void {
    if (this.batch === batch && !this.queue.held) this.commit(batch);
  }

  private commit(batch: Batch): void {
    this.batch = null;
    try {
      this.sqlite.exec('commit');
    } catch (e) {
      this.rollbackAll();
      batch.reject(e);
      return;
    } finally {
      this.releaseTurns();
    }
    const durable = () => {
      batch.resolve();
      this.options.onCommit?.(batch.members);
    };
    if (this.options.walSync) this.options.walSync.sync().then(durable, (e: unknown) => batch.reject(e));
    else durable();
    this.options.onCommitted?.();
  }

  private failBatch(batch: Batch, e: unknown): void {
    if (this.batch !== batch) return;
    this.batch = null;
    this.rollbackAll();
    this.releaseTurns();
    batch.reject(e);
  }

  private releaseTurns(): void {
    this.options.turns?.release();
    this.writers?.release();
  }

  private rollbackAll(): void {
    if (!this.sqlite.inTransaction) return;
    try {
      this.sqlite.exec('rollback');
    } catch {
      // Nothing more to undo: SQLite ended the transaction itself.
    }
  }
}
