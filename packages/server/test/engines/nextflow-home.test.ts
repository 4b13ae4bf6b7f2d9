import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { installedNextflowVersions, nextflowHomeFor, nextflowHomeOf } from '../../src/engines/nextflow-home.js';
import { nextflowS3 } from '../../src/engines/nextflow-s3.js';
import { AppError } from '../../src/errors/app-error.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { nextflowVersionFor } from '../../src/services/nextflow-versions.js';
import { FIXTURE_BIN } from '../scheduler/helpers.js';

const NEXTFLOW = path.join(FIXTURE_BIN, 'nextflow');
const tmp = (name: string) => mkdtempSync(path.join(os.tmpdir(), `runyard-${name}-`));

/** A Nextflow home holding `versions` (framework jars), as `NXF_HOME=<dir> NXF_VER=<v> nextflow -version` leaves one. */
function home(versions: string[], extra: string[] = []): string {
  const dir = tmp('nxf-home');
  for (const v of versions) {
    mkdirSync(path.join(dir, 'framework', v), { recursive: true });
    writeFileSync(path.join(dir, 'framework', v, `nextflow-${v}-one.jar`), 'jar');
  }
  for (const d of extra) mkdirSync(path.join(dir, d), { recursive: true });
  return dir;
}

const configWith = (env: Record<string, string>) => loadConfig({ RUNYARD_DATA_DIR: tmp('nxf-data'), ...env });

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof AppError && e.code === 'VALIDATION_FAILED', String(e));
    return e.message;
  }
  assert.fail('not refused');
}

describe('Nextflow versions and home', { timeout: 120_000 }, () => {
  it('finds the installed versions where the launcher keeps them (framework/<v>/nextflow-<v>-one.jar), or as the operator lists them', () => {
    const dir = home(['23.10.1', '22.10.8', '22.11.1-edge']);
    mkdirSync(path.join(dir, 'framework', '24.04.4')); // an interrupted download: no jar
    assert.deepEqual(installedNextflowVersions(configWith({ RUNYARD_NEXTFLOW_HOME: dir })), ['22.10.8', '22.11.1-edge', '23.10.1']);
    const listed = configWith({ RUNYARD_NEXTFLOW_HOME: dir, RUNYARD_NEXTFLOW_VERSIONS: '24.04.4,22.10.8' });
    assert.deepEqual(installedNextflowVersions(listed), ['22.10.8', '24.04.4']);
    assert.deepEqual(installedNextflowVersions(configWith({ RUNYARD_NEXTFLOW_HOME: tmp('empty') })), []);
  });

  it("defaults the home to ~/.nextflow of the server's user when there is one, else <dataDir>/nextflow-home", () => {
    const config = configWith({});
    const user = tmp('user');
    assert.equal(nextflowHomeOf(config, user), path.join(config.dataDir, 'nextflow-home'));
    mkdirSync(path.join(user, '.nextflow'));
    assert.equal(nextflowHomeOf(config, user), path.join(user, '.nextflow'));
  });

  it('a job gets an installed version; another is refused (400, listing the installed ones) unless downloads are allowed', () => {
    const config = configWith({ RUNYARD_NEXTFLOW_HOME: home(['22.10.8', '23.10.1']) });
    assert.equal(nextflowVersionFor(config, '23.10.1', '22.10.8'), '23.10.1');
    assert.equal(nextflowVersionFor(config, undefined, '22.10.8'), '22.10.8');
    assert.match(
      refusal(() => nextflowVersionFor(config, '24.04.4', '22.10.8')),
      /Nextflow "24\.04\.4" is not installed on this server \(installed: 22\.10\.8, 23\.10\.1\)/,
    );
    // Without a request and without the default: the newest installed version, which the job document then shows.
    const newer = configWith({ RUNYARD_NEXTFLOW_HOME: home(['23.10.1', '24.04.4']) });
    assert.equal(nextflowVersionFor(newer, undefined, '22.10.8'), '24.04.4');
    const none = configWith({ RUNYARD_NEXTFLOW_HOME: tmp('empty') });
    assert.match(
      refusal(() => nextflowVersionFor(none, undefined, '22.10.8')),
      /default Nextflow version 22\.10\.8 is not installed.*none is installed/,
    );
    const downloads = configWith({ RUNYARD_NEXTFLOW_HOME: tmp('empty'), RUNYARD_NEXTFLOW_DOWNLOAD: 'true' });
    assert.equal(nextflowVersionFor(downloads, '24.04.4', '22.10.8'), '24.04.4');
    assert.match(
      refusal(() => nextflowVersionFor(downloads, 'latest', '22.10.8')),
      /"latest" is not a Nextflow version/,
    );
  });

  it('the fixture fails offline on a version its home does not hold, as the launcher does, and cannot make it in a read-only home', () => {
    const dir = home(['22.10.8']);
    const run = (env: Record<string, string>) =>
      spawnSync(NEXTFLOW, ['-version'], { cwd: tmp('nxf-cwd'), encoding: 'utf8', env: { PATH: process.env.PATH, NXF_HOME: dir, ...env } });
    const ok = run({ NXF_VER: '22.10.8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /version 22\.10\.8/);
    const missing = run({ NXF_VER: '23.10.1' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /ERROR: Cannot download nextflow required file -- make sure you can connect to the internet/);
    const jar = path.join(dir, 'framework', '23.10.1', 'nextflow-23.10.1-one.jar');
    assert.match(
      missing.stdout,
      new RegExp(`https://www\\.nextflow\\.io/releases/v23\\.10\\.1/nextflow-23\\.10\\.1-one\\.jar\\n\\nand save it as:\\n    ${jar}`),
    );
    assert.equal(run({ NXF_VER: '1.0' }).stderr, 'Not a valid Nextflow version: 1.0\n');
    // NXF_DIST moves the framework out of the home.
    assert.equal(run({ NXF_VER: '22.10.8', NXF_HOME: tmp('other'), NXF_DIST: path.join(dir, 'framework') }).status, 0);
  });

  it("a sandboxed task reads the operator's framework, capsule and plugins but cannot write them, nor see the home's config, scm or secrets", async () => {
    const dir = home(['22.10.8'], ['capsule', 'plugins', 'secrets']);
    writeFileSync(path.join(dir, 'config'), 'aws.secretKey = "operator-secret"\n');
    writeFileSync(path.join(dir, 'secrets', 'store.json'), '{"TOKEN": "operator-secret"}\n');
    const config = configWith({ RUNYARD_NEXTFLOW_HOME: dir });
    const work = path.join(config.dataDir, 'work');
    const mount = nextflowHomeFor(config, '65f0c0ffee0000000000beef', '22.10.8', work);
    assert.equal(mount.env.NXF_HOME, dir);
    assert.equal(mount.env.NXF_LAUNCHER, path.join(work, '.nextflow', 'launcher'));
    assert.equal(mount.env.NXF_PLUGINS_DIR, undefined);
    assert.deepEqual(mount.writable, []);
    const script = [
      'ls "$NXF_HOME/framework/22.10.8"',
      'cat "$NXF_HOME/config" "$NXF_HOME/secrets/store.json" 2>/dev/null',
      'touch "$NXF_HOME/framework/22.10.8/planted.jar" 2>/dev/null && echo PLANTED',
      'touch "$NXF_HOME/plugins/planted" 2>/dev/null && echo PLANTED',
      'exit 0',
    ].join('; ');
    const log = path.join(work, 'out.txt');
    const executor = new LocalExecutor();
    const control = { dir: path.join(config.dataDir, 'control'), attempt: 1 };
    const task = { ...mount, argv: ['/bin/sh', '-c', script], env: { PATH: '/usr/bin:/bin', ...mount.env }, cwd: work, logFile: log };
    assert.deepEqual(await executor.wait(control, await executor.launch(task, control)), { state: 'exited', exitCode: 0 });
    const out = readFileSync(log, 'utf8');
    assert.match(out, /nextflow-22\.10\.8-one\.jar/);
    assert.doesNotMatch(out, /operator-secret|PLANTED/);
    assert.ok(!existsSync(path.join(dir, 'framework', '22.10.8', 'planted.jar')));
  });

  it('a home without plugins gives the job its own plugins directory; a version to download gets a home of its workspace, which it may write', () => {
    const dir = home(['22.10.8']);
    const config = configWith({ RUNYARD_NEXTFLOW_HOME: dir, RUNYARD_NEXTFLOW_DOWNLOAD: 'true' });
    const work = path.join(config.dataDir, 'work');
    assert.equal(nextflowHomeFor(config, 'ws1', '22.10.8', work).env.NXF_PLUGINS_DIR, path.join(work, '.nextflow', 'plugins'));
    const download = nextflowHomeFor(config, '65f0c0ffee0000000000beef', '24.04.4', work);
    const own = path.join(config.dataDir, 'nextflow-downloads', '65f0c0ffee0000000000beef');
    assert.deepEqual(download, { env: { NXF_HOME: own }, readable: [], writable: [own] });
    assert.ok(existsSync(own));
  });

  it("gives a task on an S3 store the endpoint and region, and keys only of its workspace (or the storage's when the operator says so)", () => {
    const s3 = {
      RUNYARD_STORAGE_BACKEND: 's3',
      RUNYARD_S3_ENDPOINT: "http://127.0.0.1:9000/it's",
      RUNYARD_S3_REGION: 'eu-west-1',
      RUNYARD_S3_ACCESS_KEY_ID: 'STORAGEKEY',
      RUNYARD_S3_SECRET_ACCESS_KEY: 'storage-secret',
      RUNYARD_S3_FORCE_PATH_STYLE: 'true',
    };
    const ws = '65f0c0ffee0000000000beef';
    const perWorkspace = JSON.stringify({ [ws]: { accessKeyId: 'WSKEY', secretAccessKey: 'ws-secret' } });
    const config = configWith({ ...s3, RUNYARD_S3_WORKSPACE_CREDENTIALS: perWorkspace });
    const mine = nextflowS3(config, ws);
    assert.deepEqual(mine.env, {
      AWS_REGION: 'eu-west-1',
      AWS_DEFAULT_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'WSKEY',
      AWS_SECRET_ACCESS_KEY: 'ws-secret',
    });
    // A Groovy single-quoted string: no interpolation, the quote escaped.
    assert.deepEqual(mine.configLines, [
      "aws.region = 'eu-west-1'",
      "aws.client.endpoint = 'http://127.0.0.1:9000/it\\'s'",
      'aws.client.s3PathStyleAccess = true',
    ]);
    assert.deepEqual(nextflowS3(config, '65f0c0ffee0000000000aaaa').env, { AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-west-1' });
    const storage = nextflowS3(configWith({ ...s3, RUNYARD_S3_TASK_CREDENTIALS: 'storage' }), ws).env;
    assert.equal(storage.AWS_ACCESS_KEY_ID, 'STORAGEKEY');
    assert.equal(
      nextflowS3(configWith({ ...s3, RUNYARD_S3_TASK_CREDENTIALS: 'none', RUNYARD_S3_WORKSPACE_CREDENTIALS: perWorkspace }), ws).env
        .AWS_ACCESS_KEY_ID,
      undefined,
    );
    assert.deepEqual(nextflowS3(configWith({}), ws), { env: {}, configLines: [] });
  });
});
