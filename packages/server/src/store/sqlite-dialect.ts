import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';
import type { ThreadTurns } from './thread-turns.js';

/**
 * Kysely's SQLite dialect, with transactions that take the write lock when they begin (`begin
 * immediate`). Several connections use one database file (the API's and the scheduler thread's, or
 * other processes'): a deferred transaction that read first and then writes fails with SQLITE_BUSY
 * when another connection wrote meanwhile, whatever the busy timeout; an immediate one waits its
 * turn instead. With turns (thread-turns.ts), the threads of this process also take turns at the
 * connection (a transaction is one turn), so that neither starves the other in SQLite's busy handler.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly turns?: ThreadTurns,
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings, this.turns);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly turns?: ThreadTurns,
  ) {
    super(settings);
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (this.turns) {
      try {
        await this.turns.take();
      } catch (e) {
        await super.releaseConnection();
        throw e;
      }
    }
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.turns?.release();
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
