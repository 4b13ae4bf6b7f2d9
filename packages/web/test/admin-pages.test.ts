import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import { RunyardClient } from '@runyard/client';
import { webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };

let w: WebWorld;
/** A second user, a plain member of the admin's workspace, with a key. */
let mia: { id: string; apikey: string };

before(async () => {
  w = await webWorld();
  const user = await w.client.admin.createUser({ username: 'mia', email: 'mia@example.org', name: 'Mia' });
  await w.client.admin.addMember(w.ws, user.id, 'member');
  mia = { id: user.id, apikey: (await w.client.admin.createApiKey(user.id, 'mia laptop')).apikey };
});
after(async () => {
  await w?.close();
});

/** Who a key is, as the server sees it (rejects when the key does not work). */
async function whoIs(apikey: string) {
  const client = new RunyardClient({ platformUrl: w.s.url, apikey });
  try {
    return await client.getUserInfo();
  } finally {
    client.close();
  }
}

test('an API key made on the page is shown once, works, and stops working when revoked', async () => {
  const { context, page, problems } = await w.signedIn();
  await page.getByRole('link', { name: 'Admin', exact: true }).click();
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'API keys' }).click();
  await page.waitForURL((u) => u.pathname === '/app/admin/keys', WAIT);

  await page.getByLabel('Key name').fill('from the page');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const field = page.getByLabel(/^New API key/);
  await field.waitFor(WAIT);
  const secret = await field.inputValue();
  assert.match(secret, /\S{20,}/, 'the new key is shown');
  await page.getByText('it will not be shown again').waitFor(WAIT);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /Copied|Could not copy/ })
    .waitFor(WAIT);

  // It works: the SDK with it is the admin.
  assert.equal((await whoIs(secret)).id, w.s.admin.userId);

  // Once: Done forgets it, and the list shows only its prefix.
  await page.getByRole('button', { name: 'Done' }).click();
  await field.waitFor({ state: 'detached', ...WAIT });
  const row = page.getByRole('row', { name: /from the page/ });
  await row.getByText('active').waitFor(WAIT);
  assert.ok(!(await page.content()).includes(secret), 'the secret is no longer in the page');
  const listed = (await w.client.admin.listApiKeys(w.s.admin.userId)).find((k) => k.name === 'from the page');
  assert.ok(listed && secret.startsWith(listed.prefix), 'the server lists the key by its prefix');

  // Revoke: a confirm step in the page, then it stops working.
  await page.getByRole('button', { name: 'Revoke from the page' }).click();
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await row.getByText('revoked').waitFor(WAIT);
  await assert.rejects(whoIs(secret), (e: { status?: number }) => e.status === 401);
  // The session was made with another key: it goes on.
  await page.getByRole('heading', { name: 'Your API keys' }).waitFor(WAIT);
  assert.deepEqual(problems, []);
  await context.close();
});

test("a platform administrator changes a member's role, and creates and disables a user", async () => {
  const { context, page, problems } = await w.signedIn();
  await page.goto(`${w.s.url}/app/admin/members`);
  await page.getByRole('heading', { name: 'Members and roles' }).waitFor(WAIT);

  await page.getByLabel('Role of mia', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Save the role of mia' }).click();
  await page.getByRole('status').filter({ hasText: 'Now viewer.' }).waitFor(WAIT);
  const members = await w.client.admin.listMembers(w.ws);
  assert.equal(members.find((m) => m.userId === mia.id)?.role, 'viewer');
  // Back to member for the next test, from the page too.
  await page.getByLabel('Role of mia', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Save the role of mia' }).click();
  await page.getByRole('status').filter({ hasText: 'Now member.' }).waitFor(WAIT);
  assert.equal((await w.client.admin.listMembers(w.ws)).find((m) => m.userId === mia.id)?.role, 'member');

  // Bad input: the server's message, nothing made.
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Users' }).click();
  await page.getByLabel('Username').fill('mia');
  await page.getByLabel('Email').fill('mia2@example.org');
  await page.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('alert').filter({ hasText: 'User not created' }).waitFor(WAIT);
  assert.equal((await w.client.admin.listUsers()).filter((u) => u.username === 'mia').length, 1);

  await page.getByLabel('Username').fill('noah');
  await page.getByLabel('Email').fill('noah@example.org');
  await page.getByRole('button', { name: 'Create user' }).click();
  await page.getByText('User noah created.').waitFor(WAIT);
  const noah = (await w.client.admin.listUsers()).find((u) => u.username === 'noah');
  assert.ok(noah?.active, 'the user exists and is active');

  await page.getByRole('button', { name: 'Disable noah' }).click();
  await page.getByRole('button', { name: 'Disable user' }).click();
  await page.getByRole('row', { name: /noah/ }).getByText('disabled').waitFor(WAIT);
  assert.equal((await w.client.admin.listUsers()).find((u) => u.username === 'noah')?.active, false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a member sees no admin controls, and is told which role a section needs', async () => {
  const { context, page, problems } = await w.signedIn(mia.apikey);
  // The header offers no Admin to a member; the URL still works and says what is missing.
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).count(), 0);
  await page.goto(`${w.s.url}/app/admin`);
  await page.waitForURL((u) => u.pathname === '/app/admin/queues', WAIT);
  const sections = page.getByRole('navigation', { name: 'Administration' });
  await sections.getByRole('link', { name: 'Queues' }).waitFor(WAIT);
  assert.deepEqual(await sections.getByRole('link').allTextContents(), ['Queues', 'Instance types', 'Engine server']);
  await page.getByRole('heading', { name: /Queues of/ }).waitFor(WAIT);
  assert.equal(await page.getByRole('button', { name: 'Create queue' }).count(), 0);

  for (const [path, needs] of [
    ['users', 'You need the platform administrator role to list, create or disable users.'],
    ['workspaces', 'You need the platform administrator role to list or create workspaces.'],
    ['members', 'You need the platform administrator role to add members'],
    ['keys', 'You need the platform administrator role to list, create or revoke API keys'],
  ]) {
    await page.goto(`${w.s.url}/app/admin/${path}`);
    await page.getByText(needs).waitFor(WAIT);
    assert.equal(
      await page
        .getByRole('button')
        .filter({ hasText: /Create|Revoke|Disable|Remove|Save|Add member/ })
        .count(),
      0,
      path,
    );
  }

  // The engine server: a member may start and stop it, not see the workspace's token.
  await page.goto(`${w.s.url}/app/admin/engine`);
  await page.getByText('Stopped', { exact: true }).waitFor(WAIT);
  await page.getByRole('button', { name: 'Start' }).waitFor(WAIT);
  await page.getByText('You need the admin role in the workspace').waitFor(WAIT);
  assert.equal(await page.getByRole('button', { name: /token/i }).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a workspace admin shows the engine token, and rotating it makes the old one stop working', async () => {
  await w.client.admin.addMember(w.ws, mia.id, 'admin');
  const { context, page, problems } = await w.signedIn(mia.apikey);
  await page.getByRole('link', { name: 'Admin', exact: true }).click();
  await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Engine server' }).click();
  await page.getByRole('button', { name: 'Show token' }).click();
  const shown = await page.getByLabel('Engine token', { exact: true }).inputValue();
  assert.equal(shown, (await w.client.showEngineToken(w.ws)).token);

  await page.getByRole('button', { name: 'Rotate token' }).click();
  await page.getByRole('button', { name: 'Rotate engine token' }).click();
  const rotated = await page.getByLabel('New engine token', { exact: true }).inputValue();
  assert.notEqual(rotated, shown);
  assert.equal(rotated, (await w.client.showEngineToken(w.ws)).token);
  // The old token is refused on the Cromwell routes, the new one works.
  const withToken = (token: string) => new RunyardClient({ platformUrl: w.s.url, apikey: 'unused', engineToken: token });
  const old = withToken(shown);
  const fresh = withToken(rotated);
  try {
    await assert.rejects(old.getCromwellStatus(w.ws), (e: { status?: number }) => e.status === 401);
    assert.equal((await fresh.getCromwellStatus(w.ws)).workspace, w.ws);
  } finally {
    old.close();
    fresh.close();
  }
  await page.getByRole('button', { name: 'Hide token' }).click();
  assert.equal(await page.getByLabel(/engine token/i).count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
  await w.client.admin.addMember(w.ws, mia.id, 'member');
});
