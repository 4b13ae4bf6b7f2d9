import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { pullFailure, startImageFixture, type ImageFixture } from './fixture.js';

/** A real full disk: a 256 KiB tmpfs, smaller than image a's base layer (libc alone is more); or why there is none. */
function mountSmallDisk(): { dir: string } | { why: string } {
  if (process.getuid?.() !== 0) return { why: 'mounting a small tmpfs needs root' };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    return { dir };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { why: `mount -t tmpfs is not permitted here: ${String(error).split('\n')[0]}` };
  }
}

const missing = registryToolsMissing();
const disk = missing ? { why: missing } : mountSmallDisk();

describe('image pulls onto a full disk', { skip: 'why' in disk && disk.why, timeout: 120_000 }, () => {
  let fx: ImageFixture;
  before(async () => {
    fx = await startImageFixture();
  });
  after(async () => {
    if ('dir' in disk) {
      execFileSync('umount', [disk.dir]);
      rmSync(disk.dir, { recursive: true, force: true });
    }
    await fx?.stop();
  });

  it('fails with kind disk-full, naming the cache', async () => {
    const cache = fx.newCache((disk as { dir: string }).dir);
    const error = await pullFailure(cache.pull(`${fx.registry.host}/t/a:1`), 'disk-full');
    assert.match(
      error.message,
      new RegExp(`no space left in the image cache \\(${cache.root}\\) while pulling .*/t/a:1: .*no space left on device`),
    );
  });

  it("fails with kind disk-full when not even the pull's own small files fit (its auth file, the lock)", async () => {
    const dir = (disk as { dir: string }).dir;
    // Fill what is left of the disk, to the last block.
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
    } catch {
      // dd stops with "No space left on device": that is the point.
    }
    const cache = fx.newCache(dir);
    const error = await pullFailure(cache.pull(`${fx.registry.host}/t/b:1`), 'disk-full');
    assert.match(error.message, new RegExp(`no space left in the image cache \\(${cache.root}\\) while pulling .*/t/b:1: .*ENOSPC`));
    rmSync(path.join(dir, 'filler'));
  });
});
