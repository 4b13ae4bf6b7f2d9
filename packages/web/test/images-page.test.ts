import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { jsonApi, jsonApiOk } from '../../../test/support/json-api.js';
import { registryToolsMissing, startRegistry, type TestRegistry } from '../../../test/support/registry.js';
import { buildTestImages } from '../../../test/support/test-images.js';
import { after, before, test } from './support/browser-test.js';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };
const missing = registryToolsMissing();

let w: WebWorld;
let registry: TestRegistry;
let dir: string;
const digests: Record<string, string> = {};

/** Runs a bash job of a docker workflow of `tag` until it completes: its image is then in the cache. */
async function runIn(tag: string, command: string): Promise<void> {
  const ok = jsonApiOk(
    jsonApi(
      () => w.s.url,
      () => w.s.admin.apikey,
    ),
  );
  const body = { workspaceId: w.ws, name: `tool-${tag}`, containerName: `${registry.host}/lab/tool-${tag}:1` };
  const workflow = (await ok('POST', '/api/runyard/admin/workflows/docker', body))._id;
  const project = (await ok('POST', `/api/v1/projects?teamId=${w.ws}`, { name: `images-${tag}` }))._id;
  const job = { project, workflow, name: `in-${tag}`, command, parameters: [], executionPlatform: 'aws' };
  const id = (await ok('POST', `/api/v2/jobs?teamId=${w.ws}`, job)).jobId;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { status, statusMessage } = await ok('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`);
    if (['completed', 'failed', 'aborted'].includes(status)) return assert.equal(status, 'completed', statusMessage);
    if (Date.now() > deadline) throw new Error(`job ${id} did not end: ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

before(async () => {
  if (missing) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-web-images-'));
  const images = buildTestImages(dir);
  registry = await startRegistry();
  digests.a = registry.push(images.layout, 'a', 'lab/tool-a:1');
  digests.b = registry.push(images.layout, 'b', 'lab/tool-b:1');
  w = await webWorld({ RUNYARD_JOB_IMAGES: 'pull', RUNYARD_INSECURE_REGISTRIES: registry.host });
  await runIn('a', 'hello-a');
  await runIn('b', 'hello-b');
});
after(async () => {
  await w?.close();
  await registry?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the Images page lists the image cache; an administrator removes one image, then prunes all unused', async () => {
  if (missing) return;
  const { context, page, problems } = await w.signedIn();
  await page.getByRole('link', { name: 'Admin', exact: true }).click();
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Images' }).click();
  await page.waitForURL((u) => u.pathname === '/app/admin/images', WAIT);
  await page.getByRole('heading', { name: 'Images' }).waitFor(WAIT);
  await page.getByText(/^2 image\(s\), [0-9.]+ MiB of the limit 50 GiB/).waitFor(WAIT);
  const rowOf = (tag: string) => page.getByRole('row', { name: new RegExp(`${registry.host}/lab/tool-${tag}:1`) });
  await rowOf('a').waitFor(WAIT);
  await rowOf('b').waitFor(WAIT);
  assert.equal(await rowOf('a').getByRole('cell').nth(3).textContent(), '0', 'no job uses it');

  await rowOf('a').getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('button', { name: 'Remove image' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /^Removed 1 image\(s\), [0-9.]+ MiB\.$/ })
    .waitFor(WAIT);
  await rowOf('a').waitFor({ state: 'detached', ...WAIT });
  assert.deepEqual(
    (await w.client.admin.listImages()).images.map((i) => i.digest),
    [digests.b],
  );

  await page.getByRole('button', { name: 'Prune all unused' }).click();
  await page.getByRole('button', { name: 'Prune all unused' }).click();
  await page.getByText('The cache holds no image.').waitFor(WAIT);
  assert.deepEqual((await w.client.admin.listImages()).images, []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a workspace member is told that the Images page needs a platform administrator', async () => {
  if (missing) return;
  const user = await w.client.admin.createUser({ username: 'ina', email: 'ina@example.org', name: 'Ina' });
  await w.client.admin.addMember(w.ws, user.id, 'member');
  const key = (await w.client.admin.createApiKey(user.id, 'ina')).apikey;
  const { context, page, problems } = await w.signedIn(key);
  await page.goto(`${w.s.url}/app/admin/images`);
  await page.getByText('You need the platform administrator role to list or prune the image cache of container jobs.').waitFor(WAIT);
  assert.equal(await page.getByRole('button', { name: /Prune|Remove/ }).count(), 0);
  assert.equal(await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Images' }).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
