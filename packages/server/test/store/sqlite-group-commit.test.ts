import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { GroupCommitSqliteDialect, type GroupCommitOptions } from '../../src/store/sqlite-group-commit.js';
import { WalSync } from '../../src/store/wal-sync.js';

interface Db {
  t: { id: string; n: number };
}

/** A group-committing connection to a new file, another plain connection that sees only what is committed, and the commits. */
function open(options: { failCommits?: number; reader?: boolean; walSync?: GroupCommitOptions['walSync'] } = {}) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-group-commit-')), 'db.sqlite');
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.exec('create table t (id text primary key, n integer not null)');
  let failCommits = options.failCommits ?? 0;
  // Only COMMIT fails, as an I/O error at the fsync would.
  const database = new Proxy(raw, {
    get: (target, key) => {
      if (key === 'exec')
        return (text: string) => {
          if (text === 'commit' && failCommits > 0) {
            failCommits--;
            throw new Error('disk I/O error');
          }
          return target.exec(text);
        };
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const commits: number[] = [];
  /** Per COMMIT (onCommitted): how many batches were answered (onCommit) before it. */
  const committedAfter: number[] = [];
  const db = new Kysely<Db>({
    dialect: new GroupCommitSqliteDialect(database, {
      onCommit: (members) => commits.push(members),
      onCommitted: () => committedAfter.push(commits.length),
      ...(options.reader && { reader: new SQLite(file, { readonly: true }) }),
      ...(options.walSync && { walSync: options.walSync }),
      // Batches end by size and idleness only: a loaded machine's pauses do not split them.
      maxBatchMs: 600_000,
    }),
  });
  const observer = new SQLite(file, { readonly: true });
  const committed = (id: string) => observer.prepare('select count(*) as n from t where id = ?').get(id) as { n: number };
  const ids = () => (observer.prepare('select id from t order by id').all() as Array<{ id: string }>).map((r) => r.id);
  return {
    db,
    commits,
    committedAfter,
    isCommitted: (id: string) => committed(id).n === 1,
    ids,
    close: async () => {
      observer.close();
      await db.destroy();
    },
  };
}

/** A test on a fresh file: closed after it, whatever it did. */
async function withStore(test: (s: ReturnType<typeof open>) => Promise<void>, options: Parameters<typeof open>[0] = {}) {
  const s = open(options);
  try {
    await test(s);
  } finally {
    await s.close();
  }
}

/** This process's descriptors open on the file of that name now. */
const openDescriptorsTo = (file: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });

const insert = (db: Kysely<Db>, id: string) => db.insertInto('t').values({ id, n: 1 }).execute();

describe('SQLite group commit (store/sqlite-group-commit.ts)', () => {
  it('writes that come together share one commit, and each resolves only once it is durable', () =>
    withStore(async (s) => {
      const ids = Array.from({ length: 20 }, (_, i) => `w${String(i).padStart(2, '0')}`);
      const seenAtResolve = await Promise.all(ids.map((id) => insert(s.db, id).then(() => s.isCommitted(id))));
      assert.deepEqual(seenAtResolve, Array(20).fill(true), 'another connection sees each write when its caller is told');
      assert.equal(s.commits.length, 1, `one commit for 20 concurrent writes, not ${s.commits.length}`);
      assert.deepEqual(s.ids(), ids);
    }));

  it('writes awaited one after another commit one by one', () =>
    withStore(async (s) => {
      await insert(s.db, 'a');
      assert.equal(s.isCommitted('a'), true);
      await insert(s.db, 'b');
      assert.deepEqual(s.commits, [1, 1]);
    }));

  it('a read that runs inside an open batch sees its writes but answers only after they are durable', () =>
    withStore(async (s) => {
      const write = insert(s.db, 'x');
      const count = await s.db
        .selectFrom('t')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
        .then((r) => ({ n: Number(r.n), committed: s.isCommitted('x') }));
      await write;
      assert.deepEqual(count, { n: 1, committed: true });
      assert.deepEqual(s.commits, [2]);
    }));

  it('a transaction that fails is undone alone; the others of its batch commit', () =>
    withStore(async (s) => {
      const results = await Promise.allSettled([
        s.db.transaction().execute(async (tx) => {
          await insert(tx, 'b1');
          await insert(tx, 'b2');
        }),
        s.db.transaction().execute(async (tx) => {
          await insert(tx, 'f1');
          throw new Error('refused half way');
        }),
        insert(s.db, 'c'),
        s.db.transaction().execute(async (tx) => {
          await insert(tx, 'd');
          await tx.updateTable('t').set({ n: 2 }).where('id', '=', 'd').execute();
        }),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /refused half way/);
      assert.deepEqual(s.ids(), ['b1', 'b2', 'c', 'd']);
      assert.equal(s.commits.length, 1);
      const d = await s.db.selectFrom('t').select('n').where('id', '=', 'd').executeTakeFirstOrThrow();
      assert.equal(d.n, 2);
    }));

  it('a statement that fails (a duplicate key) fails alone', () =>
    withStore(async (s) => {
      await insert(s.db, 'dup');
      const results = await Promise.allSettled([insert(s.db, 'e1'), insert(s.db, 'dup'), insert(s.db, 'e2')]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE constraint failed/);
      assert.deepEqual(s.ids(), ['dup', 'e1', 'e2']);
    }));

  it('a commit that fails fails every member of its batch and leaves nothing; the next batch works', () =>
    withStore(
      async (s) => {
        const results = await Promise.allSettled([
          insert(s.db, 'l1'),
          s.db.transaction().execute((tx) => insert(tx, 'l2')),
          s.db.selectFrom('t').selectAll().execute(),
        ]);
        assert.deepEqual(
          results.map((r) => r.status),
          ['rejected', 'rejected', 'rejected'],
        );
        for (const r of results) assert.match(String((r as PromiseRejectedResult).reason), /disk I\/O error/);
        assert.deepEqual(s.ids(), []);
        await insert(s.db, 'after');
        assert.deepEqual(s.ids(), ['after']);
      },
      { failCommits: 1 },
    ));

  it('a batch is bounded: past its size it commits while callers still wait', () =>
    withStore(async (s) => {
      await Promise.all(Array.from({ length: 450 }, (_, i) => insert(s.db, `m${i}`)));
      assert.deepEqual(s.commits, [200, 200, 50]);
      assert.equal(s.ids().length, 450);
    }));

  it('a transaction reads its own writes and the batch keeps their order', () =>
    withStore(async (s) => {
      const [, total] = await Promise.all([
        insert(s.db, 'o1'),
        s.db.transaction().execute(async (tx) => {
          await insert(tx, 'o2');
          const row = await tx
            .selectFrom('t')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow();
          return Number(row.n);
        }),
      ]);
      assert.equal(total, 2, 'the transaction sees the write queued before it and its own');
      assert.equal((await sql<{ n: number }>`select count(*) as n from t`.execute(s.db)).rows[0].n, 2);
    }));
  it('with a reader connection, a read while a batch is open answers at once, from what is committed', () =>
    withStore(
      async (s) => {
        await insert(s.db, 'before');
        let finish!: () => void;
        const held = new Promise<void>((resolve) => (finish = resolve));
        // A transaction that has written and holds the batch open until told.
        const writing = s.db.transaction().execute(async (tx) => {
          await insert(tx, 'during');
          await held;
        });
        await new Promise((resolve) => setImmediate(resolve));
        const seen = (await s.db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id);
        assert.deepEqual(seen, ['before'], 'the read neither waited for the batch nor saw its write');
        finish();
        await writing;
        assert.deepEqual(
          (await s.db.selectFrom('t').select('id').orderBy('id').execute()).map((r) => r.id),
          ['before', 'during'],
        );
      },
      { reader: true },
    ));
  it('with a WAL sync: a write is answered only once the sync after its commit is done; the turn is free at the commit', async () => {
    const syncs: Array<{ resolve(): void; reject(e: Error): void }> = [];
    const walSync = {
      sync: () => new Promise<void>((resolve, reject) => syncs.push({ resolve, reject })),
      syncNow: () => undefined,
      close: () => undefined,
    };
    await withStore(
      async (s) => {
        let answered = false;
        const first = insert(s.db, 'a').then(() => (answered = true));
        while (!syncs.length) await new Promise((r) => setImmediate(r));
        // Committed (another connection sees it), not yet answered: the sync is under way.
        assert.equal(s.isCommitted('a'), true);
        assert.deepEqual(s.committedAfter, [0], 'onCommitted was told at the commit, before the batch was answered');
        await new Promise((r) => setImmediate(r));
        assert.equal(answered, false);
        // The connection is not held for the sync: the next write commits meanwhile.
        const second = insert(s.db, 'b');
        while (syncs.length < 2) await new Promise((r) => setImmediate(r));
        assert.equal(s.isCommitted('b'), true);
        syncs[0].resolve();
        await first;
        assert.equal(answered, true);
        // A sync that fails fails its batch's callers.
        syncs[1].reject(new Error('EIO: i/o error, fdatasync'));
        await assert.rejects(second, /EIO/);
        assert.deepEqual(s.commits, [1]);
      },
      { walSync },
    );
  });

  it('WalSync runs one sync at a time: the callers that come while one is under way share the next, which begins after it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-wal-sync-'));
    const file = path.join(dir, 'db.sqlite-wal');
    writeFileSync(file, '');
    const held: ((e: NodeJS.ErrnoException | null) => void)[] = [];
    const sync = new WalSync(file, (_fd, done) => held.push(done));
    const settled: string[] = [];
    const track = (name: string, p: Promise<void>) =>
      p.then(
        () => settled.push(`${name} ok`),
        (e: Error) => settled.push(`${name} ${e.message}`),
      );
    const tick = () => new Promise((r) => setImmediate(r));
    try {
      const a = track('a', sync.sync());
      const b = track('b', sync.sync());
      const c = track('c', sync.sync());
      await tick();
      assert.equal(held.length, 1, 'b and c wait: the sync under way may have begun before their commits');
      held[0](null);
      await a;
      await tick();
      assert.deepEqual(settled, ['a ok']);
      assert.equal(held.length, 2, 'one more sync, for b and c together');
      // A caller that comes now needs one that begins after its commit: a third.
      const d = track('d', sync.sync());
      held[1](Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      await Promise.all([b, c]);
      assert.deepEqual(settled, ['a ok', 'b EIO: i/o error, fdatasync', 'c EIO: i/o error, fdatasync']);
      await tick();
      assert.equal(held.length, 3, "d's sync begins after the failed one");
      held[2](null);
      await d;
      assert.deepEqual(settled.slice(3), ['d ok']);
      // Nothing under way: the next caller's sync begins at once.
      const e = track('e', sync.sync());
      assert.equal(held.length, 4);
      held[3](null);
      await e;
      // Closed (after a final syncNow, as at the store's close): a sync still queued does not reopen the file,
      // and the one under way, whose descriptor went, resolves (syncNow did its work).
      const f = track('f', sync.sync());
      const g = track('g', sync.sync());
      sync.syncNow();
      sync.close();
      held[4](Object.assign(new Error('EBADF: bad file descriptor, fdatasync'), { code: 'EBADF' }));
      await Promise.all([f, g]);
      assert.deepEqual(settled.slice(4), ['e ok', 'f ok', 'g ok']);
      assert.equal(held.length, 5, 'no sync after the close');
      assert.deepEqual(openDescriptorsTo(file), []);
    } finally {
      sync.close();
    }
  });

  it('WalSync syncs the WAL file there is now, and says so when there is none', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-wal-sync-'));
    const file = path.join(dir, 'db.sqlite');
    const raw = new SQLite(file);
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.exec('create table t (id text primary key, n integer not null)');
    const sync = new WalSync(`${file}-wal`);
    try {
      await sync.sync();
      const before = openDescriptorsTo(`${file}-wal`);
      assert.equal(before.length, 2, "SQLite's descriptor and the sync's");
      // Another file under the name (never done by SQLite while a connection is open): the sync follows the name.
      writeFileSync(path.join(dir, 'other'), '');
      renameSync(path.join(dir, 'other'), `${file}-wal`);
      await sync.sync();
      assert.equal(openDescriptorsTo(`${file}-wal`).length, 1, "the sync reopened the name; the replaced file is SQLite's alone");
      rmSync(`${file}-wal`);
      await assert.rejects(sync.sync(), /ENOENT/);
    } finally {
      sync.close();
      raw.close();
    }
  });
});
