import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { ImageCache } from '../../src/images/image-cache.js';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registryToolsMissing, startRegistry } from '../../../../test/support/registry.js';
import { pullFailure, startImageFixture, type ImageFixture } from './fixture.js';

const skip = registryToolsMissing() ?? false;

describe('image pulls from a real registry (docker-registry, skopeo, umoci)', { skip, timeout: 120_000 }, () => {
  let fx: ImageFixture;
  before(async () => {
    fx = await startImageFixture();
  });
  after(() => fx?.stop());
  const ref = (name: string) => `${fx.registry.host}/${name}`;

  it('pulls image a anonymously: the pushed digest, a read-only rootfs with hello-a, progress with layers, size and time', async (t) => {
    const cache = fx.newCache();
    const lines: string[] = [];
    const started = Date.now();
    const pulled = await cache.pull(ref('t/a:1'), { onProgress: (line) => lines.push(line) });
    t.diagnostic(`pull of image a into an empty cache: ${Date.now() - started} ms`);
    assert.equal(pulled.digest, fx.digests.get('t/a:1'));
    assert.equal(pulled.rootfs, path.join(cache.root, 'rootfs', pulled.digest.replace(':', '-')));
    assert.ok(existsSync(path.join(pulled.rootfs, 'usr/local/bin/hello-a')));
    assert.ok(existsSync(path.join(pulled.rootfs, 'bin/sh')));
    for (const file of ['', 'usr/local/bin', 'usr/local/bin/hello-a']) {
      assert.equal(statSync(path.join(pulled.rootfs, file)).mode & 0o222, 0, `${file || 'the rootfs'} is read-only`);
    }
    const log = lines.join('\n');
    assert.match(log, new RegExp(`is ${pulled.digest}: 2 layers, [0-9.]+ (KiB|MiB) \\(sha256:[0-9a-f]{12} [0-9.]+ (B|KiB|MiB), `));
    assert.match(log, /Unpacked into .* in [0-9.]+ s/);
    assert.match(log, /Copying blob sha256:/);
    assert.match(log, /Pulled .* in [0-9.]+ s/);
  });

  it('pulls image b, which lacks hello-a; the base layer both share is stored once', async () => {
    const cache = fx.newCache();
    const a = await cache.pull(ref('t/a:1'));
    const b = await cache.pull(ref('t/b:1'));
    assert.notEqual(a.digest, b.digest);
    assert.ok(!existsSync(path.join(b.rootfs, 'usr/local/bin/hello-a')));
    assert.ok(existsSync(path.join(b.rootfs, 'usr/local/bin/hello-b')));
    // Blobs: 1 shared base layer + (layer, config, manifest) per image.
    assert.equal(readdirSync(path.join(cache.root, 'oci/blobs/sha256')).length, 1 + 3 * 2);
  });

  it('pulls by digest, with or without a tag', async () => {
    const cache = fx.newCache();
    const digest = fx.digests.get('t/a:1')!;
    assert.equal((await cache.pull(ref(`t/a@${digest}`))).digest, digest);
    assert.equal((await cache.pull(ref(`t/a:1@${digest}`))).digest, digest);
    await pullFailure(cache.pull(ref(`t/a@sha256:${'0'.repeat(64)}`)), 'not-found');
  });

  it('says not found for a missing tag and a missing repository', async () => {
    const cache = fx.newCache();
    const tag = await pullFailure(cache.pull(ref('t/a:nope')), 'not-found');
    assert.match(tag.message, new RegExp(`${fx.registry.host}/t/a:nope was not found at ${fx.registry.host}`));
    await pullFailure(cache.pull(ref('t/none:1')), 'not-found');
    assert.ok(!existsSync(path.join(cache.root, 'rootfs')), 'nothing unpacked');
  });

  it('pulls once for two concurrent pulls of one image, and not again once cached (but asks the registry each time)', async () => {
    const cache = fx.newCache();
    const before = fx.skopeoRuns().length;
    const [first, second] = await Promise.all([cache.pull(ref('t/a:1')), cache.pull(ref('t/a:1'))]);
    assert.equal(first.rootfs, second.rootfs);
    assert.deepEqual(fx.skopeoRuns().slice(before).sort(), ['copy', 'inspect', 'inspect']);
    await cache.pull(ref('t/a:1'));
    assert.deepEqual(fx.skopeoRuns().slice(before + 3), ['inspect']);
  });

  it('pulls once for two caches on one data directory (as two server processes), through the layout lock', async () => {
    const dataDir = path.join(fx.dir, 'shared-data');
    const before = fx.skopeoRuns().length;
    const lines: string[] = [];
    const [first, second] = await Promise.all(
      [fx.newCache(dataDir), fx.newCache(dataDir)].map((cache) => cache.pull(ref('t/b:1'), { onProgress: (l) => lines.push(l) })),
    );
    assert.equal(first.rootfs, second.rootfs);
    assert.deepEqual(fx.skopeoRuns().slice(before).sort(), ['copy', 'inspect', 'inspect']);
    assert.ok(lines.some((l) => l.endsWith('was pulled by another server process meanwhile')));
    assert.ok(!existsSync(path.join(dataDir, 'images/oci.lock')), 'the lock is released');
  });

  it("a job waiting for another job's pull that fails pulls on its own, and never gets the other's message", async () => {
    // skopeo whose first copy fails as a registry refusing someone else would (the other job's user named in it).
    const failOnce = path.join(fx.dir, 'fail-next-copy');
    const flaky = path.join(fx.dir, 'skopeo-flaky');
    // It fails once the second pull is waiting for it (the test makes this file then).
    const waiting = path.join(fx.dir, 'second-is-waiting');
    writeFileSync(failOnce, '');
    writeFileSync(
      flaky,
      `#!/bin/sh\nif [ "$2" = copy ] && rm '${failOnce}' 2>/dev/null; then i=0; while [ ! -e '${waiting}' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; echo 'denied: the user "alice-other" may not' >&2; exit 1; fi\nexec skopeo "$@"\n`,
    );
    chmodSync(flaky, 0o755);
    const cache = new ImageCache({ dataDir: path.join(fx.dir, 'flaky-data'), insecureRegistries: [fx.registry.host], skopeo: flaky });
    const second: string[] = [];
    // The second starts once the first resolved the digest: from then on the first's pull is the one under way.
    let startSecond!: () => void;
    const secondStarted = new Promise<void>((resolve) => (startSecond = resolve));
    const [a, b] = await Promise.allSettled([
      cache.pull(ref('t/a:1'), { onProgress: (l) => / is sha256:/.test(l) && startSecond() }),
      secondStarted.then(() =>
        cache.pull(ref('t/a:1'), {
          onProgress: (l) => {
            second.push(l);
            if (l.includes('being pulled for another job')) writeFileSync(waiting, '');
          },
        }),
      ),
    ]);
    assert.equal(a.status, 'rejected');
    assert.equal(b.status, 'fulfilled', String((b as PromiseRejectedResult).reason));
    assert.ok(
      second.some((l) => l.includes('being pulled for another job')),
      second.join('\n'),
    );
    assert.ok(second.some((l) => l.includes("the other job's pull") && l.includes('failed: pulling it for this job')));
    assert.ok(!second.join('\n').includes('alice-other'));
    assert.ok(existsSync(path.join((b as PromiseFulfilledResult<{ rootfs: string }>).value.rootfs, 'usr/local/bin/hello-a')));
  });

  it("uses a registry's answer for one account for recheckMs: within it no inspect, another account or after it one", async () => {
    let now = 1_000_000;
    const cache = fx.newCache(undefined, { recheckMs: 60_000, now: () => now });
    const before = fx.skopeoRuns().length;
    const first = await cache.pull(ref('t/a:1'));
    assert.deepEqual(fx.skopeoRuns().slice(before), ['inspect', 'copy']);
    now += 59_000;
    const lines: string[] = [];
    const again = await cache.pull(ref('t/a:1'), { onProgress: (l) => lines.push(l) });
    assert.equal(again.digest, first.digest);
    assert.deepEqual(fx.skopeoRuns().slice(before + 2), [], 'no run of skopeo within the time');
    assert.ok(
      lines.some((l) => l.includes(`is ${first.digest} (the registry said so 59.0 s ago)`)),
      lines.join('\n'),
    );
    // Another account (here: one with a password) asks the registry itself.
    await cache.pull(ref('t/a:1'), { credentials: { username: 'someone', password: 'x' } });
    assert.deepEqual(fx.skopeoRuns().slice(before + 2), ['inspect']);
    now += 2_000;
    await cache.pull(ref('t/a:1'));
    assert.deepEqual(fx.skopeoRuns().slice(before + 3), ['inspect'], 'asked again once the time is over');
  });

  it('says unreachable for a registry that is down', async () => {
    const down = await startRegistry();
    await down.stop();
    const error = await pullFailure(fx.newCache().pull(`${down.host}/t/a:1`), 'unreachable');
    assert.match(error.message, new RegExp(`the registry ${down.host} could not be reached: .*connection refused`));
  });
});
