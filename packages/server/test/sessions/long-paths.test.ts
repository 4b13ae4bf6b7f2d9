// A session under a long TMPDIR and a long data directory (100 characters each): its sockets go to a
// short private directory (/tmp/runyard-<hash>/<id>), and it becomes ready and runs a cell, where
// it used to abort with "runtime directory ... too long".
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sessionRuntimeDir } from '../../src/scheduler/session-socket-dir.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { JUPYTER_INSTALLED } from './world.js';

const LENGTH = 100;

/** A directory whose path is exactly LENGTH characters. */
function longDir(prefix: string): string {
  const base = mkdtempSync(path.join('/tmp', prefix));
  const dir = path.join(base, 'x'.repeat(LENGTH - base.length - 1));
  mkdirSync(dir);
  return dir;
}

describe(
  'a session under a long TMPDIR and data directory',
  { skip: !JUPYTER_INSTALLED && 'jupyter is not installed', timeout: 600_000 },
  () => {
    let w: RunningSessionWorld;
    const tmp = longDir('ry-tmp-');
    const data = longDir('ry-data-');

    before(async () => {
      // This test file's own process: everything it starts after this sees the long TMPDIR.
      process.env.TMPDIR = tmp;
      w = await runningSessionWorld({ RUNYARD_DATA_DIR: data });
    });
    after(() => w?.close());

    it('becomes ready and runs a cell; its sockets are in a short private directory', async () => {
      assert.equal(tmp.length, LENGTH);
      assert.equal(w.s.config.dataDir, data);
      const created = await w.session({ backend: 'regular', name: 'long-paths' });
      await w.until(created._id, ['ready']);
      const cell = await w.runCell(created._id, 'print(6 * 7)');
      assert.equal(cell.status, 'ok', cell.stdout);
      assert.equal(cell.stdout.trim(), '42');
      assert.match(sessionRuntimeDir(data, created._id), new RegExp(`^/tmp/runyard-[0-9a-f]{10}/${created._id}$`));
    });
  },
);
