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
    // A task PATH with bwrap and the outbound network's tools only: the sandbox is there, podman is not.
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    for (const tool of ['bwrap', 'slirp4netns', 'unshare', 'nsenter', 'mkfifo'])
      symlinkSync(findOnPath(tool, process.env.PATH ?? '')!, path.join(bin, tool));
    const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_TASK_PATH: bin, RUNYARD_CONTAINER_RUNTIME: 'podman' });
    assert.equal(await p.exited, 1);
    assert.match(p.stderr(), /RUNYARD_CONTAINER_RUNTIME=podman, but podman is not on the task PATH/);
    assert.doesNotMatch(p.stdout(), /listening/);
    assert.ok(!existsSync(dataDir));
  });

  it('the outbound network without slirp4netns: the server refuses to start, naming the package and RUNYARD_TASK_NETWORK', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-noslirp-'));
    const dataDir = path.join(dir, 'data');
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    for (const tool of ['bwrap', 'unshare', 'nsenter', 'mkfifo'])
      symlinkSync(findOnPath(tool, process.env.PATH ?? '')!, path.join(bin, tool));
    const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_TASK_PATH: bin });
    assert.equal(await p.exited, 1);
    assert.match(
      p.stderr(),
      /RUNYARD_TASK_NETWORK=outbound, but slirp4netns \(slirp4netns\) is not on the task PATH: install them, or set RUNYARD_TASK_NETWORK=none/,
    );
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

  it('RUNYARD_TASK_UID set where it has no effect (no sandbox here): said at start', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-taskuid-'));
    const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_SANDBOX: 'none', RUNYARD_TASK_UID: '4242' });
    await p.waitFor(/Note: RUNYARD_TASK_UID has no effect here \(RUNYARD_SANDBOX is not bwrap\): job tasks run as this server's user/);
    await stop(p);
  });

  it('RUNYARD_TASK_NETWORK=host: a warning at every start that names what tasks then reach', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-hostnet-'));
    for (let start = 0; start < 2; start++) {
      const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_TASK_NETWORK: 'host' });
      await p.waitFor(
        /Warning: RUNYARD_TASK_NETWORK=host gives job tasks the host's network: they reach every service on this machine's loopback/,
      );
      await stop(p);
    }
  });
});
