import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { containerEngine } from '../../src/engines/container.js';
import { registryOf } from '../../src/engines/registry-login.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { fakeRuntime } from './fake-runtime.js';
import { jobRow, pathsFor, workflowRow } from './rows.js';

const config = loadConfig({ RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-cfg-')), PATH: process.env.PATH });
const inputsWith = (accounts: { registry: string; username: string; password: string }[]) => ({
  parameters: new Map(),
  paramsFile: null,
  readPaths: [],
  held: [],
  notes: [],
  registryAccounts: accounts,
});

// batch.dockerLogin: the task logs in to its image's registry with its user's account before it runs.
describe('registry login of container jobs (dockerLogin)', () => {
  it("tells the image's registry: a host first component, else Docker Hub", () => {
    assert.equal(registryOf('ubuntu:22.04'), 'docker.io');
    assert.equal(registryOf('library/ubuntu'), 'docker.io');
    assert.equal(registryOf('ghcr.io/acme/tool:1'), 'ghcr.io');
    assert.equal(registryOf('registry.example.org:5000/team/img'), 'registry.example.org:5000');
    assert.equal(registryOf('localhost/img'), 'localhost');
  });

  it('logs in with the password on stdin only, keeps the login in a file of the attempt, and removes it when the container ended', async () => {
    const runtime = fakeRuntime('docker');
    const paths = pathsFor();
    for (const dir of [paths.control, paths.work, paths.results, paths.logs]) mkdirSync(dir, { recursive: true });
    const job = jobRow({ command: 'echo in the image', docker_login: 1, attempt: 2 });
    const task = await containerEngine.prepare(
      job,
      workflowRow({ container_name: 'ghcr.io/acme/private:1' }),
      paths,
      // The fake runtime first, then the system's tools it uses.
      { ...config, containerRuntime: 'docker', taskPath: `${runtime.dir}:${process.env.PATH}` },
      inputsWith([
        { registry: 'docker.io', username: 'other', password: 'nope' },
        { registry: 'ghcr.io', username: 'me', password: 'pa ss;$(id)' },
      ]),
    );
    assert.ok(!task.argv.some((a) => a.includes('pa ss')), 'the password is on no command line');
    const control = { dir: paths.control, attempt: 2 };
    const executor = new LocalExecutor();
    const end = await executor.wait(control, await executor.launch(task, control));
    assert.deepEqual(end, { state: 'exited', exitCode: 0 }, readFileSync(task.logFile, 'utf8'));
    const calls = runtime.calls();
    assert.deepEqual(calls[0], ['login', '--username', 'me', '--password-stdin', 'ghcr.io']);
    assert.equal(calls[1][0], 'run');
    assert.ok(!calls[1].some((a) => a.startsWith('RUNYARD_REGISTRY') || a === 'DOCKER_CONFIG'), 'the container gets none of the login');
    const login = JSON.parse(readFileSync(path.join(runtime.dir, 'state', 'last-login.json'), 'utf8'));
    assert.equal(Buffer.from(login.auths['ghcr.io'].auth, 'base64').toString(), 'me:pa ss;$(id)');
    assert.ok(!existsSync(path.join(paths.control, 'registry-auth-2')), 'the login is left behind');
    assert.match(readFileSync(task.logFile, 'utf8'), /in the image/);
  });

  it("an array job's rows, which run at once, each log in with a login file of their own, removed when the row ended", async () => {
    const runtime = fakeRuntime('docker');
    const paths = pathsFor();
    for (const dir of [paths.control, paths.work, paths.results, paths.logs]) mkdirSync(dir, { recursive: true });
    const csv = path.join(paths.root, 'rows.csv');
    writeFileSync(csv, 'v\na\nb\n');
    const job = jobRow({
      command: 'echo "row $RUNYARD_PARAM_V"; true',
      docker_login: 1,
      attempt: 2,
      array_size: 2,
      array_limit: 2,
      parameters_json: JSON.stringify([{ prefix: '--', name: 'v', parameterKind: 'arrayFileColumn', columnName: 'v', columnIndex: 0 }]),
      request_json: JSON.stringify({ arrayFile: { dataItem: { kind: 'File', item: 'f' }, separator: ',' } }),
    });
    const task = await containerEngine.prepare(
      job,
      workflowRow({ container_name: 'ghcr.io/acme/private:1' }),
      paths,
      { ...config, containerRuntime: 'docker', taskPath: `${runtime.dir}:${process.env.PATH}` },
      { ...inputsWith([{ registry: 'ghcr.io', username: 'me', password: 'secret' }]), readPaths: [csv], arrayFileBytes: readFileSync(csv) },
    );
    assert.equal(task.env.DOCKER_CONFIG, undefined, 'one login file for rows that run at once');
    const control = { dir: paths.control, attempt: 2 };
    const executor = new LocalExecutor();
    const end = await executor.wait(control, await executor.launch(task, control));
    const log = readFileSync(task.logFile, 'utf8');
    assert.deepEqual(end, { state: 'exited', exitCode: 0 }, log);
    const calls = runtime.calls();
    assert.equal(calls.filter((c) => c[0] === 'login').length, 2);
    assert.equal(calls.filter((c) => c[0] === 'run').length, 2);
    assert.ok(!calls.some((c) => c.includes('DOCKER_CONFIG')), 'the containers get none of the login');
    for (const i of [0, 1]) assert.ok(!existsSync(path.join(paths.control, `registry-auth-2-${i}`)), `row ${i}'s login is left behind`);
    assert.match(log, /=== task 0: exit code 0 ===\nrow a\n/);
    assert.match(log, /=== task 1: exit code 0 ===\nrow b\n/);
  });

  it('fails the job naming the registry when the user linked no account there', async () => {
    const runtime = fakeRuntime('podman');
    await assert.rejects(
      containerEngine.prepare(
        jobRow({ command: 'x', docker_login: 1 }),
        workflowRow({ container_name: 'quay.io/acme/tool' }),
        pathsFor(),
        { ...config, containerRuntime: 'podman', taskPath: runtime.dir },
        inputsWith([{ registry: 'ghcr.io', username: 'me', password: 'x' }]),
      ),
      /dockerLogin: you have no docker registry account at "quay\.io" \(the registry of the image quay\.io\/acme\/tool\)/,
    );
  });

  it('says in the log that it has no effect when the job runs on the host (RUNYARD_JOB_IMAGES=host)', async () => {
    const task = await containerEngine.prepare(
      jobRow({ command: 'x', docker_login: 1 }),
      workflowRow(),
      pathsFor(),
      { ...config, jobImages: 'host' },
      inputsWith([]),
    );
    assert.ok(task.preamble?.includes('Runyard: dockerLogin has no effect here: this job runs on the host, so no image is pulled.'));
  });
});
