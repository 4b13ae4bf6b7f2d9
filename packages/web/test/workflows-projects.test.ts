import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };

let w: WebWorld;
before(async () => {
  w = await webWorld();
});
after(async () => {
  await w?.close();
});

test("a project created on the Projects page is the server's; a name taken is refused in the server's words; search narrows the list", async () => {
  const { context, page, problems } = await w.signedIn();
  await page.getByRole('link', { name: 'Projects', exact: true }).click();
  await page.getByRole('row', { name: /demo/ }).waitFor(WAIT);

  await page.getByLabel('Project name').fill('genomics');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByRole('status').filter({ hasText: 'Created the project "genomics".' }).waitFor(WAIT);
  await page.getByRole('row', { name: /genomics/ }).waitFor(WAIT);
  const names = (await w.client.getProjectList(w.ws)).map((p) => p.name).sort();
  assert.deepEqual(names, ['demo', 'genomics']);

  await page.getByLabel('Project name').fill('genomics');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.getByRole('alert').filter({ hasText: 'A project named "genomics" already exists in this workspace.' }).waitFor(WAIT);
  assert.equal((await w.client.getProjectList(w.ws)).length, 2);

  await page.getByLabel('Search by name').fill('geno');
  await page.getByRole('row', { name: /demo/ }).waitFor({ state: 'detached', ...WAIT });
  await page.getByRole('row', { name: /genomics/ }).waitFor(WAIT);
  await page.getByText('Page 1 of 1 (1 projects)').waitFor(WAIT);

  assert.deepEqual(problems, []);
  await context.close();
});

test('a workflow is imported from git after listing the repository, its branches are listed, and it is archived and unarchived', async () => {
  const repo = w.mirror.create('acme/variants', {
    files: { 'main.nf': 'workflow {}\n', 'nextflow.config': 'params.x = 1\n' },
    branches: { dev: { 'dev.txt': 'dev' }, 'feature-x': { 'x.txt': 'x' } },
  });
  const { context, page, problems } = await w.signedIn();
  await page.getByRole('link', { name: 'Workflows', exact: true }).click();
  await page.getByRole('row', { name: /rnatoy/ }).waitFor(WAIT);

  // A repository that does not exist: the server says so, and the import step is not offered.
  await page.getByLabel('Repository URL').fill('https://github.com/acme/nothing-here');
  await page.getByRole('button', { name: 'List branches' }).click();
  await page.getByRole('alert').waitFor(WAIT);
  assert.equal(await page.getByRole('button', { name: 'Import workflow' }).count(), 0);

  await page.getByLabel('Repository URL').fill(repo.url);
  await page.getByLabel('Workflow name').fill('variants');
  await page.getByRole('button', { name: 'List branches' }).click();
  await page.getByText('default branch main').waitFor(WAIT);
  await page.getByRole('button', { name: 'Import workflow' }).click();
  await page.getByRole('status').filter({ hasText: 'Imported the workflow "variants".' }).waitFor(WAIT);
  const branches = page.getByRole('list', { name: 'Branches of variants' });
  await branches.waitFor(WAIT);
  assert.deepEqual(
    (await branches.getByRole('listitem').allTextContents()).map((t) => t.split(' ')[0]),
    ['dev', 'feature-x', 'main'],
  );
  await page.getByRole('row', { name: /variants/ }).waitFor(WAIT);
  const imported = (await w.client.getWorkflowList(w.ws)).find((x) => x.name === 'variants');
  assert.ok(imported, 'the server has the workflow');
  assert.equal(imported.repository?.url, repo.url);

  // The branches of a workflow in the list (the harness's rnatoy has main and dev).
  await page.getByRole('button', { name: 'Branches of rnatoy' }).click();
  const rnatoy = page.getByRole('list', { name: 'Branches of rnatoy' });
  await rnatoy.getByText('dev', { exact: true }).waitFor(WAIT);
  await rnatoy.getByText('main', { exact: true }).waitFor(WAIT);

  // Archived: gone from the default view, listed under Archived, and back again.
  await page.getByRole('button', { name: 'Archive variants' }).click();
  await page.getByRole('status').filter({ hasText: 'Archived the workflow "variants".' }).waitFor(WAIT);
  await page.getByRole('row', { name: /variants/ }).waitFor({ state: 'detached', ...WAIT });
  assert.equal(
    (await w.client.getWorkflowList(w.ws, { archivedStatus: true })).some((x) => x._id === imported._id),
    true,
  );
  await page.getByLabel('Show').selectOption('archived');
  await page.getByRole('button', { name: 'Unarchive variants' }).click();
  await page.getByRole('status').filter({ hasText: 'Unarchived the workflow "variants".' }).waitFor(WAIT);
  assert.equal(
    (await w.client.getWorkflowList(w.ws)).some((x) => x._id === imported._id),
    true,
  );

  assert.deepEqual(problems, []);
  await context.close();
});
