import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import { RunyardClient } from '@runyard/client';
import type { Page } from 'playwright-core';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };
const JOB_PAGE = /\/app\/advanced-analytics\/analyses\/([0-9a-f]{24})$/;

let w: WebWorld;
before(async () => {
  w = await webWorld();
});
after(async () => {
  await w?.close();
});

const badge = (page: Page, status: string) => page.locator('.page-header .status').filter({ hasText: new RegExp(`^${status}$`) });
const jobIdOf = (page: Page) => JOB_PAGE.exec(new URL(page.url()).pathname)![1];

function bashJob(jobName: string, command: string, client: RunyardClient = w.client, workspaceId = w.ws): Promise<string> {
  return client.sendJob({
    workspaceId,
    projectName: 'demo',
    workflowName: 'ubuntu',
    workflowType: 'docker',
    isModule: false,
    jobName,
    command,
  });
}

async function finishedBashJob(jobName: string, command: string, client: RunyardClient = w.client, workspaceId = w.ws): Promise<string> {
  const id = await bashJob(jobName, command, client, workspaceId);
  await client.waitJobCompletion(id, workspaceId, { waitTime: 60, requestInterval: 0.2 });
  return id;
}

test('clone with overrides, archive and unarchive, delete the results', async () => {
  const id = await finishedBashJob('to-clone', 'echo "greeting is $RUNYARD_PARAM_GREETING"; echo kept > "$RUNYARD_RESULTS_DIR/kept.txt"');
  const types = await w.client.getInstanceTypes(w.ws);
  const other = types.instanceTypes.find((t) => t.name !== types.defaultInstanceType)!;
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await badge(page, 'completed').waitFor(WAIT);
  await page.getByRole('link', { name: 'kept.txt' }).waitFor(WAIT);

  // Clone: a new name, a parameter, another instance type; the new job's page opens.
  await page.getByRole('button', { name: 'Clone', exact: true }).click();
  await page.getByRole('form', { name: 'Clone this job' }).waitFor(WAIT);
  await page.getByLabel('New job name').fill('the-clone');
  await page.getByRole('button', { name: 'Add parameter' }).click();
  await page.getByLabel('Parameter 1 name').fill('greeting');
  await page.getByLabel('Parameter 1 value').fill('hello clone');
  await page.getByLabel('Instance type').selectOption(other.name);
  await page.getByRole('button', { name: 'Run the clone' }).click();
  await page.waitForURL((u) => JOB_PAGE.test(u.pathname) && !u.pathname.endsWith(id), WAIT);
  const cloneId = jobIdOf(page);
  await page.getByRole('heading', { level: 1, name: 'the-clone' }).waitFor(WAIT);
  await page.locator('pre.log').filter({ hasText: 'greeting is hello clone' }).waitFor(WAIT);
  const clone = await w.client.getJobStatus(cloneId, w.ws);
  assert.equal(clone.instanceType, other.name);
  assert.deepEqual(
    (clone.parameters as Array<{ name: string; textValue: string }>).map((p) => `${p.name}=${p.textValue}`),
    ['greeting=hello clone'],
  );

  // A bad override: the server's (or the SDK's) message, and no new job.
  await page.getByRole('button', { name: 'Clone', exact: true }).click();
  await page.getByLabel('Cost limit (dollars, -1 for none)').fill('2000000000');
  const before = (await w.client.getJobList(w.ws, { pageSize: 100 })).paginationMetadata!['Pagination-Count'];
  await page.getByRole('button', { name: 'Run the clone' }).click();
  await page.getByRole('alert').filter({ hasText: 'Could not clone the job' }).waitFor(WAIT);
  assert.equal((await w.client.getJobList(w.ws, { pageSize: 100 })).paginationMetadata!['Pagination-Count'], before);
  await page.getByRole('button', { name: 'Cancel' }).click();

  // Archive, then unarchive (no confirmation: nothing is lost).
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await page.getByRole('button', { name: 'Archive', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'The job is archived' }).waitFor(WAIT);
  assert.deepEqual(
    (await w.client.getJobList(w.ws, { archived: true })).jobs.map((j) => j._id),
    [id],
  );
  await page.getByRole('button', { name: 'Unarchive', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'no longer archived' }).waitFor(WAIT);
  assert.equal((await w.client.getJobList(w.ws, { archived: true })).jobs.length, 0);

  // Delete the results: asked first, then scheduled, and the page says so.
  await page.getByRole('button', { name: 'Delete results' }).click();
  await page.getByRole('button', { name: 'Yes, delete the results' }).click();
  await page.getByRole('status').filter({ hasText: 'The deletion of the results is scheduled.' }).waitFor(WAIT);
  await page
    .getByRole('status')
    .filter({ hasText: /Results folder: (scheduled for deletion|being deleted|deleted) — deletion asked by/ })
    .waitFor(WAIT);
  const job = await w.client.getJobStatus(id, w.ws);
  assert.ok((job.analysisResults as { deletedBy?: unknown }).deletedBy, 'the job records who asked');
  assert.equal(await page.getByRole('button', { name: 'Delete results' }).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a Nextflow job launched from the form on a listed branch, then resumed from its page', async () => {
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/launch`);
  await page.getByLabel('Project').selectOption('demo', WAIT);
  await page.getByLabel('Workflow').selectOption({ label: 'rnatoy' }, WAIT);
  await page.getByLabel('Job name').fill('rnatoy-dev');
  await page.getByRole('radio', { name: 'Branch', exact: true }).check();
  await page
    .getByRole('combobox', { name: 'Branch', exact: true })
    .locator('option', { hasText: 'dev' })
    .waitFor({ state: 'attached', ...WAIT });
  await page.getByRole('combobox', { name: 'Branch', exact: true }).selectOption('dev');
  await page.getByText('Resumable').click();
  await page.getByRole('button', { name: 'Add parameter' }).click();
  await page.getByLabel('Parameter 1 name').fill('fail');
  await page.getByLabel('Parameter 1 value').fill('true');
  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(JOB_PAGE, WAIT);
  const id = jobIdOf(page);
  await badge(page, 'failed').waitFor(WAIT);
  const failed = await w.client.getJobStatus(id, w.ws);
  assert.equal((failed.revision as { branch?: string }).branch, 'dev');
  assert.ok(failed.resumeWorkDir, 'a resumable job keeps its work directory');

  // Its work directory is browsable.
  await page.getByRole('button', { name: 'Work directory', exact: true }).click();
  await page.getByRole('navigation', { name: 'Work directory: folder' }).waitFor(WAIT);
  const workdir = page.getByRole('table', { name: /Work directory/ });
  await workdir.waitFor(WAIT);
  assert.ok((await workdir.locator('tbody tr').count()) > 0, 'the work directory lists what the run left');

  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await page.waitForURL((u) => JOB_PAGE.test(u.pathname) && !u.pathname.endsWith(id), WAIT);
  const resumed = await w.client.getJobStatus(jobIdOf(page), w.ws);
  assert.equal(resumed.resumeWorkDir, failed.resumeWorkDir);
  assert.deepEqual(problems, []);
  await context.close();
});

test("a job of the user's other workspace opens from its link, and the page offers to switch", async () => {
  const second = await w.client.admin.createWorkspace('second', w.s.admin.userId);
  await w.client.createProject(second.id, 'demo');
  await w.client.admin.createDockerWorkflow({ workspaceId: second.id, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  const id = await finishedBashJob('in-the-second', 'echo from-the-second-workspace', w.client, second.id);

  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await page.getByRole('heading', { level: 1, name: 'in-the-second' }).waitFor(WAIT);
  await page.locator('pre.log').filter({ hasText: 'from-the-second-workspace' }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Switch to its workspace' }).click();
  assert.equal(await page.getByLabel('Workspace').inputValue(), second.id);
  await page.getByRole('button', { name: 'Switch to its workspace' }).waitFor({ state: 'detached', ...WAIT });
  assert.deepEqual(problems, []);
  await context.close();
});

test("the engine log beside the job log, and the job's logs folder among its files", async () => {
  const id = await finishedBashJob('with-engine-log', 'echo "the job log speaks here"');
  // What a WDL job's engine leaves beside the job log (stdout.txt, which the job wrote).
  w.writeJobLogs(id, {
    'engine.log': 'engine starting\nENGINE-ONLY-LINE 5e1f: the engine says this in its own log only\nengine done\n',
    'call-hello.stdout': 'hello from the call\n',
    'call-hello.stderr': '',
  });
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await badge(page, 'completed').waitFor(WAIT);
  const card = page.getByRole('region', { name: 'Log', exact: true });
  const jobLog = card.getByRole('region', { name: 'Job log' });
  const engineLog = card.getByRole('region', { name: 'Engine log' });
  const jobLogButton = card.getByRole('button', { name: 'Job log', exact: true });
  const engineLogButton = card.getByRole('button', { name: 'Engine log', exact: true });
  await jobLog.filter({ hasText: 'the job log speaks here' }).waitFor(WAIT);

  // The choice appears (the logs folder holds engine.log); the job log is the one shown.
  await engineLogButton.waitFor(WAIT);
  assert.equal(await jobLogButton.getAttribute('aria-pressed'), 'true');
  assert.equal(await engineLogButton.getAttribute('aria-pressed'), 'false');
  await engineLogButton.click();
  await engineLog.filter({ hasText: 'ENGINE-ONLY-LINE 5e1f' }).waitFor(WAIT);
  assert.equal(await engineLogButton.getAttribute('aria-pressed'), 'true');
  assert.equal(await jobLog.count(), 0);
  assert.ok(!(await card.innerText()).includes('the job log speaks here'), 'the engine log view shows no job log text');
  await card.getByRole('status').filter({ hasText: 'this is the engine log as it ended' }).waitFor(WAIT);
  assert.equal(await card.getByRole('button', { name: 'Refresh' }).count(), 0, 'no Refresh once the job has ended');
  // And back.
  await jobLogButton.click();
  await jobLog.filter({ hasText: 'the job log speaks here' }).waitFor(WAIT);
  assert.equal(await engineLog.count(), 0);
  assert.equal(await jobLogButton.getAttribute('aria-pressed'), 'true');

  // The Files card's Logs: the job's logs folder, the calls' logs among its files.
  await page.getByRole('button', { name: 'Logs', exact: true }).click();
  const logs = page.getByRole('table', { name: /^Logs: / });
  await logs.getByRole('link', { name: 'engine.log', exact: true }).waitFor(WAIT);
  await logs.getByRole('link', { name: 'call-hello.stdout', exact: true }).waitFor(WAIT);
  await logs.getByRole('link', { name: 'stdout.txt', exact: true }).waitFor(WAIT);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a job whose logs folder holds no engine.log offers no engine log, until one is there', async () => {
  const id = await finishedBashJob('without-engine-log', 'echo "only the job log here"');
  const { context, page, problems } = await w.signedIn();
  // The Log card's listing of the logs folder: once it has answered, the card knows there is no engine.log.
  const listed = page.waitForResponse((r) => {
    const u = new URL(r.url());
    return u.pathname.endsWith('/bucket-contents') && (u.searchParams.get('path') ?? '').replace(/\/+$/, '').endsWith(`${id}/logs`);
  }, WAIT);
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await badge(page, 'completed').waitFor(WAIT);
  await listed;
  await page.getByRole('region', { name: 'Job log' }).filter({ hasText: 'only the job log here' }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Logs', exact: true }).click();
  await page
    .getByRole('table', { name: /^Logs: / })
    .getByRole('link', { name: 'stdout.txt', exact: true })
    .waitFor(WAIT);
  assert.equal(await page.getByRole('button', { name: 'Engine log' }).count(), 0);
  assert.equal(await page.getByRole('group', { name: 'Which log' }).count(), 0);

  // engine.log appears, larger than the page reads (2 MB): the page read again offers it, and shows its end.
  const filler = `${'an engine line of filler text, sixty-four characters long .....'}\n`.repeat(40_000);
  w.writeJobLogs(id, { 'engine.log': `THE-FIRST-ENGINE-LINE\n${filler}THE-LAST-ENGINE-LINE\n` });
  await page.reload();
  await page.getByRole('button', { name: 'Engine log', exact: true }).click(WAIT);
  const engineLog = page.getByRole('region', { name: 'Engine log' });
  await engineLog.filter({ hasText: 'THE-LAST-ENGINE-LINE' }).waitFor(WAIT);
  await page.getByText('The start of a long engine log is not shown here').waitFor(WAIT);
  const shown = await engineLog.evaluate((el) => el.textContent ?? '');
  assert.ok(!shown.includes('THE-FIRST-ENGINE-LINE'), 'the start of the file is left out');
  assert.ok(shown.length <= 2_000_000 && shown.length > 1_900_000, `about the last 2 MB are shown (${shown.length} characters)`);
  assert.ok(shown.startsWith('an engine line of filler'), 'from a whole line');
  assert.deepEqual(problems, []);
  await context.close();
});

test('while the job runs, Refresh reads the engine log again, and the end of the job does too', async () => {
  const id = await bashJob('engine-log-while-running', 'echo still-running; sleep 300');
  for (let i = 0; (await w.client.getJobStatus(id, w.ws)).status !== 'running'; i++) {
    assert.ok(i < 600, 'the job starts');
    await new Promise((r) => setTimeout(r, 100));
  }
  w.writeJobLogs(id, { 'engine.log': 'engine line one\n' });
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await badge(page, 'running').waitFor(WAIT);
  const card = page.getByRole('region', { name: 'Log', exact: true });
  const engineLog = card.getByRole('region', { name: 'Engine log' });
  await card.getByRole('button', { name: 'Engine log', exact: true }).click(WAIT);
  await engineLog.filter({ hasText: 'engine line one' }).waitFor(WAIT);
  await card.getByRole('status').filter({ hasText: 'the job is still running' }).waitFor(WAIT);

  w.writeJobLogs(id, { 'engine.log': 'engine line one\nengine line two\n' });
  await card.getByRole('button', { name: 'Refresh', exact: true }).click();
  await engineLog.filter({ hasText: 'engine line two' }).waitFor(WAIT);

  // The job ends: the engine log is read once more, and there is nothing left to refresh.
  w.writeJobLogs(id, { 'engine.log': 'engine line one\nengine line two\nengine line three, at the end\n' });
  await w.client.abortJob(id, w.ws);
  await badge(page, 'aborted').waitFor(WAIT);
  await engineLog.filter({ hasText: 'engine line three, at the end' }).waitFor(WAIT);
  await card.getByRole('status').filter({ hasText: 'The job ended (aborted): this is the engine log as it ended.' }).waitFor(WAIT);
  assert.equal(await card.getByRole('button', { name: 'Refresh', exact: true }).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});
