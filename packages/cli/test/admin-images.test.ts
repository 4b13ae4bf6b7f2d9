import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import { registryToolsMissing, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';
import { buildTestImages } from '../../../test/support/test-images.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir } from './support/run-cli.js';

const skip = registryToolsMissing() ?? false;
const FAST = ['--request-interval', '0.1', '--wait-time', '120'];

/** `runyard admin images list|prune` against a server whose jobs pulled two images from a real registry. */
describe('runyard admin images', { skip, timeout: 600_000 }, () => {
  let registry: TestRegistry;
  let s: RunningServer;
  let client: RunyardClient;
  let dir: string;
  const digests: Record<string, string> = {};

  before(async () => {
    dir = tempDir('runyard-admin-images-');
    const images = buildTestImages(dir);
    registry = await startRegistry();
    digests.a = registry.push(images.layout, 'a', 'lab/tool-a:1');
    digests.b = registry.push(images.layout, 'b', 'lab/tool-b:1');
    s = await startRunningServer({ RUNYARD_JOB_IMAGES: 'pull', RUNYARD_INSECURE_REGISTRIES: registry.host });
    const ws = s.admin.workspaceId;
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    await client.createProject(ws, 'demo');
    for (const tool of ['a', 'b']) {
      await client.admin.createDockerWorkflow({
        workspaceId: ws,
        name: `tool-${tool}`,
        containerName: `${registry.host}/lab/tool-${tool}:1`,
      });
      const args = ['bash', 'job', '--project-name', 'demo', '--workflow-name', `tool-${tool}`, '--command', `hello-${tool}`];
      const r = await runCli([...args, '--wait-completion', ...FAST, ...connectionArgs(s.url, s.admin.apikey, ws)]);
      assert.equal(r.code, 0, r.stderr);
    }
  });
  after(async () => {
    client?.close();
    await s?.close();
    await registry?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (args: string[]) => runCli(['admin', 'images', ...args, ...connectionArgs(s.url, s.admin.apikey)]);
  const adminOk = async (args: string[]) => {
    const r = await admin(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };

  it('list: the cached images, one per line when piped, least recently used first, and the total against the limit', async () => {
    const r = await adminOk(['list']);
    // Piped: tab-separated, one line per image, no header.
    const rows = r.stdout.trim().split('\n');
    for (const row of rows) assert.equal(row.split('\t').length, 6, row);
    assert.deepEqual(
      rows.map((row) => row.split('\t').slice(0, 4)),
      [
        [digests.a, `${registry.host}/lab/tool-a:1`, rows[0].split('\t')[2], '0'],
        [digests.b, `${registry.host}/lab/tool-b:1`, rows[1].split('\t')[2], '0'],
      ],
    );
    for (const row of rows) assert.match(row.split('\t')[2], /^[0-9.]+ MB$/);
    assert.match(r.stderr, /^2 image\(s\) in the cache, [0-9.]+ MB of its limit 50\.0 GB\n$/);
  });

  it('list --output-format json: every field, sizes in bytes', async () => {
    const images = JSON.parse((await adminOk(['list', '--output-format', 'json'])).stdout);
    assert.deepEqual(
      images.map((i: any) => i.digest),
      [digests.a, digests.b],
    );
    for (const image of images) {
      assert.equal(image.jobs, 0);
      assert.ok(Number.isInteger(image.sizeBytes) && image.sizeBytes > 0);
      assert.ok(image.pulledAt <= image.lastUsedAt);
    }
  });

  it('prune: nothing beyond the limit; --digest removes that image; a digest not cached fails with the server’s message', async () => {
    const none = await adminOk(['prune']);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /^Removed 0 image\(s\), 0 B; 2 image\(s\) in the cache/);
    const one = await adminOk(['prune', '--digest', digests.a]);
    assert.equal(one.stdout, `${digests.a}\n`);
    assert.match(one.stderr, /^Removed 1 image\(s\), [0-9.]+ MB; 1 image\(s\) in the cache/);
    const missing = await admin(['prune', '--digest', digests.a]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, new RegExp(`The image ${digests.a} is not in the cache`));
    const bad = await admin(['prune', '--digest', 'latest']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /digest/);
  });

  it('prune --all removes every unused image; --all with --digest is a usage error', async () => {
    const both = await admin(['prune', '--all', '--digest', digests.b]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Give --all or --digest, not both/);
    const all = await adminOk(['prune', '--all']);
    assert.equal(all.stdout, `${digests.b}\n`);
    assert.match(all.stderr, /; 0 image\(s\) in the cache, 0 B of its limit/);
    const empty = await adminOk(['list']);
    assert.equal(empty.stdout, '');
    assert.match(empty.stderr, /No cached images found\n0 image\(s\) in the cache/);
  });

  it('refuses a key that is not a platform administrator’s', async () => {
    const tenant = await s.newTenant('not-admin');
    const r = await runCli(['admin', 'images', 'list', ...connectionArgs(s.url, tenant.apikey)]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /Only an administrator can do this/);
  });
});
