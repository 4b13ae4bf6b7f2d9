import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import type { SessionCreateBody } from '@runyard/client';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };

// Nothing starts sessions in this world (it runs jobs only): a session stays `scheduled` until
// paused, so every change seen here is the server's own answer. VS Code is offered (its command is never run).
let w: WebWorld;
let projectId: string;
before(async () => {
  w = await webWorld({ RUNYARD_SESSION_COMMAND_VSCODE: 'code-server --auth none' });
  projectId = (await w.client.getProjectIdFromName(w.ws, 'demo'))._id;
});
after(async () => {
  await w?.close();
});

function body(name: string): SessionCreateBody {
  return {
    interactiveSessionConfiguration: {
      name,
      backend: 'vscode',
      executionPlatform: 'aws',
      instanceType: 'c5.xlarge',
      isCostSaving: true,
      storageSizeInGb: 500,
      storageMode: 'regular',
      visibility: 'workspace',
      execution: { computeCostLimit: 5, autoShutdownAtDate: new Date(Date.now() + 12 * 3_600_000).toISOString() },
    },
    dataItems: [],
    fileSystemIds: [],
    fuseFileSystems: [],
    projectId,
  };
}

test('the sessions list and a session page show a session made with the SDK; pause and resume work from the page', async () => {
  const made = await w.client.createInteractiveSession(w.ws, body('notebook-1'));
  assert.ok(made.runyardNotes.length > 0, 'a spot instance is one of the options without effect here');
  const { context, page, problems } = await w.signedIn();

  await page.getByRole('link', { name: 'Sessions', exact: true }).click();
  const row = page.getByRole('row', { name: /notebook-1/ });
  await row.getByText('scheduled').waitFor(WAIT);
  await row.getByText('c5.xlarge').waitFor(WAIT);
  await row.getByText('$0.00').waitFor(WAIT);

  await row.getByRole('link', { name: 'notebook-1' }).click();
  await page.waitForURL((u) => u.pathname === `/app/data-science/interactive-analysis/view/${made._id}`, WAIT);
  await page.getByRole('heading', { name: 'notebook-1', level: 1 }).waitFor(WAIT);
  const config = page.getByRole('region', { name: 'Configuration' });
  await config.getByText(/c5\.xlarge \(\d+ vCPU/).waitFor(WAIT);
  await config.getByText('$5.00').waitFor(WAIT);
  await config.getByText('every member of the workspace').waitFor(WAIT);
  await page.getByRole('region', { name: 'Status' }).getByText('scheduled').first().waitFor(WAIT);
  await page.getByRole('region', { name: 'Options without effect on this server' }).getByText(made.runyardNotes[0]).waitFor(WAIT);
  await page.getByRole('region', { name: 'Mounts' }).getByText('Nothing is linked into this session').waitFor(WAIT);

  // Pause asks first; the home is saved unless the box is cleared.
  await page.getByRole('button', { name: 'Pause notebook-1' }).click();
  assert.equal((await w.client.getInteractiveSession(made._id, w.ws)).status, 'scheduled', 'nothing happens before the confirmation');
  await page.getByLabel('Save the home directory first').uncheck();
  await page.getByRole('button', { name: 'Yes, pause' }).click();
  await page.getByRole('region', { name: 'Status' }).getByText('paused').waitFor(WAIT);
  assert.equal((await w.client.getInteractiveSession(made._id, w.ws)).status, 'aborted');

  await page.getByRole('button', { name: 'Resume notebook-1' }).click();
  await page.getByRole('region', { name: 'Status' }).getByText('scheduled').first().waitFor(WAIT);
  assert.equal((await w.client.getInteractiveSession(made._id, w.ws)).status, 'scheduled');

  // Open, once it runs: a launch link through the session proxy, in a new tab, on the sessions' own
  // origin (the platform at 127.0.0.1, sessions at localhost: another host, where the dashboard's cookie is not sent).
  await w.s.store.db.updateTable('interactive_sessions').set({ status: 'ready' }).where('id', '=', made._id).execute();
  const sessionsUrl = w.s.url.replace('//127.0.0.1:', '//localhost:');
  assert.match(w.s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const launch = new RegExp(`^${sessionsUrl}/api/runyard/interactive-sessions/${made._id}/ui/\\?token=`);
  const tabOpened = context.waitForEvent('page', WAIT);
  const launched = context.waitForEvent('request', { predicate: (r) => launch.test(r.url()), ...WAIT });
  await page.getByRole('button', { name: 'Open notebook-1' }).click(WAIT);
  const tab = await tabOpened;
  const launchRequest = await launched;
  assert.equal(launchRequest.frame().page(), tab, 'the launch link is opened in the new tab');
  assert.doesNotMatch((await launchRequest.headerValue('cookie')) ?? '', /runyard_session/, "the dashboard's cookie stays home");
  await tab.close();

  assert.deepEqual(problems, []);
  await context.close();
});

test("a session is created from the page; a backend this server does not run is refused in the server's words", async () => {
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/data-science/interactive-analysis`);
  await page.getByLabel('Session name').fill('from-page');
  await page.getByLabel('Project').selectOption({ label: 'demo' });
  await page.getByLabel('Application').selectOption({ label: 'RStudio' });
  await page.getByLabel('Cost limit (USD)').fill('2.5');
  await page.getByRole('button', { name: 'Create session' }).click();
  await page.getByRole('alert').filter({ hasText: 'RUNYARD_SESSION_COMMAND_RSTUDIO' }).waitFor(WAIT);
  const before = await w.client.getInteractiveSessionList(w.ws, { limit: 100 });
  assert.equal(before.sessions.filter((s) => s.name === 'from-page').length, 0);

  await page.getByLabel('Application').selectOption({ label: 'VS Code' });
  await page.getByRole('button', { name: 'Create session' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/app/data-science/interactive-analysis/view/'), WAIT);
  await page.getByRole('heading', { name: 'from-page', level: 1 }).waitFor(WAIT);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const s = await w.client.getInteractiveSession(id, w.ws);
  assert.equal(s.name, 'from-page');
  assert.equal(s.backend, 'vscode');
  assert.equal(s.visibility, 'private');
  assert.equal(s.interactiveSessionConfiguration.execution.computeCostLimit, 2.5);
  assert.ok(s.interactiveSessionConfiguration.execution.autoShutdownAtDate, 'stops after 12 hours by default');

  // Another workspace's (or a made-up) session is not found.
  await page.goto(`${w.s.url}/app/data-science/interactive-analysis/view/0123456789abcdef01234567`);
  await page.getByRole('alert').filter({ hasText: 'Session not found' }).waitFor(WAIT);

  assert.deepEqual(problems, []);
  await context.close();
});

test("a Jupyter session is created from the page in a container image (Runyard's own field); other applications have no such field", async () => {
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/data-science/interactive-analysis`);
  await page.getByLabel('Session name').fill('in-an-image');
  await page.getByLabel('Project').selectOption({ label: 'demo' });
  await page.getByLabel('Application').selectOption({ label: 'VS Code' });
  assert.equal(await page.getByLabel('Container image').count(), 0);
  await page.getByLabel('Application').selectOption({ value: 'regular' });
  await page.getByLabel('Container image').fill('registry.example.org/lab/notebook:1');
  await page.getByRole('button', { name: 'Create session' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/app/data-science/interactive-analysis/view/'), WAIT);
  const id = new URL(page.url()).pathname.split('/').pop()!;
  const s = await w.client.getInteractiveSession(id, w.ws);
  assert.equal(s.backend, 'regular');
  assert.equal(s.interactiveSessionConfiguration.image, 'registry.example.org/lab/notebook:1');

  await page.goto(`${w.s.url}/app/data-science/interactive-analysis`);
  await page.getByLabel('Session name').fill('bad-image');
  await page.getByLabel('Project').selectOption({ label: 'demo' });
  await page.getByLabel('Container image').fill('Not A Reference');
  await page.getByRole('button', { name: 'Create session' }).click();
  await page.getByRole('alert').filter({ hasText: 'is not an image reference' }).waitFor(WAIT);

  assert.deepEqual(problems, []);
  await context.close();
});
