import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { openStore } from '../../src/store/database.js';
import { clearThreadTurn, newThreadTurnsBuffer, ThreadTurns } from '../../src/store/thread-turns.js';

const WORKER = new URL('../fixtures/thread-turns-worker.mjs', import.meta.url);

function thread(data: Record<string, unknown>) {
  const worker = new Worker(WORKER, { workerData: data });
  const messages: string[] = [];
  const waiters: Array<() => void> = [];
  worker.on('message', (m: string) => {
    messages.push(m);
    waiters.splice(0).forEach((w) => w());
  });
  const exited = new Promise<number>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', resolve);
  });
  const said = async (m: string) => {
    while (!messages.includes(m)) await new Promise<void>((r) => waiters.push(r));
  };
  return { worker, said, exited };
}

/**
 * A thread in `hogSlot` that takes turn after turn (counting them); once it has had 20, the test
 * runs with the other of slots 0 and 1 and a count of the hog's turns so far. The hog is stopped after.
 */
async function withHog(hogSlot: number, test: (mine: ThreadTurns, hogTurns: () => number) => Promise<void>): Promise<void> {
  const buffer = newThreadTurnsBuffer();
  const counter = new SharedArrayBuffer(8);
  const shared = new Int32Array(counter);
  const hog = thread({ buffer, slot: hogSlot, mode: 'hog', counter });
  try {
    while (Atomics.load(shared, 1) < 20) await tick();
    await test(new ThreadTurns({ buffer, slot: 1 - hogSlot }), () => Atomics.load(shared, 1));
    hog.worker.postMessage('stop');
    await hog.said('done');
  } finally {
    // Its message listener keeps it alive.
    await hog.worker.terminate();
  }
}

// The API's thread and the background thread take turns to write at one SQLite file (store/thread-turns.ts).
describe('thread turns at a SQLite database', { timeout: 120_000 }, () => {
  it('exclude each other across threads: no update is lost between a read and its write', async () => {
    const buffer = newThreadTurnsBuffer();
    const counter = new SharedArrayBuffer(8);
    const shared = new Int32Array(counter);
    const turns = 200;
    const a = thread({ buffer, slot: 1, mode: 'increment', turns, counter });
    const b = thread({ buffer, slot: 2, mode: 'increment', turns, counter });
    const mine = new ThreadTurns({ buffer, slot: 0 });
    for (let i = 0; i < turns; i++) {
      await mine.take();
      const seen = Atomics.load(shared, 0);
      await tick();
      Atomics.store(shared, 0, seen + 1);
      mine.release();
    }
    await Promise.all([a.said('done'), b.said('done')]);
    assert.equal(Atomics.load(shared, 0), 3 * turns);
    await Promise.all([a.exited, b.exited]);
  });

  it('the background thread goes first: it waits at most for the turn the API thread has now, however often the API takes turns', () =>
    // The API's slot (0) takes turn after turn.
    withHog(0, async (mine, hogTurns) => {
      for (let i = 0; i < 20; i++) {
        // take() says it waits before it first waits: from then on, only the hog's turn already granted may still count itself.
        const taking = mine.take();
        const before = hogTurns();
        await taking;
        const had = hogTurns() - before;
        mine.release();
        assert.ok(had <= 1, `the API thread had ${had} turns while the background thread waited`);
        await tick();
      }
    }));

  it('the API thread is not shut out: while the background thread takes turn after turn, it still gets its turns', () =>
    withHog(1, async (mine, hogTurns) => {
      for (let i = 0; i < 20; i++) {
        // Each time only once the hog has taken another turn: it is busy taking them (however the OS schedules the threads).
        const seen = hogTurns();
        while (hogTurns() === seen) await tick();
        await mine.take();
        // Held: the hog takes none until it is released.
        const held = hogTurns();
        for (let t = 0; t < 5; t++) await tick();
        assert.equal(hogTurns(), held, 'the background thread took a turn while the API thread held it');
        mine.release();
      }
    }));

  it('a thread that died holding its turn is cleared by the owner of the buffer, and the others go on', async () => {
    const buffer = newThreadTurnsBuffer();
    const dying = thread({ buffer, slot: 1, mode: 'die-holding' });
    await dying.said('holding');
    assert.equal(await dying.exited, 3);
    const mine = new ThreadTurns({ buffer, slot: 0 });
    let got = false;
    const taking = mine.take().then(() => (got = true));
    for (let i = 0; i < 20; i++) await tick();
    assert.equal(got, false, 'the dead thread still holds the turn until it is cleared');
    clearThreadTurn({ buffer, slot: 1 });
    await taking;
    mine.release();
  });

  it('two stores on one file in two threads: transactions that read, yield and write lose nothing', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-turns-'));
    const file = path.join(dir, 'db.sqlite');
    const buffer = newThreadTurnsBuffer();
    const store = openStore(`sqlite:${file}`, { threadTurns: { buffer, slot: 0 } });
    try {
      await sql`create table counter (n integer not null)`.execute(store.db);
      await sql`insert into counter (n) values (0)`.execute(store.db);
      const turns = 100;
      const other = thread({ buffer, slot: 1, mode: 'store', turns, file });
      for (let i = 0; i < turns; i++) {
        await store.db.transaction().execute(async (tx) => {
          const { rows } = await sql<{ n: number }>`select n from counter`.execute(tx);
          await tick();
          await sql`update counter set n = ${rows[0].n + 1}`.execute(tx);
        });
      }
      await other.said('done');
      await other.exited;
      const { rows } = await sql<{ n: number }>`select n from counter`.execute(store.db);
      assert.equal(rows[0].n, 2 * turns);
    } finally {
      await store.close();
    }
  });

  it("a store's reads take no turn (WAL readers never wait); its writes wait for the turn", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-turns-'));
    const buffer = newThreadTurnsBuffer();
    const store = openStore(`sqlite:${path.join(dir, 'db.sqlite')}`, { threadTurns: { buffer, slot: 0 } });
    try {
      await sql`create table counter (n integer not null)`.execute(store.db);
      // Another thread's turn (its slot, held from here).
      const other = new ThreadTurns({ buffer, slot: 1 });
      await other.take();
      const rows = await store.db
        .selectFrom('counter' as never)
        .selectAll()
        .execute();
      assert.deepEqual(rows, []);
      let written = false;
      const writing = sql`insert into counter (n) values (1)`.execute(store.db).then(() => (written = true));
      for (let i = 0; i < 20; i++) await tick();
      const waited = !written;
      other.release();
      await writing;
      assert.equal(waited, true, 'the write waits for the other thread to end its turn');
    } finally {
      await store.close();
    }
  });
});
