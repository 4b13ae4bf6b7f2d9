import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonApi } from '../../../../test/support/json-api.js';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { startBashJobServer, type BashJobServer } from '../scheduler/bash-job-server.js';
import { waitFor } from '../scheduler/helpers.js';
import { startImageFixture, type ImageFixture } from './fixture.js';

const skip = registryToolsMissing() ?? false;

/**
 * The image cache under a limit smaller than two images (0: no image that no job uses is kept),
 * through jobs and the admin routes, on a server that runs jobs (SQLite, or PostgreSQL with
 * RUNYARD_TEST_DATABASE_URL).
 */
describe('the image cache of container jobs: eviction under its limit, list and prune over HTTP', { skip, timeout: 600_000 }, () => {
  let fx: ImageFixture;
  let w: BashJobServer;
  before(async () => {
    fx = await startImageFixture();
    w = await startBashJobServer({
      RUNYARD_JOB_IMAGES: 'pull',
      RUNYARD_INSECURE_REGISTRIES: fx.registry.host,
      RUNYARD_IMAGE_CACHE_LIMIT_GIB: '0',
    });
  });
  after(async () => {
    await w?.close();
    await fx?.stop();
  });

  let workflows = 0;
  const submit = async (tag: string, command: string) => {
    const body = { workspaceId: w.ws, name: `wf-${++workflows}`, containerName: `${fx.registry.host}/t/${tag}:1` };
    const workflow = (await w.ok('POST', '/api/runyard/admin/workflows/docker', body))._id as string;
    return w.submit(command, { workflow });
  };
  const completed = async (id: string) => {
    const job = await w.ended(id);
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${w.logOf(id)}`);
  };
  const digest = (tag: string) => fx.digests.get(`t/${tag}:1`)!;
  const cached = async () => ((await w.ok('GET', '/api/runyard/admin/images')).images as any[]).map((i) => [i.digest, i.jobs]);

  it('pulling b evicts a unless a running job uses it; a job in an evicted image pulls it again; prune refuses what a job uses', async () => {
    await completed(await submit('a', 'hello-a'));
    const listing = await w.ok('GET', '/api/runyard/admin/images');
    assert.equal(listing.limitBytes, 0);
    assert.equal(listing.images.length, 1);
    const [a] = listing.images;
    assert.equal(a.digest, digest('a'));
    assert.deepEqual(a.references, [`${fx.registry.host}/t/a:1`]);
    assert.equal(a.jobs, 0);
    assert.ok(a.sizeBytes > 0 && listing.totalBytes === a.sizeBytes);
    assert.ok(a.pulledAt <= a.lastUsedAt);

    // A job in a that runs until the test opens its gate (a file in its work directory).
    const held = await submit('a', 'while [ ! -e gate ]; do sleep 0.05; done; hello-a');
    await waitFor(
      `job ${held} to run`,
      async () => (await w.ok('GET', `/api/v1/jobs/${held}?teamId=${w.ws}`)).status === 'running',
      60_000,
    );
    await completed(await submit('b', 'hello-b'));
    assert.deepEqual(await cached(), [
      [digest('a'), 1],
      [digest('b'), 0],
    ]);
    const refused = await w.api('POST', '/api/runyard/admin/images/prune', { digest: digest('a') });
    assert.equal(refused.status, 409);
    assert.equal(refused.json.code, 'IMAGE_IN_USE');
    assert.match(refused.json.message, new RegExp(`${digest('a')} is used by 1 job\\(s\\) now`));
    const all = await w.ok('POST', '/api/runyard/admin/images/prune', { all: true });
    assert.deepEqual(
      all.removed.map((i: any) => i.digest),
      [digest('b')],
    );

    writeFileSync(path.join(jobPaths(w.s.config.dataDir, w.ws, held).work, 'gate'), '');
    await completed(held);
    assert.deepEqual(await cached(), [[digest('a'), 0]]);
    // Pulling configured evicts a, which no job uses now.
    await completed(await submit('configured', 'tool-on-image-path'));
    assert.deepEqual(await cached(), [[digest('configured'), 0]]);
    assert.ok(!existsSync(path.join(w.s.config.imageCacheDir, 'rootfs', digest('a').replace(':', '-'))));

    const again = await submit('a', 'hello-a');
    await completed(again);
    assert.match(w.logOf(again), /Runyard: image: Copying blob sha256:/, 'a was pulled again');
    assert.match(w.logOf(again), /hello from image a\n/);
    assert.deepEqual(await cached(), [[digest('a'), 0]]);
  });

  it('prune: by default the unused images beyond the limit; one digest; 404 for a digest not cached', async () => {
    const missing = await w.api('POST', '/api/runyard/admin/images/prune', { digest: `sha256:${'0'.repeat(64)}` });
    assert.equal(missing.status, 404);
    assert.equal(missing.json.code, 'IMAGE_NOT_CACHED');
    assert.match(missing.json.message, /The image sha256:0{64} is not in the cache/);
    const [[only]] = await cached();
    const pruned = await w.ok('POST', '/api/runyard/admin/images/prune', {});
    assert.deepEqual(
      pruned.removed.map((i: any) => i.digest),
      [only],
    );
    assert.deepEqual(pruned.images, []);
    assert.equal(pruned.totalBytes, 0);
    await completed(await submit('b', 'hello-b'));
    const one = await w.ok('POST', '/api/runyard/admin/images/prune', { digest: digest('b') });
    assert.deepEqual(
      one.removed.map((i: any) => [i.digest, i.references]),
      [[digest('b'), [`${fx.registry.host}/t/b:1`]]],
    );
  });

  it('refuses bad input with a 400 and a clear message, and every caller but a platform administrator with a 403', async () => {
    const bad: [unknown, RegExp][] = [
      [{ digest: 'sha256:abc' }, /digest/],
      [{ digest: `sha512:${'0'.repeat(64)}` }, /digest/],
      [{ all: 'yes' }, /all/],
      [{ everything: true }, /everything/],
      [{ all: true, digest: digest('a') }, /Give "all" or "digest", not both/],
    ];
    for (const [body, message] of bad) {
      const reply = await w.api('POST', '/api/runyard/admin/images/prune', body);
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.match(reply.json.message, message, JSON.stringify(reply.json));
    }
    const tenant = await w.s.newTenant('imageless');
    const asTenant = jsonApi(
      () => w.s.url,
      () => tenant.apikey,
    );
    for (const [method, url, body] of [
      ['GET', '/api/runyard/admin/images', undefined],
      ['POST', '/api/runyard/admin/images/prune', { all: true }],
    ] as const) {
      const reply = await asTenant(method, url, body);
      assert.equal(reply.status, 403, `${method} ${url}`);
      assert.equal(reply.json.code, 'ADMIN_REQUIRED');
    }
    const anonymous = await fetch(`${w.s.url}/api/runyard/admin/images`);
    assert.equal(anonymous.status, 401);
  });
});
