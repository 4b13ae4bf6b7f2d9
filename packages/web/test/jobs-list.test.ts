import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import type { Page } from 'playwright-core';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };

let w: WebWorld;
before(async () => {
  w = await webWorld();
});
after(async () => {
  await w?.close();
});

function bashJob(jobName: string, command: string) {
  return w.client.sendJob({
    workspaceId: w.ws,
    projectName: 'demo',
    workflowName: 'ubuntu',
    workflowType: 'docker',
    isModule: false,
    jobName,
    command,
  });
}

/** The names in the table's rows, in order. */
async function shownNames(page: Page): Promise<string[]> {
  return page.locator('table.job-table tbody tr td:first-child').allInnerTexts();
}

const pager = (page: Page, text: string) => page.getByRole('navigation', { name: 'Pages of jobs' }).getByText(text);

test('the list filters by name and status on the server, pages, and keeps both in the URL', async () => {
  // 26 jobs named batch-NN (more than a page of 25), and one that fails.
  // (One after the other, so that their creation order is their name order.)
  const ids: string[] = [];
  for (let i = 0; i < 26; i += 1) ids.push(await bashJob(`batch-${String(i).padStart(2, '0')}`, 'true'));
  const broken = await bashJob('broken-one', 'exit 3');
  await Promise.all([...ids, broken].map((id) => w.client.waitJobCompletion(id, w.ws, { waitTime: 120, requestInterval: 0.5 })));
  assert.equal((await w.client.getJobStatus(broken, w.ws)).status, 'failed');

  const { context, page, problems } = await w.signedIn();
  const apiLists: URL[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/api/v2/jobs') apiLists.push(u);
  });

  await page.getByLabel('Name contains').fill('batch-');
  await page.getByLabel('Name contains').press('Enter');
  await page.waitForURL((u) => u.searchParams.get('name') === 'batch-', WAIT);
  await pager(page, 'Jobs 1–25 of 26 · page 1 of 2').waitFor(WAIT);
  const first = await shownNames(page);
  assert.equal(first.length, 25);
  assert.deepEqual(first, [...first].sort().reverse(), 'newest first');
  assert.equal(first[0], 'batch-25');
  // The server filtered and paged: the page asked for 25 jobs of that name, never all of them.
  const asked = apiLists.at(-1)!;
  assert.equal(asked.searchParams.get('name'), 'batch-');
  assert.equal(asked.searchParams.get('limit'), '25');
  assert.ok(apiLists.every((u) => Number(u.searchParams.get('limit')) <= 100));

  await page.getByRole('button', { name: 'Next page' }).click();
  await page.waitForURL((u) => u.searchParams.get('page') === '2', WAIT);
  await pager(page, 'Jobs 26–26 of 26 · page 2 of 2').waitFor(WAIT);
  assert.deepEqual(await shownNames(page), ['batch-00']);
  assert.ok(await page.getByRole('button', { name: 'Next page' }).isDisabled());

  // A reload (or a shared link) shows the same page of the same filter.
  await page.reload();
  await pager(page, 'Jobs 26–26 of 26 · page 2 of 2').waitFor(WAIT);
  assert.equal(await page.getByLabel('Name contains').inputValue(), 'batch-');
  await page.getByRole('button', { name: 'Previous page' }).click();
  await pager(page, 'Jobs 1–25 of 26 · page 1 of 2').waitFor(WAIT);

  // 50 a page: all of them on one.
  await page.getByLabel('Per page').selectOption('50');
  await pager(page, 'Jobs 1–26 of 26 · page 1 of 1').waitFor(WAIT);
  assert.equal((await shownNames(page)).length, 26);
  assert.equal(new URL(page.url()).searchParams.get('size'), '50');

  // Status: only the failed job, whatever its name; a new filter starts at page 1.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('Status').selectOption('failed');
  await page.waitForURL((u) => u.searchParams.get('status') === 'failed' && !u.searchParams.has('name'), WAIT);
  await pager(page, 'Jobs 1–1 of 1 · page 1 of 1').waitFor(WAIT);
  assert.deepEqual(await shownNames(page), ['broken-one']);
  await page
    .getByRole('row', { name: /broken-one/ })
    .getByText('failed', { exact: true })
    .waitFor(WAIT);

  // Project, workflow and owner narrow it further (ids and the owner's id in the request); an unknown owner is said.
  await page.getByLabel('Project').selectOption('demo');
  await page.getByLabel('Workflow').selectOption('ubuntu');
  await page.getByLabel('Owner', { exact: true }).fill('admin');
  const withOwner = page.waitForResponse((r) => {
    const u = new URL(r.url());
    return u.pathname === '/api/v2/jobs' && u.searchParams.has('user.id');
  }, WAIT);
  await page.getByLabel('Owner', { exact: true }).press('Enter');
  const filtered = new URL((await withOwner).url());
  await page.waitForURL(
    (u) => u.searchParams.get('owner') === 'admin' && u.searchParams.has('project') && u.searchParams.has('workflow'),
    WAIT,
  );
  await pager(page, 'Jobs 1–1 of 1 · page 1 of 1').waitFor(WAIT);
  assert.equal(filtered.searchParams.get('status'), 'failed');
  assert.equal(filtered.searchParams.get('user.id'), w.s.admin.userId);
  assert.match(filtered.searchParams.get('project.id') ?? '', /^[0-9a-f]{24}$/);
  assert.match(filtered.searchParams.get('workflow.id') ?? '', /^[0-9a-f]{24}$/);
  await page.getByLabel('Owner', { exact: true }).fill('nobody-here');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByRole('alert').filter({ hasText: 'User "nobody-here" was not found' }).waitFor(WAIT);
  // A click, not check(): the box shows the URL's filter, so it turns checked once the navigation is done, which
  // check() does not wait for (on a busy machine it saw the box unchanged and failed).
  await page.getByLabel('Only my jobs').click();
  await page.waitForURL((u) => u.searchParams.get('mine') === '1' && !u.searchParams.has('owner'), WAIT);
  await page.getByLabel('Only my jobs').and(page.locator(':checked')).waitFor(WAIT);
  await pager(page, 'Jobs 1–1 of 1 · page 1 of 1').waitFor(WAIT);
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByLabel('Status').selectOption('failed');

  // Status and name together, matching nothing.
  await page.getByLabel('Name contains').fill('batch-');
  await page.getByRole('button', { name: 'Apply' }).click();
  await page.getByText('No jobs match these filters.').waitFor(WAIT);

  // The name links to the job's page.
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await page.getByRole('link', { name: 'broken-one' }).click();
  await page.getByRole('heading', { level: 1, name: 'broken-one' }).waitFor(WAIT);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the list follows a running job to its end without a reload', async () => {
  const id = await bashJob('live-one', 'sleep 8');
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses?name=live-one`);
  const row = page.getByRole('row', { name: /live-one/ });
  await row.waitFor(WAIT);
  await row.getByText(/^(queued|scheduled|initializing|running)$/).waitFor(WAIT);
  await row.getByText('completed', { exact: true }).waitFor(WAIT);
  assert.equal((await w.client.getJobStatus(id, w.ws)).status, 'completed');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a viewer sees the jobs but is offered no action, and cannot launch', async () => {
  const vera = await w.client.admin.createUser({ username: 'vera', email: 'vera@example.org', name: 'Vera' });
  await w.client.admin.addMember(w.ws, vera.id, 'viewer');
  const key = await w.client.admin.createApiKey(vera.id);
  const id = await bashJob('admins-job', 'echo owned-by-the-admin');
  await w.client.waitJobCompletion(id, w.ws, { waitTime: 60, requestInterval: 0.2 });

  const { context, page, problems } = await w.signedIn(key.apikey);
  await page.getByRole('link', { name: 'admins-job' }).click(WAIT);
  await page.getByRole('heading', { level: 1, name: 'admins-job' }).waitFor(WAIT);
  await page.locator('pre.log').filter({ hasText: 'owned-by-the-admin' }).waitFor(WAIT);
  await page.getByText('You are a viewer in this workspace: running jobs needs the member role.').waitFor(WAIT);
  const actions = page.getByRole('region', { name: 'Job actions' });
  for (const name of ['Abort', 'Force abort', 'Clone', 'Archive', 'Delete results', 'Resume'])
    assert.equal(await actions.getByRole('button', { name, exact: true }).count(), 0, `no ${name} button`);

  await page.getByRole('link', { name: 'Launch', exact: true }).first().click();
  await page.getByText('launching jobs needs the member role').waitFor(WAIT);
  assert.ok(await page.getByRole('button', { name: 'Launch' }).isDisabled());
  assert.deepEqual(problems, []);
  await context.close();
});

test('over 100,000 jobs the list stays fast: the server pages and filters, the page never reads them all', async () => {
  // 100,000 copies of a finished job, older than the others, written straight into the database.
  const model = await w.s.store.db.selectFrom('jobs').selectAll().where('name', '=', 'broken-one').executeTakeFirstOrThrow();
  const base = Date.parse(model.created_at) - 1e9;
  const TOTAL = 100_000;
  const started = Date.now();
  for (let from = 0; from < TOTAL; from += 500) {
    const rows = [];
    for (let i = from; i < Math.min(TOTAL, from + 500); i += 1) {
      const at = new Date(base + i * 1000).toISOString();
      rows.push({
        ...model,
        id: `f${i.toString(16).padStart(23, '0')}`,
        name: `bulk-${i}`,
        status: 'completed',
        created_at: at,
        updated_at: at,
        start_time: at,
        end_time: at,
        results_folder_id: null,
        work_folder_id: null,
      });
    }
    await w.s.store.db.insertInto('jobs').values(rows).execute();
  }
  console.log(`# inserted ${TOTAL} jobs in ${Date.now() - started} ms`);

  const { context, page, problems } = await w.signedIn();
  const lists: URL[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname === '/api/v2/jobs') lists.push(u);
  });
  const timed = async (what: string, url: string, expected: string) => {
    const t0 = Date.now();
    await page.goto(url);
    await pager(page, expected).waitFor(WAIT);
    const ms = Date.now() - t0;
    console.log(`# ${what}: ${ms} ms`);
    assert.ok(ms < 5_000, `${what} took ${ms} ms`);
  };
  const all = (await w.client.getJobList(w.ws, { pageSize: 1 })).paginationMetadata!['Pagination-Count'];
  assert.ok(all > TOTAL);
  await timed('first page', `${w.s.url}/app/advanced-analytics/analyses`, `Jobs 1–25 of ${all} · page 1 of ${Math.ceil(all / 25)}`);
  await timed('a name filter', `${w.s.url}/app/advanced-analytics/analyses?name=bulk-99999`, 'Jobs 1–1 of 1 · page 1 of 1');
  assert.deepEqual(await shownNames(page), ['bulk-99999']);
  const last = Math.ceil(all / 100);
  await timed('the last page of 100', `${w.s.url}/app/advanced-analytics/analyses?size=100&page=${last}`, `page ${last} of ${last}`);
  assert.deepEqual((await shownNames(page)).at(-1), 'bulk-0');
  assert.ok(
    lists.every((u) => Number(u.searchParams.get('limit')) <= 100),
    'every read asks for one page',
  );
  assert.deepEqual(problems, []);
  await context.close();
});
