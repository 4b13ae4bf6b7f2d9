import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely';
import type { ThreadTurns } from './thread-turns.js';

/**
 * Kysely's SQLite dialect, with transactions that take the write lock when they begin (`begin
 * immediate`). Several connections use one database file (the API's and the scheduler thread's, or
 * other processes'): a deferred transaction that read first and then writes fails with SQLITE_BUSY
 * when another connection wrote meanwhile, whatever the busy timeout; an immediate one waits its
 * turn instead. With turns (thread-turns.ts), the threads of this process also take turns to write
 * (a transaction is one turn), so that neither starves the other in SQLite's busy handler. Reads
 * outside a transaction take no turn: in WAL mode they never wait for a writer.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly turns?: ThreadTurns,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return this.turns ? new TurnTakingSqliteDriver(this.settings, this.turns) : new ImmediateSqliteDriver(this.settings);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/** Kysely's driver has one connection, used by one query or transaction at a time: the turn is held until it is released. */
class TurnTakingSqliteDriver extends ImmediateSqliteDriver {
  private holding = false;

  constructor(
    settings: SqliteDialectConfig,
    private readonly turns: ThreadTurns,
  ) {
    super(settings);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        if (query.query.kind !== 'SelectQueryNode') await this.takeTurn();
        return connection.executeQuery<R>(query);
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.takeTurn();
    await super.beginTransaction(connection);
  }

  override async releaseConnection(): Promise<void> {
    if (this.holding) {
      this.holding = false;
      this.turns.release();
    }
    await super.releaseConnection();
  }

  private async takeTurn(): Promise<void> {
    if (this.holding) return;
    await this.turns.take();
    this.holding = true;
  }
}
