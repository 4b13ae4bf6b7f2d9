import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ImageCacheError } from '../../src/images/cache-error.js';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { startImageFixture, type ImageFixture } from './fixture.js';

const skip = registryToolsMissing() ?? false;

/** What `du` says the tree takes on disk, in bytes (blocks; hard links once). */
const duBytes = (dir: string) => Number(execFileSync('du', ['-s', '-B1', dir], { encoding: 'utf8' }).split('\t')[0]);

describe('the image cache: size limit, least recently used eviction, list and prune (a real registry)', { skip, timeout: 180_000 }, () => {
  let fx: ImageFixture;
  /** The unpacked size of images a and b, measured in a cache of their own. */
  let sizeA = 0;
  let sizeB = 0;
  before(async () => {
    fx = await startImageFixture();
    const scratch = fx.newCache();
    await scratch.pull(ref('t/a:1'));
    await scratch.pull(ref('t/b:1'));
    const listed = await scratch.list();
    sizeA = listed.images.find((i) => i.digest === digest('t/a:1'))!.sizeBytes;
    sizeB = listed.images.find((i) => i.digest === digest('t/b:1'))!.sizeBytes;
  });
  after(() => fx?.stop());
  const ref = (name: string) => `${fx.registry.host}/${name}`;
  const digest = (name: string) => fx.digests.get(name)!;
  const blobs = (root: string) => readdirSync(path.join(root, 'oci/blobs/sha256')).length;
  /** A limit that holds either image alone, not both. */
  const oneImage = () => Math.max(sizeA, sizeB) + Math.floor(Math.min(sizeA, sizeB) / 2);

  it('keeps per image the references it was pulled as, when, its last use (found in the cache too) and its size on disk', async () => {
    const cache = fx.newCache();
    const first = await cache.pull(ref('t/a:1'));
    const [pulled] = (await cache.list()).images;
    assert.equal(pulled.digest, first.digest);
    assert.deepEqual(pulled.references, [ref('t/a:1')]);
    assert.equal(pulled.sizeBytes, duBytes(first.rootfs));
    assert.ok(pulled.sizeBytes > 100_000, `${pulled.sizeBytes} bytes: the image holds bash and its libraries`);
    assert.equal(pulled.jobs, 0);
    assert.equal(pulled.pulledAt, pulled.lastUsedAt);

    await cache.pull(ref(`t/a@${first.digest}`));
    const listing = await cache.list();
    const [again] = listing.images;
    assert.equal(listing.images.length, 1);
    assert.deepEqual(again.references, [ref('t/a:1'), ref(`t/a@${first.digest}`)]);
    assert.equal(again.pulledAt, pulled.pulledAt);
    assert.ok(again.lastUsedAt > pulled.lastUsedAt, `${again.lastUsedAt} after ${pulled.lastUsedAt}`);
    assert.equal(listing.totalBytes, again.sizeBytes);
    assert.equal(listing.limitBytes, Infinity);
  });

  it('pulling b beyond the limit evicts a, which no job uses: its rootfs, config, meta, tag and own blobs go; the shared base stays', async () => {
    const cache = fx.newCache(undefined, { limitBytes: oneImage() });
    const a = await cache.pull(ref('t/a:1'));
    assert.equal(blobs(cache.root), 1 + 3);
    const b = await cache.pull(ref('t/b:1'));
    const listing = await cache.list();
    assert.deepEqual(
      listing.images.map((i) => i.digest),
      [b.digest],
    );
    assert.equal(listing.totalBytes, sizeB);
    assert.ok(!existsSync(a.rootfs));
    const name = a.digest.replace(':', '-');
    assert.ok(!existsSync(path.join(cache.root, 'configs', `${name}.json`)));
    assert.ok(!existsSync(path.join(cache.root, 'meta', `${name}.json`)));
    assert.deepEqual(readdirSync(path.join(cache.root, 'rootfs')), [b.digest.replace(':', '-')], 'no trash left');
    const tags = execFileSync('umoci', ['ls', `--layout=${path.join(cache.root, 'oci')}`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    assert.deepEqual(tags, [b.digest.replace(':', '-')]);
    // The base layer b shares, and b's layer, config and manifest.
    assert.equal(blobs(cache.root), 1 + 3);
    // Pulled again: copied again (the eviction was real), and now b goes.
    const copies = fx.skopeoRuns().filter((r) => r === 'copy').length;
    const back = await cache.pull(ref('t/a:1'));
    assert.equal(fx.skopeoRuns().filter((r) => r === 'copy').length, copies + 1);
    assert.ok(existsSync(path.join(back.rootfs, 'usr/local/bin/hello-a')));
    assert.deepEqual(
      (await cache.list()).images.map((i) => i.digest),
      [a.digest],
    );
  });

  it('keeps an image a job uses, even beyond the limit; once unused, a prune removes the least recently used until under the limit', async () => {
    const used = new Map<string, number>([[digest('t/a:1'), 1]]);
    const cache = fx.newCache(undefined, { limitBytes: oneImage(), inUse: async () => used });
    await cache.pull(ref('t/a:1'));
    await cache.pull(ref('t/b:1'));
    const both = await cache.list();
    assert.deepEqual(
      both.images.map((i) => [i.digest, i.jobs]),
      [
        [digest('t/a:1'), 1],
        [digest('t/b:1'), 0],
      ],
    );
    assert.equal(both.totalBytes, sizeA + sizeB);
    assert.ok(both.totalBytes > both.limitBytes);
    // In use: refused by digest, kept by all.
    await assert.rejects(cache.prune({ kind: 'digest', digest: digest('t/a:1') }), (e: unknown) => {
      assert.ok(e instanceof ImageCacheError && e.kind === 'in-use');
      assert.match(e.message, /is used by 1 job\(s\) now/);
      return true;
    });
    const kept = await cache.prune({ kind: 'beyond-limit' });
    assert.deepEqual(
      kept.removed.map((i) => i.digest),
      [digest('t/b:1')],
      'b is the only image no job uses',
    );
    await cache.pull(ref('t/b:1'));
    used.clear();
    const pruned = await cache.prune({ kind: 'beyond-limit' });
    assert.deepEqual(
      pruned.removed.map((i) => i.digest),
      [digest('t/a:1')],
      'a, the least recently used, and only a',
    );
    assert.deepEqual(
      pruned.images.map((i) => i.digest),
      [digest('t/b:1')],
    );
    assert.ok(pruned.totalBytes <= pruned.limitBytes);
  });

  it('prunes all unused images, or one by digest; a digest not cached is refused; no limit: the default prune removes nothing', async () => {
    const used = new Map<string, number>();
    const cache = fx.newCache(undefined, { inUse: async () => used });
    await cache.pull(ref('t/a:1'));
    await cache.pull(ref('t/b:1'));
    await cache.pull(ref('t/configured:1'));
    assert.deepEqual((await cache.prune({ kind: 'beyond-limit' })).removed, []);
    await assert.rejects(cache.prune({ kind: 'digest', digest: `sha256:${'0'.repeat(64)}` }), (e: unknown) => {
      assert.ok(e instanceof ImageCacheError && e.kind === 'not-cached');
      assert.match(e.message, /sha256:0{64} is not in the cache/);
      return true;
    });
    const one = await cache.prune({ kind: 'digest', digest: digest('t/b:1') });
    assert.deepEqual(
      one.removed.map((i) => i.digest),
      [digest('t/b:1')],
    );
    assert.deepEqual(one.images.map((i) => i.digest).sort(), [digest('t/a:1'), digest('t/configured:1')].sort());
    used.set(digest('t/configured:1'), 2);
    const all = await cache.prune({ kind: 'all' });
    assert.deepEqual(
      all.removed.map((i) => i.digest),
      [digest('t/a:1')],
    );
    assert.deepEqual(
      all.images.map((i) => [i.digest, i.jobs]),
      [[digest('t/configured:1'), 2]],
    );
  });

  it('calls onResolved with the digest before it looks in the cache or copies: an image removed meanwhile is pulled again', async () => {
    const cache = fx.newCache();
    const a = digest('t/a:1');
    const seen: { digest: string; copies: number; unpacked: boolean }[] = [];
    const copies = () => fx.skopeoRuns().filter((r) => r === 'copy').length;
    const first = await cache.pull(ref('t/a:1'), {
      onResolved: async (d) => void seen.push({ digest: d, copies: copies(), unpacked: existsSync(cache.rootfsOf(d)) }),
    });
    assert.deepEqual(seen, [{ digest: a, copies: copies() - 1, unpacked: false }]);
    // Cached: the hook runs before the cache is looked at. Here it removes the image (as an eviction
    // that did not see the job would): the pull does not hand out the removed rootfs, it pulls again.
    const before = copies();
    const second = await cache.pull(ref('t/a:1'), {
      onResolved: async (d) => {
        const pruned = await cache.prune({ kind: 'all' });
        assert.deepEqual(
          pruned.removed.map((i) => i.digest),
          [d],
        );
      },
    });
    assert.equal(second.rootfs, first.rootfs);
    assert.ok(existsSync(path.join(second.rootfs, 'usr/local/bin/hello-a')));
    assert.equal(copies(), before + 1);
  });

  it('a second server process on the cache: its prune waits for the locks, and refuses what the first one’s jobs use', async () => {
    const dataDir = path.join(fx.dir, 'two-processes');
    const used = new Map<string, number>();
    const inUse = async () => used;
    const one = fx.newCache(dataDir, { inUse });
    const two = fx.newCache(dataDir, { inUse });
    const [pulled, listing] = await Promise.all([
      one.pull(ref('t/a:1'), { onResolved: async (d) => void used.set(d, 1) }),
      // Started at once: it lists before or after the pull, never half of it.
      two.list(),
    ]);
    assert.ok([0, 1].includes(listing.images.length));
    assert.deepEqual((await two.prune({ kind: 'all' })).removed, []);
    assert.ok(existsSync(pulled.rootfs));
    used.clear();
    assert.deepEqual(
      (await two.prune({ kind: 'all' })).removed.map((i) => i.digest),
      [pulled.digest],
    );
    assert.deepEqual((await one.list()).images, []);
  });

  it('follows no link: an entry of rootfs/ that is a link is not an image, and a prune leaves its target alone', async () => {
    const cache = fx.newCache();
    await cache.pull(ref('t/a:1'));
    const outside = path.join(fx.dir, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(path.join(outside, 'keep'), 'not the cache’s');
    symlinkSync(outside, path.join(cache.root, 'rootfs', `sha256-${'1'.repeat(64)}`));
    const listing = await cache.list();
    assert.deepEqual(
      listing.images.map((i) => i.digest),
      [digest('t/a:1')],
    );
    await cache.prune({ kind: 'all' });
    assert.ok(existsSync(path.join(outside, 'keep')));
    assert.deepEqual((await cache.list()).images, []);
  });
});
