import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { findOnPath } from '../../src/executors/find-executable.js';
import { enterProgram } from '../../src/executors/sandbox/image-root.js';
import { running, startMain, stop } from '../../../../test/support/server-process.js';

const podman = findOnPath('podman', process.env.PATH ?? '');

/**
 * A configured container runtime that cannot start a container stops the server at start, in the
 * runtime's own words, instead of failing each job (engines/container-runtime.ts probeContainerRuntime).
 */
describe('the container runtime at server start', { timeout: 300_000 }, () => {
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it(
    'podman: starts when podman starts a container here; else refuses to start, quoting what podman said',
    { skip: !podman && 'podman is not installed (bash .ci/run installs it)' },
    async () => {
      // What podman itself says to the probe's container (a root filesystem with only a static program).
      const rootfs = mkdtempSync(path.join(os.tmpdir(), 'runyard-probe-test-'));
      copyFileSync(enterProgram(), path.join(rootfs, 'runyard-enter'));
      const direct = spawnSync(podman!, ['run', '--rm', '--network', 'none', '--rootfs', rootfs, '/runyard-enter', '--version'], {
        encoding: 'utf8',
      });
      rmSync(rootfs, { recursive: true, force: true });
      const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-podman-')), 'data');
      const p = startMain({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_CONTAINER_RUNTIME: 'podman' });
      if (direct.status === 0) {
        assert.equal(direct.stdout.trim(), 'runyard-enter 1');
        await p.waitFor(/listening/);
        await stop(p);
        return;
      }
      // On this machine: crun cannot set the rlimits (or refuses cgroup v1): podman starts no container at all.
      assert.equal(await p.exited, 1);
      const said = direct.stderr.trim().split('\n').at(-1)!;
      assert.ok(p.stderr().includes(`RUNYARD_CONTAINER_RUNTIME=podman, but podman cannot start a container here`), p.stderr());
      assert.ok(p.stderr().includes(said), `${p.stderr()}\n--- podman said: ${said}`);
      assert.match(p.stderr(), /unset RUNYARD_CONTAINER_RUNTIME: container jobs then run in their image in the sandbox/);
      assert.ok(!existsSync(dataDir), 'nothing made');
    },
  );

  it('docker without its daemon: refuses to start, quoting the CLI', async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'runyard-docker-'));
    // The docker CLI's own words when no daemon answers on its socket.
    writeFileSync(
      path.join(bin, 'docker'),
      '#!/bin/sh\n[ "$1" = version ] || exit 2\necho "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const dataDir = path.join(bin, 'data');
    const p = startMain({
      RUNYARD_DATA_DIR: dataDir,
      RUNYARD_PORT: '0',
      RUNYARD_CONTAINER_RUNTIME: 'docker',
      RUNYARD_TASK_PATH: `${bin}:${process.env.PATH}`,
    });
    assert.equal(await p.exited, 1);
    assert.match(
      p.stderr(),
      /RUNYARD_CONTAINER_RUNTIME=docker, but docker cannot start a container here \(.*docker version --format \{\{\.Server\.Version\}\}: Cannot connect to the Docker daemon at unix:\/\/\/var\/run\/docker\.sock/,
    );
    assert.ok(!existsSync(dataDir));
  });
});
