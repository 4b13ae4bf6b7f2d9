import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from './support/browser-test.js';
import { RunyardClient } from '@runyard/client';
import type { Page } from 'playwright-core';
import { runCli } from '../../cli/test/support/run-cli.js';
import { webWorld, watchProblems, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };
const JOB_PAGE = /\/app\/advanced-analytics\/analyses\/([0-9a-f]{24})$/;

let w: WebWorld;
before(async () => {
  w = await webWorld();
});
after(async () => {
  await w?.close();
});

/** The status badge beside the job page's title. */
const badge = (page: Page, status: string) => page.locator('.page-header .status').filter({ hasText: new RegExp(`^${status}$`) });

/** A bash job submitted as `runyard bash job` does (the container workflow "ubuntu" of project "demo"). */
function bashJob(client: RunyardClient, workspaceId: string, jobName: string, command: string, projectName = 'demo') {
  return client.sendJob({ workspaceId, projectName, workflowName: 'ubuntu', workflowType: 'docker', isModule: false, jobName, command });
}

test('a bash job launched from the form: the cost per hour first, then its live log, completion and result file', async () => {
  const { context, page, problems } = await w.signedIn();
  const catalogue = await w.client.getInstanceTypes(w.ws);
  const other = catalogue.instanceTypes.find((t) => t.name !== catalogue.defaultInstanceType && t.pricePerHourUsd > 0)!;
  const fallback = catalogue.instanceTypes.find((t) => t.name === catalogue.defaultInstanceType)!;

  await page.getByRole('main').getByRole('link', { name: 'Launch' }).click();
  await page.waitForURL((u) => u.pathname === '/app/advanced-analytics/launch', WAIT);
  await page.getByLabel('Project').selectOption('demo', WAIT);
  await page.getByLabel('Workflow').selectOption({ label: 'ubuntu' }, WAIT);
  await page.getByLabel('Job name').fill('web-hello');
  await page
    .getByLabel('Command')
    .fill('echo "hello from the web"; echo result-content > "$RUNYARD_RESULTS_DIR/answer.txt"; sleep 6; echo "the second line"');

  // The estimate is there before anything is launched: the default type's price, then the chosen one's.
  const estimate = page.getByRole('status').filter({ hasText: 'Estimated cost' });
  const price = async () => Number(/Estimated cost: \$([\d.]+) per hour/.exec((await estimate.textContent()) ?? '')?.[1]);
  await estimate.filter({ hasText: fallback.name }).waitFor(WAIT);
  assert.ok(Math.abs((await price()) - fallback.pricePerHourUsd) < 0.0001, `the default type's price: ${await estimate.textContent()}`);
  await page.getByLabel('Instance type').selectOption(other.name);
  await estimate.filter({ hasText: other.name }).waitFor(WAIT);
  assert.ok(Math.abs((await price()) - other.pricePerHourUsd) < 0.0001, `the chosen type's price: ${await estimate.textContent()}`);
  assert.equal((await w.client.getJobList(w.ws, { filterJobName: 'web-hello' })).jobs.length, 0, 'nothing launched yet');

  // A launch the server refuses: its message, and nothing launched.
  await page.getByLabel('Cost limit (dollars, -1 for none)').fill('2000000000');
  await page.getByRole('button', { name: 'Launch' }).click();
  // Timed out once in a CI run and never since: a second timeout says where the page was and what the form held.
  await page
    .getByRole('alert')
    .filter({ hasText: 'The job was not launched' })
    .waitFor(WAIT)
    .catch(async (e: Error) => {
      const form = await page
        .getByRole('form', { name: 'Launch a job' })
        .evaluate((f: HTMLFormElement) => ({
          valid: f.checkValidity(),
          fields: [...f.elements].map(
            (x) => `${x.id}=${(x as HTMLInputElement).value}${(x as HTMLInputElement).validity?.valid === false ? ' (invalid)' : ''}`,
          ),
        }))
        .catch((why: Error) => why.message);
      throw new Error(`${e.message}\npage ${page.url()}\nform ${JSON.stringify(form)}\nproblems ${JSON.stringify(problems)}`);
    });
  assert.match((await page.getByRole('alert').textContent()) ?? '', /computeCostLimit/);
  assert.equal((await w.client.getJobList(w.ws, { filterJobName: 'web-hello' })).jobs.length, 0, 'nothing launched');
  await page.getByLabel('Cost limit (dollars, -1 for none)').fill('30');

  await page.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(JOB_PAGE, WAIT);
  const jobId = JOB_PAGE.exec(new URL(page.url()).pathname)![1];
  await page.getByRole('heading', { level: 1, name: 'web-hello' }).waitFor(WAIT);

  // Live: the first line shows while the job still runs (the second comes seconds later).
  const log = page.locator('pre.log');
  await log.filter({ hasText: 'hello from the web' }).waitFor(WAIT);
  assert.ok(!(await log.textContent())!.includes('the second line'), 'the first line arrived before the job wrote the second');
  await page.getByRole('status').filter({ hasText: 'Following the log (live)' }).waitFor(WAIT);
  await log.filter({ hasText: 'the second line' }).waitFor(WAIT);
  await page.getByRole('status').filter({ hasText: 'The job ended (completed)' }).waitFor(WAIT);
  await badge(page, 'completed').waitFor(WAIT);
  assert.equal((await log.textContent())!.match(/hello from the web/g)?.length, 1, 'each line once');

  const job = await w.client.getJobStatus(jobId, w.ws);
  assert.equal(job.status, 'completed');
  assert.equal(job.name, 'web-hello');
  assert.equal(job.instanceType, other.name);
  assert.match(String(job.command), /hello from the web/);

  // The result file, downloaded from the results folder.
  const [download] = await Promise.all([page.waitForEvent('download', WAIT), page.getByRole('link', { name: 'answer.txt' }).click(WAIT)]);
  assert.equal(download.suggestedFilename(), 'answer.txt');
  assert.equal(readFileSync((await download.path())!, 'utf8'), 'result-content\n');

  // The list shows it, with a link back to its page.
  await page.getByRole('link', { name: 'Jobs', exact: true }).click();
  await page
    .getByRole('row', { name: /web-hello/ })
    .getByText('completed')
    .waitFor(WAIT);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the link `runyard bash job` prints opens the job page, signed in or through the sign-in', async () => {
  const cli = await runCli([
    'bash',
    'job',
    '--project-name',
    'demo',
    '--workflow-name',
    'ubuntu',
    '--job-name',
    'from-the-cli',
    '--command',
    'echo printed-by-the-cli',
    '--platform-url',
    w.s.url,
    '--apikey',
    w.s.admin.apikey,
    '--workspace-id',
    w.ws,
  ]);
  assert.equal(cli.code, 0, cli.stderr);
  const link = /launched: (\S+)/.exec(cli.stderr)?.[1];
  assert.ok(link, cli.stderr);
  assert.equal(link, `${w.s.url}/app/advanced-analytics/analyses/${cli.stdout.trim()}`);

  // Signed in: straight to the page, its log included.
  const signed = await w.signedIn();
  const t0 = Date.now();
  await signed.page.goto(link);
  await signed.page.getByRole('heading', { level: 1, name: 'from-the-cli' }).waitFor(WAIT);
  await signed.page.locator('pre.log').filter({ hasText: 'printed-by-the-cli' }).waitFor(WAIT);
  console.log(`# the job page, from the link to its title and log: ${Date.now() - t0} ms`);
  assert.deepEqual(signed.problems, []);
  await signed.context.close();

  // A fresh browser: the sign-in first, then back to the same page.
  const context = await w.browser.newContext();
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(link);
  await page.waitForURL((u) => u.pathname === '/app/sign-in', WAIT);
  await page.getByLabel('API key').fill(w.s.admin.apikey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(link, WAIT);
  await page.getByRole('heading', { level: 1, name: 'from-the-cli' }).waitFor(WAIT);
  await page.locator('pre.log').filter({ hasText: 'printed-by-the-cli' }).waitFor(WAIT);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a running job is aborted from its page, after a confirmation', async () => {
  const id = await bashJob(w.client, w.ws, 'long-sleeper', 'echo going-to-sleep; sleep 300');
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await badge(page, 'running').waitFor(WAIT);
  await page.locator('pre.log').filter({ hasText: 'going-to-sleep' }).waitFor(WAIT);

  // The first click only asks; Cancel leaves the job running.
  await page.getByRole('button', { name: 'Abort', exact: true }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal((await w.client.getJobStatus(id, w.ws)).status, 'running');

  await page.getByRole('button', { name: 'Abort', exact: true }).click();
  const confirm = page.getByRole('button', { name: 'Yes, abort the job' });
  assert.ok(await confirm.evaluate((el) => el === document.activeElement), 'the confirming button has the focus');
  await confirm.click();
  await badge(page, 'aborted').waitFor(WAIT);
  await page.getByRole('status').filter({ hasText: 'The job ended (aborted)' }).waitFor(WAIT);
  assert.equal((await w.client.getJobStatus(id, w.ws)).status, 'aborted');
  // A finished job offers no abort.
  assert.equal(await page.getByRole('button', { name: 'Abort', exact: true }).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test("another workspace's job id shows Job not found, and nothing of it", async () => {
  const eve = await w.s.newTenant('eve');
  const eveClient = new RunyardClient({ platformUrl: w.s.url, apikey: eve.apikey });
  await eveClient.createProject(eve.workspaceId, 'eve-secrets');
  await w.client.admin.createDockerWorkflow({ workspaceId: eve.workspaceId, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  const id = await bashJob(eveClient, eve.workspaceId, 'eve-private-job', 'echo eve-top-secret', 'eve-secrets');
  await eveClient.waitJobCompletion(id, eve.workspaceId, { waitTime: 60, requestInterval: 0.2 });

  const { context, page, problems } = await w.signedIn();
  const jobReplies: number[] = [];
  page.on('response', (r) => {
    if (r.url().includes('/api/') && r.url().includes(id)) jobReplies.push(r.status());
  });
  await page.goto(`${w.s.url}/app/advanced-analytics/analyses/${id}`);
  await page.getByRole('heading', { level: 1, name: 'Job not found' }).waitFor(WAIT);
  const text = await page.locator('body').innerText();
  for (const secret of ['eve-private-job', 'eve-top-secret', 'eve-secrets'])
    assert.ok(!text.includes(secret), `the page shows nothing of it (${secret})`);
  assert.ok(
    jobReplies.length > 0 && jobReplies.every((s) => s === 404),
    `every API request about the job was a 404: ${jobReplies.join(', ')}`,
  );
  assert.deepEqual(problems, []);
  eveClient.close();
  await context.close();
});
