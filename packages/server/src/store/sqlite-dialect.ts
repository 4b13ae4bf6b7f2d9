import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * Kysely's SQLite dialect, with transactions that take the write lock when they begin (`begin
 * immediate`). Several connections use one database file (the API's and the scheduler thread's, or
 * other processes'): a deferred transaction that read first and then writes fails with SQLITE_BUSY
 * when another connection wrote meanwhile, whatever the busy timeout; an immediate one waits its
 * turn instead.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
