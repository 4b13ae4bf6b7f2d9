import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import { registryToolsMissing, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';
import { buildTestImages } from '../../../test/support/test-images.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir } from './support/run-cli.js';

const skip = registryToolsMissing() ?? false;
const ACCOUNT = { username: 'lab-robot', password: 'pull-secret-31c9' };
const FAST = ['--request-interval', '0.1', '--wait-time', '120'];

/**
 * `runyard bash job` and `runyard bash array-job` of docker workflows on a server with no image
 * settings but its registries' (plain HTTP, RUNYARD_INSECURE_REGISTRIES): each runs in its image,
 * pulled from a real registry, a private one with the account linked by `runyard user docker-login`.
 */
describe('runyard bash job in the workflow image', { skip, timeout: 600_000 }, () => {
  let open: TestRegistry;
  let locked: TestRegistry;
  let s: RunningServer;
  let client: RunyardClient;
  let conn: string[];
  let dir: string;
  const digests: Record<string, string> = {};

  before(async () => {
    dir = tempDir('runyard-bash-image-');
    const images = buildTestImages(dir);
    [open, locked] = await Promise.all([startRegistry(), startRegistry(ACCOUNT)]);
    digests.a = open.push(images.layout, 'a', 'lab/tool-a:1');
    digests.private = locked.push(images.layout, 'private', 'lab/private:1');
    s = await startRunningServer({ RUNYARD_JOB_IMAGES: 'pull', RUNYARD_INSECURE_REGISTRIES: `${open.host},${locked.host}` });
    const ws = s.admin.workspaceId;
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    conn = connectionArgs(s.url, s.admin.apikey, ws);
    await client.createProject(ws, 'demo');
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'tool-a', containerName: `${open.host}/lab/tool-a:1` });
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'private-tool', containerName: `${locked.host}/lab/private:1` });
    const csv = path.join(dir, 'samples.csv');
    writeFileSync(csv, `sample\n${Array.from({ length: 5 }, (_, i) => `s${i}`).join('\n')}\n`);
    await (await client.datasets(ws, 'demo')).uploadFile(csv, 'Data');
  });
  after(async () => {
    client?.close();
    await s?.close();
    await open?.stop();
    await locked?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) => runCli([...args, ...conn]);
  const logOf = (id: string) =>
    readFileSync(
      path.join(s.config.dataDir, 'storage', `runyard-${s.admin.workspaceId}`, s.admin.workspaceId, 'jobs', id, 'logs', 'stdout.txt'),
      'utf8',
    );

  it('bash job: runs the command with the image tool; its log names the image digest', async () => {
    const r = await run([
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'tool-a',
      '--command',
      'hello-a',
      '--wait-completion',
      ...FAST,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const log = logOf(r.stdout.trim());
    assert.match(log, /^hello from image a$/m);
    assert.ok(log.includes(`in the image ${open.host}/lab/tool-a:1 (${digests.a})`), log);
  });

  it('bash array-job: every row runs in the image', async () => {
    const r = await run([
      'bash',
      'array-job',
      '--project-name',
      'demo',
      '--workflow-name',
      'tool-a',
      '--array-file',
      'Data/samples.csv',
      '--command',
      'echo "$RUNYARD_PARAM_SAMPLE: $(hello-a)"; true',
      '-a',
      '--sample=sample',
      '--wait-completion',
      ...FAST,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const log = logOf(r.stdout.trim());
    for (let i = 0; i < 5; i++) assert.match(log, new RegExp(`^s${i}: hello from image a`, 'm'), log);
  });

  it('a private image: refused until docker-login links the account, then pulled with it', async () => {
    const bash = [
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'private-tool',
      '--command',
      'hello-private',
      '--wait-completion',
      ...FAST,
    ];
    const refused = await run(bash);
    assert.notEqual(refused.code, 0);
    const job = await client.getJobStatus(refused.stdout.trim(), s.admin.workspaceId);
    assert.match(JSON.stringify(job), /refused .* an anonymous pull/);
    const login = await runCli(
      ['user', 'docker-login', '--registry', locked.host, '--username', ACCOUNT.username, ...connectionArgs(s.url, s.admin.apikey)],
      { input: `${ACCOUNT.password}\n` },
    );
    assert.equal(login.code, 0, login.stderr);
    const r = await run(bash);
    assert.equal(r.code, 0, r.stderr);
    const log = logOf(r.stdout.trim());
    assert.match(log, /^hello from image private$/m);
    assert.ok(!log.includes(ACCOUNT.password));
  });
});
