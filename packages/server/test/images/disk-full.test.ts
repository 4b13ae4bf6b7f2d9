import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { pullFailure, startImageFixture, type ImageFixture } from './fixture.js';

// A real full disk: the cache's data directory on a 256 KiB tmpfs, smaller than image a's base layer (libc alone is more).
const skip = registryToolsMissing() ?? (process.getuid?.() !== 0 && 'mounting a small tmpfs needs root');

describe('image pulls onto a full disk', { skip, timeout: 120_000 }, () => {
  let fx: ImageFixture;
  let small: string;
  before(async () => {
    fx = await startImageFixture();
    small = path.join(fx.dir, 'small');
    mkdirSync(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small]);
  });
  after(async () => {
    if (small) execFileSync('umount', [small]);
    await fx?.stop();
  });

  it('fails with kind disk-full, naming the cache', async () => {
    const cache = fx.newCache(small);
    const error = await pullFailure(cache.pull(`${fx.registry.host}/t/a:1`), 'disk-full');
    assert.match(
      error.message,
      new RegExp(`no space left in the image cache \\(${cache.root}\\) while pulling .*/t/a:1: .*no space left on device`),
    );
  });
});
