import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { findOnPath } from '../../src/executors/find-executable.js';
import { running, startMain, stop } from '../../../../test/support/server-process.js';

describe('the sandbox at server start', { timeout: 120_000 }, () => {
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it('bwrap missing: the server refuses to start, naming RUNYARD_SANDBOX, and leaves no data directory', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-nobwrap-'));
    const dataDir = path.join(dir, 'data');
    const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_TASK_PATH: path.join(dir, 'empty-bin') });
    assert.equal(await p.exited, 1);
    assert.match(p.stderr(), /RUNYARD_SANDBOX=bwrap, but bwrap \(bubblewrap\) is not on the task PATH/);
    assert.doesNotMatch(p.stdout(), /listening/);
    assert.ok(!existsSync(dataDir));
  });

  it('a configured container runtime that is missing: the server refuses to start, naming RUNYARD_CONTAINER_RUNTIME', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-noruntime-'));
    const dataDir = path.join(dir, 'data');
    // A task PATH with bwrap only: the sandbox is there, podman is not.
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(findOnPath('bwrap', process.env.PATH ?? '')!, path.join(bin, 'bwrap'));
    const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_TASK_PATH: bin, RUNYARD_CONTAINER_RUNTIME: 'podman' });
    assert.equal(await p.exited, 1);
    assert.match(p.stderr(), /RUNYARD_CONTAINER_RUNTIME=podman, but podman is not on the task PATH/);
    assert.doesNotMatch(p.stdout(), /listening/);
    assert.ok(!existsSync(dataDir));
  });

  it('RUNYARD_SANDBOX=none: a warning at every start', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-unconfined-'));
    for (let start = 0; start < 2; start++) {
      const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_SANDBOX: 'none' });
      await p.waitFor(/Warning: RUNYARD_SANDBOX=none: job tasks run unconfined/);
      await stop(p);
    }
  });
});
