// The local blob store: the shared conformance suite, and T9 (path traversal) on a real file system.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { jobPaths, defaultBucketOf } from '../../src/scheduler/job-paths.js';
import { BlobKeyError, BlobNotFoundError } from '../../src/storage/blob-store.js';
import { isPathInside, LocalBlobStore, localStorageRoot } from '../../src/storage/local.js';
import { BAD_KEYS, blobStoreConformance, text } from './conformance.js';

blobStoreConformance('local', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-local-store-'));
  const store = new LocalBlobStore(path.join(dir, 'storage'));
  return {
    store,
    unreachable: new LocalBlobStore(path.join(dir, 'does-not-exist', 'storage')),
    withDeleteBatch: () => store,
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

/** Every file below a directory, as relative paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => !d.isDirectory())
    .map((d) => path.relative(dir, path.join(d.parentPath ?? (d as unknown as { path: string }).path, d.name)))
    .sort();
}

describe('local blob store: T9 path traversal', { timeout: 300_000 }, () => {
  let dir: string;
  let root: string;
  let outside: string;
  let store: LocalBlobStore;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-t9-'));
    root = path.join(dir, 'storage');
    outside = path.join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    store = new LocalBlobStore(root);
    for (const b of ['ws1', 'ws10']) await store.ensureBucket(b);
    await store.put('ws10', 'private.txt', Buffer.from('ws10 only'));
    await store.put('ws1', 'inside/real.txt', Buffer.from('real'));
    // Links inside bucket ws1: out of the storage, to the sibling bucket ws10, to a file outside, and one that stays inside.
    symlinkSync(outside, path.join(root, 'ws1', 'out'));
    symlinkSync(path.join(root, 'ws10'), path.join(root, 'ws1', 'sibling'));
    symlinkSync('../ws10', path.join(root, 'ws1', 'sibling-rel'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'ws1', 'secret-link.txt'));
    symlinkSync('inside', path.join(root, 'ws1', 'alias'));
    symlinkSync(path.join(root, 'ws1', 'inside', 'nothing'), path.join(root, 'ws1', 'dangling'));
    symlinkSync(path.join(outside, 'nothing'), path.join(root, 'ws1', 'dangling-out'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('tells a path inside a directory from a sibling with a longer name', () => {
    assert.equal(isPathInside('/data/ws1', '/data/ws1'), true);
    assert.equal(isPathInside('/data/ws1', '/data/ws1/x'), true);
    assert.equal(isPathInside('/data/ws1/', '/data/ws1/x'), true);
    assert.equal(isPathInside('/data/ws1', '/data/ws10'), false);
    assert.equal(isPathInside('/data/ws1', '/data/ws10/x'), false);
    assert.equal(isPathInside('/data/ws1', '/data/ws1.bak/x'), false);
    assert.equal(isPathInside('/data/ws1', '/data'), false);
    assert.equal(isPathInside('/data/ws1', '/'), false);
  });

  it('refuses keys through a link that leads out of the storage or to a sibling bucket', async () => {
    // Keys beyond a link are refused whether or not something is there, so answers do not tell what exists outside.
    for (const key of [
      'out/secret.txt',
      'out/nothing.txt',
      'out/no/such/file',
      'sibling/private.txt',
      'sibling-rel/private.txt',
      'secret-link.txt',
      // Dangling or not, a link out is refused the same way: the answer does not tell what exists outside.
      'dangling-out',
    ]) {
      await assert.rejects(store.get('ws1', key), BlobKeyError, `get ${key}`);
      await assert.rejects(store.stat('ws1', key), BlobKeyError, `stat ${key}`);
      await assert.rejects(store.copy('ws1', key, 'ws1', 'copied.txt'), BlobKeyError, `copy ${key}`);
      await assert.rejects(store.localPath('ws1', key), BlobKeyError, `localPath ${key}`);
    }
    for (const key of ['out/new.txt', 'out/deeper/new.txt', 'sibling/new.txt', 'sibling-rel/x/new.txt']) {
      await assert.rejects(store.put('ws1', key, Buffer.from('x')), BlobKeyError, `put ${key}`);
      await assert.rejects(store.put('ws1', key, Readable.from([Buffer.from('x')])), BlobKeyError, `put stream ${key}`);
      await assert.rejects(store.copy('ws1', 'inside/real.txt', 'ws1', key), BlobKeyError, `copy to ${key}`);
      await assert.rejects(store.localPath('ws1', key), BlobKeyError, `localPath ${key}`);
    }
    for (const prefix of ['out', 'sibling', 'sibling-rel/', 'out/deeper']) {
      await assert.rejects(store.list('ws1', prefix), BlobKeyError, `list ${prefix}`);
      await assert.rejects(store.list('ws1', prefix, { delimiter: true }), BlobKeyError, `list one level ${prefix}`);
    }
    await assert.rejects(store.delete('ws1', 'out/secret.txt'), BlobKeyError);
    await assert.rejects(store.delete('ws1', 'sibling/private.txt'), BlobKeyError);
    await assert.rejects(store.deletePrefix('ws1', 'out/sub'), BlobKeyError);
    // Nothing outside was read, written or removed.
    assert.deepEqual(filesUnder(outside), ['secret.txt']);
    assert.equal(readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'secret');
    assert.equal(await text(await store.get('ws10', 'private.txt')), 'ws10 only');
    assert.deepEqual(
      (await store.list('ws10', '')).entries.map((e) => e.key),
      ['private.txt'],
    );
  });

  it('does not list links that lead outside the bucket, and follows the ones that stay inside', async () => {
    assert.deepEqual(
      (await store.list('ws1', '', { delimiter: true })).entries.map((e) => [e.key, e.isDir]),
      [
        ['alias/', true],
        ['inside/', true],
      ],
    );
    assert.deepEqual(
      (await store.list('ws1', '')).entries.map((e) => e.key),
      ['alias/real.txt', 'inside/real.txt'],
    );
    assert.equal(await text(await store.get('ws1', 'alias/real.txt')), 'real');
  });

  it('removes a link, never what it points to', async () => {
    const b = 'links';
    await store.ensureBucket(b);
    symlinkSync(outside, path.join(root, b, 'dir-link'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, b, 'file-link'));
    mkdirSync(path.join(root, b, 'folder'));
    symlinkSync(outside, path.join(root, b, 'folder', 'nested-link'));
    await store.delete(b, 'file-link');
    assert.equal(await store.deletePrefix(b, 'dir-link'), 1);
    assert.equal(await store.deletePrefix(b, 'folder'), 1);
    assert.deepEqual(readdirSync(path.join(root, b)), []);
    assert.deepEqual(filesUnder(outside), ['secret.txt']);
  });

  it('refuses a bucket directory that is a link out of the storage directory', async () => {
    symlinkSync(outside, path.join(root, 'evil'));
    await assert.rejects(store.get('evil', 'secret.txt'), BlobKeyError);
    await assert.rejects(store.list('evil', ''), BlobKeyError);
    await assert.rejects(store.put('evil', 'x.txt', Buffer.from('x')), BlobKeyError);
    await assert.rejects(store.ensureBucket('evil'), BlobKeyError);
    await assert.rejects(store.deletePrefix('evil', 'a'), BlobKeyError);
    assert.deepEqual(filesUnder(outside), ['secret.txt']);
  });

  it('refuses encoded, doubly encoded and literal traversal, NUL and absolute paths', async () => {
    for (const key of BAD_KEYS) {
      await assert.rejects(store.get('ws1', key), BlobKeyError, JSON.stringify(key.slice(0, 40)));
      await assert.rejects(store.put('ws1', key, Buffer.from('x')), BlobKeyError, JSON.stringify(key.slice(0, 40)));
    }
    for (const key of [
      '%2e%2e/ws10/private.txt',
      '..%2fws10%2fprivate.txt',
      '%252e%252e%252fws10%252fprivate.txt',
      '../ws10/private.txt',
    ]) {
      await assert.rejects(store.get('ws1', key), BlobKeyError, key);
      await assert.rejects(store.list('ws1', key), BlobKeyError, key);
    }
    assert.deepEqual(filesUnder(path.join(root, 'ws10')), ['private.txt']);
  });

  it('answers not found, not an error, for a dangling link that stays inside the bucket', async () => {
    await assert.rejects(store.get('ws1', 'dangling'), BlobNotFoundError);
    assert.equal(await store.stat('ws1', 'dangling'), null);
  });
});

describe('local blob store reached through a linked data directory', () => {
  it("follows a task's absolute link that names the bucket by the linked path, and lists what it leads to", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-linked-'));
    try {
      mkdirSync(path.join(dir, 'real', 'storage', 'bkt', 'work'), { recursive: true });
      symlinkSync(path.join(dir, 'real'), path.join(dir, 'data'));
      // The store and the task name the storage as configured (through the link), as a job's sandbox binds it.
      const store = new LocalBlobStore(path.join(dir, 'data', 'storage'));
      writeFileSync(path.join(dir, 'real', 'storage', 'bkt', 'work', 'out.txt'), 'published');
      mkdirSync(path.join(dir, 'real', 'storage', 'bkt', 'results'));
      symlinkSync(
        path.join(dir, 'data', 'storage', 'bkt', 'work', 'out.txt'),
        path.join(dir, 'real', 'storage', 'bkt', 'results', 'out.txt'),
      );
      assert.equal(await text(await store.get('bkt', 'results/out.txt')), 'published');
      assert.deepEqual(
        (await store.list('bkt', 'results/')).entries.map((e) => [e.key, e.size]),
        [['results/out.txt', 9]],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('local blob store: layout, atomic writes, local paths', { timeout: 300_000 }, () => {
  let dataDir: string;
  let store: LocalBlobStore;
  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-local-layout-'));
    store = new LocalBlobStore(localStorageRoot(dataDir));
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps keys as files under <dataDir>/storage/<bucket>, where jobs write their data', async () => {
    const ws = '0123456789abcdef01234567';
    const job = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    const bucket = defaultBucketOf(ws);
    await store.ensureBucket(bucket);
    const paths = jobPaths(dataDir, ws, job);
    assert.equal(await store.localPath(bucket, `${ws}/jobs/${job}/work`), paths.work);
    assert.equal(await store.localPath(bucket, `${ws}/jobs/${job}/logs/stdout.txt`), path.join(paths.logs, 'stdout.txt'));
    mkdirSync(paths.logs, { recursive: true });
    writeFileSync(path.join(paths.logs, 'stdout.txt'), 'written by a job\n');
    assert.equal(await text(await store.get(bucket, `${ws}/jobs/${job}/logs/stdout.txt`)), 'written by a job\n');
    await store.put(bucket, `${ws}/jobs/${job}/results/out.csv`, Buffer.from('a,b\n'));
    assert.equal(readFileSync(path.join(paths.results, 'out.csv'), 'utf8'), 'a,b\n');
    assert.deepEqual(
      (await store.list(bucket, `${ws}/jobs/${job}`, { delimiter: true })).entries.map((e) => e.key),
      [`${ws}/jobs/${job}/logs/`, `${ws}/jobs/${job}/results/`],
    );
  });

  it('writes through a temporary file: the target appears whole, and a failed write leaves no trace', async () => {
    await store.ensureBucket('atomic');
    await store.put('atomic', 'f.txt', Buffer.from('old'));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const body = Readable.from(
      (async function* () {
        yield Buffer.from('new ');
        await gate;
        yield Buffer.from('content');
      })(),
    );
    const writing = store.put('atomic', 'f.txt', body);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(readFileSync(path.join(store.root, 'atomic', 'f.txt'), 'utf8'), 'old');
    assert.deepEqual(
      (await store.list('atomic', '')).entries.map((e) => e.key),
      ['f.txt'],
    );
    release();
    await writing;
    assert.equal(readFileSync(path.join(store.root, 'atomic', 'f.txt'), 'utf8'), 'new content');
    assert.deepEqual(readdirSync(path.join(store.root, 'atomic')), ['f.txt']);
  });

  it('refuses to put an object where a folder is', async () => {
    await store.ensureBucket('shapes');
    await store.put('shapes', 'a/b.txt', Buffer.from('x'));
    await assert.rejects(store.put('shapes', 'a', Buffer.from('x')), BlobKeyError);
    assert.equal(await text(await store.get('shapes', 'a/b.txt')), 'x');
    assert.ok(!existsSync(path.join(store.root, 'shapes', 'a', '.runyard-tmp')));
  });

  it('refuses a cursor it did not make', async () => {
    await store.ensureBucket('cursors');
    await assert.rejects(store.list('cursors', 'p', { cursor: 'not-a-cursor' }), BlobKeyError);
    await assert.rejects(store.list('cursors', 'p', { cursor: Buffer.from('q/x').toString('base64url') }), BlobKeyError);
  });
});
