import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import type Pg from 'pg';
import { makePrivateDatabaseFile, makePrivateDir } from './private-files.js';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import { ThreadTurns, type ThreadTurnsHandle } from './thread-turns.js';
import { WalSync } from './wal-sync.js';
import type { Database } from './schema.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  kind: DatabaseKind;
  /**
   * SQLite files only: a number that changes with every commit to the file, by any connection,
   * thread or process (PRAGMA data_version of a read-only connection that never writes, nor reads).
   * Read it before a read begins, to keep what the read computed until the next commit (VersionedCache).
   */
  dataVersion?: () => number;
  /**
   * SQLite files only: calls listener right after each commit of this store's writes, before the
   * commit is synced (its callers are answered after the sync). Returns what removes it.
   */
  onCommitted?: (listener: () => void) => () => void;
  close(): Promise<void>;
}

const requireModule = createRequire(import.meta.url);
let pgModule: typeof Pg | undefined;

/** The PostgreSQL driver, loaded with the first PostgreSQL store (a server on SQLite does without its memory). */
function loadPg(): typeof Pg {
  if (!pgModule) {
    pgModule = requireModule('pg') as typeof Pg;
    // PostgreSQL returns COUNT(*) and BIGINT as strings; our counts fit in a JS number.
    pgModule.types.setTypeParser(20, (v) => Number(v));
  }
  return pgModule;
}

export interface StoreOptions {
  /** SQLite: this thread's turns at the file, shared with the process's other threads (thread-turns.ts). */
  threadTurns?: ThreadTurnsHandle;
  /** SQLite: how the WAL file is synced (fdatasync; a test's own, to hold it). */
  syncData?: ConstructorParameters<typeof WalSync>[1];
}

/** Opens the database named by the URL: `sqlite:<file>` (WAL, group commit, each synced before it is answered) or `postgres://...`. */
export function openStore(url: string, options: StoreOptions = {}): Store {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const pool = new (loadPg().Pool)({ connectionString: url, max: 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  const file = url.replace(/^sqlite:/, '');
  if (file !== ':memory:') {
    makePrivateDir(path.dirname(path.resolve(file)));
    // SQLite would create it with the umask's mode (644): it holds every key's hash and all job data.
    makePrivateDatabaseFile(file);
  }
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  // Acknowledged means durable: every commit is fsynced before the reply. In memory: nothing to sync.
  // A file: COMMIT writes the WAL (NORMAL) and the group commit syncs it off this thread before
  // answering (wal-sync.ts), rather than SQLite in COMMIT with the thread standing still (FULL).
  const walSync = file === ':memory:' ? undefined : new WalSync(`${file}-wal`, options.syncData);
  sqlite.pragma(walSync ? 'synchronous = NORMAL' : 'synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // Statement journals in memory: a statement in a group commit's transaction (one savepoint each)
  // that changes more than 64 KiB of pages spilled its journal to a temporary file, made and
  // unlinked at once (~0.4 a job, each an inode allocated and freed: slow on a loaded ext4).
  sqlite.pragma('temp_store = MEMORY');
  const turns = options.threadTurns ? new ThreadTurns(options.threadTurns) : undefined;
  // Reads outside transactions: a connection of their own, which never waits for the writer's group of commits.
  const reader = file === ':memory:' ? undefined : readOnlyConnection(file);
  const committed = new Set<() => void>();
  const db = new Kysely<Database>({
    dialect: new GroupCommitSqliteDialect(withStatementCache(sqlite), {
      turns,
      reader: reader && withStatementCache(reader),
      walSync,
      onCommitted: () => committed.forEach((listener) => listener()),
    }),
  });
  // The commit counter on a read-only connection of its own: one that a read is streaming on
  // (an open read transaction) would show no commit until the stream ends.
  const versions = reader && readOnlyConnection(file);
  const version = versions?.prepare('pragma data_version').pluck();
  return {
    db,
    kind: 'sqlite',
    ...(version && { dataVersion: () => version.get() as number }),
    ...(walSync && {
      onCommitted: (listener: () => void) => {
        committed.add(listener);
        return () => committed.delete(listener);
      },
    }),
    close: async () => {
      await db.destroy();
      versions?.close();
    },
  };
}

/** A read-only connection to the file that waits, like the writer, up to 5 s where SQLite says it is busy. */
function readOnlyConnection(file: string): SQLite.Database {
  const connection = new SQLite(file, { readonly: true });
  connection.pragma('busy_timeout = 5000');
  return connection;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; preparing is a good part of a short query's cost on SQLite.
 * Statements are kept by their SQL text (the oldest dropped past the limit) and reused.
 */
function withStatementCache(sqlite: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      statement = sqlite.prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, statement);
    }
    return statement;
  };
  return new Proxy(sqlite, {
    get: (target, key) => {
      if (key === 'prepare') return prepare;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
