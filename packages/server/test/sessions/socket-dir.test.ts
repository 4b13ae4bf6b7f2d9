import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_RUNTIME_DIR, preparePrivateParent, sessionRuntimeDir } from '../../src/scheduler/session-socket-dir.js';

describe("a session's runtime directory (its sockets)", () => {
  const id = '0123456789abcdef01234567';

  it('is under the data directory when it fits, else a private directory of the server in the temporary directory', () => {
    assert.equal(sessionRuntimeDir('/srv/runyard', id), `/srv/runyard/sr/${id}`);
    const long = `/home/someone/projects/analysis-platform/checkouts/runyard/.runyard-data`;
    const dir = sessionRuntimeDir(long, id);
    assert.ok(dir.startsWith(path.join(os.tmpdir(), 'runyard-')), dir);
    assert.ok(dir.length <= MAX_RUNTIME_DIR, `${dir} is ${dir.length} characters`);
    // One directory per server (data directory), the same every time.
    assert.equal(sessionRuntimeDir(long, id), dir);
    assert.notEqual(path.dirname(sessionRuntimeDir(`${long}2`, id)), path.dirname(dir));
  });

  it('is short whatever TMPDIR and the data directory are: /tmp when TMPDIR is too long', () => {
    const long = `/${'d'.repeat(99)}`;
    const longTmp = `/${'t'.repeat(99)}`;
    const dir = sessionRuntimeDir(long, id, longTmp);
    assert.match(dir, new RegExp(`^/tmp/runyard-[0-9a-f]{10}/${id}$`));
    assert.ok(dir.length <= MAX_RUNTIME_DIR);
    // TMPDIR when it fits.
    assert.ok(sessionRuntimeDir(long, id, '/var/tmp').startsWith('/var/tmp/runyard-'));
  });

  it('refuses a parent that others can reach into, and makes a missing one 0700', async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'ry-'));
    try {
      await preparePrivateParent(path.join(scratch, 'new', id));
      assert.equal(statSync(path.join(scratch, 'new')).mode & 0o777, 0o700);
      chmodSync(path.join(scratch, 'new'), 0o777);
      await assert.rejects(preparePrivateParent(path.join(scratch, 'new', id)), /is not a private directory of this server's user/);
      await assert.rejects(preparePrivateParent(path.join(scratch, 'x'.repeat(MAX_RUNTIME_DIR), id)), /too long for the unix sockets/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
