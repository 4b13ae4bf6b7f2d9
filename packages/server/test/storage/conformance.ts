// One behaviour for every blob store: this suite runs against the local store, S3 (s3rver) and Azure (Azurite).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { BlobKeyError, BlobNotFoundError, type BlobEntry, type BlobStore } from '../../src/storage/blob-store.js';

export interface ConformanceHarness {
  /** A working store. */
  store: BlobStore;
  /** A store of the same kind whose backend cannot be reached (any I/O would fail with another error). */
  unreachable: BlobStore;
  /** A store on the same backend as `store` that deletes in batches of `size` (to see deletePrefix batch). */
  withDeleteBatch(size: number): BlobStore;
  close(): Promise<void>;
}

let counter = 0;
/** A fresh bucket name, valid for S3 and Azure. */
export const bucketName = (tag = 'b') => `t-${tag}-${process.pid}-${Date.now().toString(36)}-${counter++}`;

export async function text(stream: Readable): Promise<string> {
  return (await bytes(stream)).toString('utf8');
}

export async function bytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

async function listAll(store: BlobStore, bucket: string, prefix: string, delimiter = false): Promise<BlobEntry[]> {
  return (await store.list(bucket, prefix, { delimiter })).entries;
}

const keysOf = (entries: BlobEntry[]) => entries.map((e) => e.key);

/** A stream of `size` deterministic bytes in odd-sized chunks. */
function generated(size: number, seed = 1): { stream: Readable; sha: string } {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let left = size;
  let n = seed;
  while (left > 0) {
    const len = Math.min(left, 65_521 + (n % 7) * 1_000);
    const chunk = Buffer.alloc(len, n % 251);
    chunk.writeUInt32BE(n, 0);
    hash.update(chunk);
    chunks.push(chunk);
    left -= len;
    n += 1;
  }
  return { stream: Readable.from(chunks), sha: hash.digest('hex') };
}

/** A stream that sends `before` bytes and then fails. */
function failing(before: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      if (sent >= before) {
        this.destroy(new Error('source failed'));
        return;
      }
      const len = Math.min(256 * 1024, before - sent);
      sent += len;
      this.push(Buffer.alloc(len, 7));
    },
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Keys that every store refuses before any I/O (T9). */
export const BAD_KEYS = [
  '',
  '..',
  '../x',
  'a/../../x',
  'a/./b',
  './a',
  '/etc/passwd',
  'a//b',
  'a/',
  'a\\b',
  '..\\x',
  'a\u0000b',
  'a\nb',
  'a\u007fb',
  '%2e%2e/x',
  '%2E%2E%2Fx',
  'a/%2e%2e%2f%2e%2e%2fx',
  '..%2fx',
  '%252e%252e%252fx',
  '%25252e%25252e/x',
  'a%00b',
  'a%5cb',
  '%2fetc/passwd',
  'C:/windows',
  'x'.repeat(1025),
  'é'.repeat(513),
  '.runyard-tmp-123',
];

export function blobStoreConformance(name: string, setup: () => Promise<ConformanceHarness>): void {
  describe(`blob store conformance: ${name}`, { timeout: 300_000 }, () => {
    let h: ConformanceHarness;
    let store: BlobStore;
    let bucket: string;

    before(async () => {
      h = await setup();
      store = h.store;
      bucket = bucketName(
        name
          .slice(0, 5)
          .toLowerCase()
          .replace(/[^a-z0-9]/g, 'x'),
      );
      await store.ensureBucket(bucket);
    });
    after(async () => {
      await h?.close();
    });

    it('creates buckets idempotently', async () => {
      await store.ensureBucket(bucket);
      await store.ensureBucket(bucket);
      assert.deepEqual((await store.list(bucket, '')).entries, []);
    });

    it('puts a buffer and gets, stats and lists it back', async () => {
      const t0 = Date.now();
      const put = await store.put(bucket, 'rt/hello.txt', Buffer.from('hello, world\n'), { contentType: 'text/plain' });
      assert.deepEqual(put, { size: 13 });
      assert.equal(await text(await store.get(bucket, 'rt/hello.txt')), 'hello, world\n');
      const st = await store.stat(bucket, 'rt/hello.txt');
      assert.ok(st);
      assert.equal(st.size, 13);
      assert.ok(st.lastModified instanceof Date);
      assert.ok(Math.abs(st.lastModified.getTime() - t0) < 60_000, `lastModified ${st.lastModified.toISOString()} is not about now`);
      const [entry] = (await store.list(bucket, 'rt')).entries;
      assert.equal(entry.key, 'rt/hello.txt');
      assert.equal(entry.name, 'hello.txt');
      assert.equal(entry.isDir, false);
      assert.equal(entry.size, 13);
      assert.ok(entry.lastModified instanceof Date);
    });

    it('reads a range of an object: from a byte to the end, and from a byte to a byte included', async () => {
      await store.put(bucket, 'range/digits.txt', Buffer.from('0123456789'));
      assert.equal(await text(await store.get(bucket, 'range/digits.txt', { start: 7 })), '789');
      assert.equal(await text(await store.get(bucket, 'range/digits.txt', { start: 2, end: 4 })), '234');
      // One byte (not byte 0: the S3 emulator, s3rver 3.7.1, reads "bytes=0-0" as the whole object, where S3 does not).
      assert.equal(await text(await store.get(bucket, 'range/digits.txt', { start: 5, end: 5 })), '5');
      await assert.rejects(store.get(bucket, 'range/none.txt', { start: 1 }), BlobNotFoundError);
    });

    it('puts empty objects, from a buffer and from a stream', async () => {
      assert.deepEqual(await store.put(bucket, 'empty/a', Buffer.alloc(0)), { size: 0 });
      assert.deepEqual(await store.put(bucket, 'empty/b', Readable.from([])), { size: 0 });
      for (const key of ['empty/a', 'empty/b']) {
        assert.equal((await bytes(await store.get(bucket, key))).length, 0);
        assert.equal((await store.stat(bucket, key))?.size, 0);
      }
    });

    it('puts a large stream (in parts where the store has them) and reads the same bytes', async () => {
      const size = 11 * 1024 * 1024 + 12_345;
      const { stream, sha: expected } = generated(size);
      assert.deepEqual(await store.put(bucket, 'big/data.bin', stream), { size });
      const got = await bytes(await store.get(bucket, 'big/data.bin'));
      assert.equal(got.length, size);
      assert.equal(sha(got), expected);
      assert.equal((await store.stat(bucket, 'big/data.bin'))?.size, size);
    });

    it('replaces an object on put; a put whose stream fails leaves the old object and nothing else', async () => {
      await store.put(bucket, 'over/x.txt', Buffer.from('first'));
      await store.put(bucket, 'over/x.txt', Buffer.from('second, longer'));
      assert.equal(await text(await store.get(bucket, 'over/x.txt')), 'second, longer');
      assert.equal((await store.stat(bucket, 'over/x.txt'))?.size, 14);
      await assert.rejects(store.put(bucket, 'over/x.txt', failing(6 * 1024 * 1024)), /source failed/);
      await assert.rejects(store.put(bucket, 'over/y.txt', failing(100_000)), /source failed/);
      assert.equal(await text(await store.get(bucket, 'over/x.txt')), 'second, longer');
      assert.equal(await store.stat(bucket, 'over/y.txt'), null);
      assert.deepEqual(keysOf(await listAll(store, bucket, 'over', true)), ['over/x.txt']);
    });

    it('keeps names with spaces, non-ASCII, %, +, ?, # and = exactly', async () => {
      const keys = ['odd/ümlaut file.txt', 'odd/100%.txt', 'odd/a%20b.txt', 'odd/plus+sign', 'odd/q?mark#hash=1', 'odd/日本語/ファイル'];
      for (const [i, key] of keys.entries()) await store.put(bucket, key, Buffer.from(`v${i}`));
      for (const [i, key] of keys.entries()) assert.equal(await text(await store.get(bucket, key)), `v${i}`, key);
      const listed = keysOf(await listAll(store, bucket, 'odd'));
      assert.deepEqual(new Set(listed), new Set(keys));
      assert.deepEqual(
        (await listAll(store, bucket, 'odd', true)).map((e) => [e.name, e.isDir]),
        [
          ['100%.txt', false],
          ['a%20b.txt', false],
          ['plus+sign', false],
          ['q?mark#hash=1', false],
          ['ümlaut file.txt', false],
          ['日本語', true],
        ],
      );
    });

    it('answers not found for missing objects and buckets', async () => {
      await assert.rejects(store.get(bucket, 'missing/nothing.txt'), BlobNotFoundError);
      assert.equal(await store.stat(bucket, 'missing/nothing.txt'), null);
      await store.delete(bucket, 'missing/nothing.txt');
      const absent = bucketName('absent');
      await assert.rejects(store.get(absent, 'a.txt'), BlobNotFoundError);
      assert.equal(await store.stat(absent, 'a.txt'), null);
      await assert.rejects(store.put(absent, 'a.txt', Buffer.from('x')), BlobNotFoundError);
      await assert.rejects(store.put(absent, 'a.txt', Readable.from([Buffer.from('x')])), BlobNotFoundError);
      assert.deepEqual(await store.list(absent, ''), { entries: [] });
      assert.deepEqual(await store.list(absent, 'a', { delimiter: true }), { entries: [] });
      assert.deepEqual(await store.list(bucket, 'missing'), { entries: [] });
      assert.equal(await store.deletePrefix(absent, 'a'), 0);
      await store.delete(absent, 'a.txt');
      // A folder is not an object.
      await store.put(bucket, 'folder/inside.txt', Buffer.from('x'));
      await assert.rejects(store.get(bucket, 'folder'), BlobNotFoundError);
      assert.equal(await store.stat(bucket, 'folder'), null);
    });

    describe('listing', () => {
      let lb: string;
      const files = ['ws1/a.txt', 'ws1/sub/b.txt', 'ws1/sub/deeper/c.txt', 'ws10/x.txt', 'ws1-x/y.txt', 'ws1.txt', 'top.txt'];
      before(async () => {
        lb = bucketName('list');
        await store.ensureBucket(lb);
        for (const key of files) await store.put(lb, key, Buffer.from(key));
      });

      it('lists every object under a folder, never a sibling with a longer name (ws1 vs ws10)', async () => {
        const expected = ['ws1/a.txt', 'ws1/sub/b.txt', 'ws1/sub/deeper/c.txt'];
        assert.deepEqual(keysOf(await listAll(store, lb, 'ws1')), expected);
        assert.deepEqual(keysOf(await listAll(store, lb, 'ws1/')), expected);
        assert.deepEqual(keysOf(await listAll(store, lb, 'ws1/sub')), ['ws1/sub/b.txt', 'ws1/sub/deeper/c.txt']);
        const all = await listAll(store, lb, '');
        assert.deepEqual(keysOf(all), [
          'top.txt',
          'ws1-x/y.txt',
          'ws1.txt',
          'ws1/a.txt',
          'ws1/sub/b.txt',
          'ws1/sub/deeper/c.txt',
          'ws10/x.txt',
        ]);
        for (const e of all) {
          assert.equal(e.isDir, false);
          assert.equal(e.size, Buffer.byteLength(e.key));
          assert.equal(e.name, e.key.split('/').pop());
        }
      });

      it('lists one level with the delimiter: folders end with / and come in key order', async () => {
        const root = await listAll(store, lb, '', true);
        assert.deepEqual(
          root.map((e) => [e.key, e.name, e.isDir]),
          [
            ['top.txt', 'top.txt', false],
            ['ws1-x/', 'ws1-x', true],
            ['ws1.txt', 'ws1.txt', false],
            ['ws1/', 'ws1', true],
            ['ws10/', 'ws10', true],
          ],
        );
        for (const e of root.filter((x) => x.isDir)) {
          assert.equal(e.size, 0);
          assert.equal(e.lastModified, null);
        }
        assert.deepEqual(
          (await listAll(store, lb, 'ws1', true)).map((e) => [e.key, e.isDir]),
          [
            ['ws1/a.txt', false],
            ['ws1/sub/', true],
          ],
        );
        assert.deepEqual(keysOf(await listAll(store, lb, 'ws1/sub/', true)), ['ws1/sub/b.txt', 'ws1/sub/deeper/']);
        assert.deepEqual(await store.list(lb, 'ws1/a.txt', { delimiter: true }), { entries: [] });
      });

      it('pages with limit and cursor, flat and one level, to the same result as one call', async () => {
        const pb = bucketName('page');
        await store.ensureBucket(pb);
        const keys = Array.from({ length: 25 }, (_, i) => `p/k${String(i).padStart(2, '0')}`).concat(['p/d1/x', 'p/d2/y', 'q/other']);
        await Promise.all(keys.map((k) => store.put(pb, k, Buffer.from(k))));
        for (const [delimiter, limit, sizes] of [
          [false, 7, [7, 7, 7, 6]],
          [true, 4, [4, 4, 4, 4, 4, 4, 3]],
          [false, 27, [27]],
          [true, 100, [27]],
        ] as const) {
          const whole = await listAll(store, pb, 'p', delimiter);
          assert.equal(whole.length, 27);
          const seen: BlobEntry[] = [];
          const pageSizes: number[] = [];
          let cursor: string | undefined;
          do {
            const page = await store.list(pb, 'p', { delimiter, limit, cursor });
            assert.ok(page.entries.length <= limit);
            pageSizes.push(page.entries.length);
            seen.push(...page.entries);
            cursor = page.cursor;
            assert.ok(pageSizes.length < 20, 'paging does not end');
          } while (cursor);
          assert.deepEqual(keysOf(seen), keysOf(whole), `delimiter ${delimiter}, limit ${limit}`);
          assert.deepEqual(pageSizes, sizes, `page sizes, delimiter ${delimiter}, limit ${limit}`);
        }
        assert.equal(await h.store.deletePrefix(pb, 'p'), 27);
      });
    });

    it('deletes objects; a folder whose last object is gone is not listed any more', async () => {
      await store.put(bucket, 'del/only/x.txt', Buffer.from('x'));
      await store.put(bucket, 'del/keep.txt', Buffer.from('k'));
      assert.deepEqual(keysOf(await listAll(store, bucket, 'del', true)), ['del/keep.txt', 'del/only/']);
      await store.delete(bucket, 'del/only/x.txt');
      await store.delete(bucket, 'del/only/x.txt');
      assert.equal(await store.stat(bucket, 'del/only/x.txt'), null);
      await assert.rejects(store.get(bucket, 'del/only/x.txt'), BlobNotFoundError);
      assert.deepEqual(keysOf(await listAll(store, bucket, 'del', true)), ['del/keep.txt']);
      // Deleting a "folder" as a key deletes nothing.
      await store.put(bucket, 'del/f/y.txt', Buffer.from('y'));
      await store.delete(bucket, 'del/f');
      assert.equal(await text(await store.get(bucket, 'del/f/y.txt')), 'y');
    });

    it('deletes everything under a folder, in batches, and nothing beside it', async () => {
      const db = bucketName('dp');
      await store.ensureBucket(db);
      const under = Array.from({ length: 23 }, (_, i) => `ws/jobs/j1/${i % 3 ? 'work' : 'results'}/f${i}`);
      const beside = ['ws/jobs/j10/keep', 'ws/jobs/j1.txt', 'ws/jobs/j1-x/keep', 'ws/other'];
      await Promise.all([...under, ...beside].map((k) => store.put(db, k, Buffer.from(k))));
      const batched = h.withDeleteBatch(5);
      assert.equal(await batched.deletePrefix(db, 'ws/jobs/j1'), 23);
      assert.deepEqual(keysOf(await listAll(store, db, '')), ['ws/jobs/j1-x/keep', 'ws/jobs/j1.txt', 'ws/jobs/j10/keep', 'ws/other']);
      assert.equal(await store.deletePrefix(db, 'ws/jobs/j1/'), 0);
      assert.equal(await store.deletePrefix(db, 'nothing/here'), 0);
      await assert.rejects(store.deletePrefix(db, ''), BlobKeyError);
      assert.equal(await store.deletePrefix(db, 'ws/'), 4);
      assert.deepEqual(await store.list(db, ''), { entries: [] });
    });

    it('copies objects within and across buckets', async () => {
      const other = bucketName('copy');
      await store.ensureBucket(other);
      await store.put(bucket, 'cp/src.txt', Buffer.from('copy me'));
      await store.copy(bucket, 'cp/src.txt', bucket, 'cp/dst/same.txt');
      await store.copy(bucket, 'cp/src.txt', other, 'elsewhere/deep/x.txt');
      assert.equal(await text(await store.get(bucket, 'cp/dst/same.txt')), 'copy me');
      assert.equal(await text(await store.get(other, 'elsewhere/deep/x.txt')), 'copy me');
      assert.equal(await text(await store.get(bucket, 'cp/src.txt')), 'copy me');
      await store.put(bucket, 'cp/src.txt', Buffer.from('changed'));
      await store.copy(bucket, 'cp/src.txt', other, 'elsewhere/deep/x.txt');
      assert.equal(await text(await store.get(other, 'elsewhere/deep/x.txt')), 'changed');
      await store.put(bucket, 'cp/ümlaut 100%.txt', Buffer.from('odd'));
      await store.copy(bucket, 'cp/ümlaut 100%.txt', other, 'odd/ümlaut 100%.txt');
      assert.equal(await text(await store.get(other, 'odd/ümlaut 100%.txt')), 'odd');
      await assert.rejects(store.copy(bucket, 'cp/missing.txt', other, 'x.txt'), BlobNotFoundError);
      await assert.rejects(store.copy(bucket, 'cp/src.txt', bucketName('absent'), 'x.txt'), BlobNotFoundError);
      await assert.rejects(store.copy(bucketName('absent'), 'cp/src.txt', other, 'y.txt'), BlobNotFoundError);
      assert.equal(await store.stat(other, 'x.txt'), null);
    });

    it('refuses invalid keys, prefixes and bucket names before any I/O', async () => {
      const dead = h.unreachable;
      const good = 'good-bucket';
      const started = Date.now();
      for (const key of BAD_KEYS) {
        const shown = JSON.stringify(key.slice(0, 40));
        await assert.rejects(dead.put(good, key, Buffer.from('x')), BlobKeyError, `put ${shown}`);
        await assert.rejects(dead.put(good, key, Readable.from([Buffer.from('x')])), BlobKeyError, `put stream ${shown}`);
        await assert.rejects(dead.get(good, key), BlobKeyError, `get ${shown}`);
        await assert.rejects(dead.stat(good, key), BlobKeyError, `stat ${shown}`);
        await assert.rejects(dead.delete(good, key), BlobKeyError, `delete ${shown}`);
        await assert.rejects(dead.copy(good, key, good, 'ok'), BlobKeyError, `copy from ${shown}`);
        await assert.rejects(dead.copy(good, 'ok', good, key), BlobKeyError, `copy to ${shown}`);
        if (key !== '' && key !== 'a/') {
          await assert.rejects(dead.list(good, key), BlobKeyError, `list ${shown}`);
          await assert.rejects(dead.deletePrefix(good, key), BlobKeyError, `deletePrefix ${shown}`);
        }
        if (dead.localPath) await assert.rejects(dead.localPath(good, key), BlobKeyError, `localPath ${shown}`);
      }
      for (const bad of ['', 'ab', 'Upper', 'a_b', '../x', 'a/b', '-ab', 'ab-', 'a..b', '192.168.0.1', 'x'.repeat(64), 'a\u0000b']) {
        const shown = JSON.stringify(bad);
        await assert.rejects(dead.ensureBucket(bad), BlobKeyError, `ensureBucket ${shown}`);
        await assert.rejects(dead.list(bad, ''), BlobKeyError, `list ${shown}`);
        await assert.rejects(dead.put(bad, 'ok', Buffer.from('x')), BlobKeyError, `put ${shown}`);
        await assert.rejects(dead.get(bad, 'ok'), BlobKeyError, `get ${shown}`);
        await assert.rejects(dead.stat(bad, 'ok'), BlobKeyError, `stat ${shown}`);
        await assert.rejects(dead.delete(bad, 'ok'), BlobKeyError, `delete ${shown}`);
        await assert.rejects(dead.deletePrefix(bad, 'ok'), BlobKeyError, `deletePrefix ${shown}`);
        await assert.rejects(dead.copy(bad, 'ok', good, 'ok'), BlobKeyError, `copy from ${shown}`);
        await assert.rejects(dead.copy(good, 'ok', bad, 'ok'), BlobKeyError, `copy to ${shown}`);
      }
      await assert.rejects(dead.list(good, '', { limit: 0 }), BlobKeyError);
      await assert.rejects(dead.list(good, '', { limit: 1.5 }), BlobKeyError);
      await assert.rejects(dead.list(good, '', { cursor: '' }), BlobKeyError);
      assert.ok(Date.now() - started < 5_000, 'refusals must not wait for the network');
    });
  });
}
