import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { withFileLock } from '../../src/images/file-lock.js';

describe('the image layout lock between server processes', { timeout: 10_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-lock-'));
  const lock = path.join(dir, 'oci.lock');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs holders one at a time and releases the lock', async () => {
    const order: string[] = [];
    const hold = (name: string) =>
      withFileLock(lock, async () => {
        order.push(`${name} in`);
        await new Promise((r) => setTimeout(r, 150));
        order.push(`${name} out`);
      });
    await Promise.all([hold('first'), hold('second')]);
    assert.deepEqual(order, ['first in', 'first out', 'second in', 'second out']);
    assert.ok(!existsSync(lock));
  });

  it('takes over the lock of a holder that is gone (a killed server)', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(lock, String(gone));
    assert.equal(await withFileLock(lock, async () => 'ran'), 'ran');
  });

  it('waits for a holder that is alive', async () => {
    writeFileSync(lock, String(process.pid));
    setTimeout(() => rmSync(lock), 300);
    const started = Date.now();
    await withFileLock(lock, async () => {});
    assert.ok(Date.now() - started >= 250, 'it waited');
  });
});
