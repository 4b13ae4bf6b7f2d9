import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import type { Page } from 'playwright-core';
import { watchProblems, webWorld, type WebWorld } from './support/web-world.js';

const WAIT = { timeout: 60_000 };
const WIDTHS = [1280, 390];

let w: WebWorld;
let jobId: string;

before(async () => {
  w = await webWorld();
  jobId = await w.client.sendJob({
    workspaceId: w.ws,
    projectName: 'demo',
    workflowName: 'ubuntu',
    workflowType: 'docker',
    command: 'echo layout',
    jobName: 'layout-job',
  });
  await w.client.waitJobCompletion(jobId, w.ws, { waitTime: 60 });
});
after(async () => {
  await w?.close();
});

/** The signed-in pages of the dashboard, by path under /app. */
function mainPages(): Array<[string, string]> {
  return [
    ['jobs', '/advanced-analytics/analyses'],
    ['job', `/advanced-analytics/analyses/${jobId}`],
    ['launch', '/advanced-analytics/launch'],
    ['data', '/data'],
    ['workflows', '/workflows'],
    ['projects', '/projects'],
    ['sessions', '/data-science/interactive-analysis'],
    ['admin users', '/admin/users'],
    ['admin members', '/admin/members'],
    ['admin keys', '/admin/keys'],
    ['admin queues', '/admin/queues'],
    ['admin instance types', '/admin/instance-types'],
    ['admin engine', '/admin/engine'],
  ];
}

/** What is wrong with the page's layout and accessibility, as sentences (none when it is fine). */
async function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) faults.push(`the document is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`);
    const h1 = document.querySelectorAll('h1').length;
    if (h1 !== 1) faults.push(`${h1} h1 elements`);
    for (const el of document.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea')) {
      if (el instanceof HTMLInputElement && el.type === 'hidden') continue;
      const labelled =
        (el.getAttribute('aria-label') ?? '').trim() ||
        (el.getAttribute('aria-labelledby') ?? '')
          .split(/\s+/)
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join('')
          .trim() ||
        Array.from(el.labels ?? [])
          .map((l) => l.textContent ?? '')
          .join('')
          .trim();
      if (!labelled)
        faults.push(
          `a ${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} (name=${el.getAttribute('name') ?? ''}) has no accessible name`,
        );
    }
    return faults;
  });
}

/** Waits until the page has drawn its content: its h1, and no loading placeholder left. */
async function settled(page: Page) {
  await page.locator('h1').first().waitFor(WAIT);
  await page.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 15_000 }).catch(() => undefined);
}

test('every main page fits 1280 px and 390 px, has one h1 and names every form control', async () => {
  const { context, page, problems } = await w.signedIn();
  const faults: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    for (const [name, path] of mainPages()) {
      await page.goto(`${w.s.url}/app${path}`);
      await settled(page);
      for (const fault of await layoutFaults(page)) faults.push(`${name} at ${width} px: ${fault}`);
    }
  }
  // The sign-in page, signed out (a context of its own).
  const signedOut = await w.browser.newContext();
  const signIn = await signedOut.newPage();
  for (const width of WIDTHS) {
    await signIn.setViewportSize({ width, height: 800 });
    await signIn.goto(`${w.s.url}/app/sign-in`);
    await signIn.getByLabel('API key').waitFor(WAIT);
    for (const fault of await layoutFaults(signIn)) faults.push(`sign-in at ${width} px: ${fault}`);
  }
  await signedOut.close();
  assert.deepEqual(faults, []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the whole header navigation is reached with Tab, at both widths', async () => {
  const { context, page, problems } = await w.signedIn();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`${w.s.url}/app/advanced-analytics/analyses`);
    await settled(page);
    // Every control of the header, by what a screen reader calls it.
    const wanted: string[] = await page
      .locator('header a, header button, header select, header input')
      .evaluateAll((els) => els.map((e) => `${e.tagName.toLowerCase()}:${(e.getAttribute('aria-label') || e.textContent || '').trim()}`));
    assert.ok(wanted.length >= 8, `the header has its links and tools (${wanted.join(', ')})`);
    const reached = new Set<string>();
    await page.locator('body').focus();
    for (let i = 0; i < wanted.length + 5; i++) {
      await page.keyboard.press('Tab');
      reached.add(
        await page.evaluate(() => {
          const e = document.activeElement as HTMLElement | null;
          return e ? `${e.tagName.toLowerCase()}:${(e.getAttribute('aria-label') || e.textContent || '').trim()}` : '';
        }),
      );
    }
    const missed = wanted.filter((c) => !reached.has(c));
    assert.deepEqual(missed, [], `at ${width} px, Tab reaches every header control`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

test('a wrong API key shows an error and clears the field', async () => {
  const context = await w.browser.newContext();
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${w.s.url}/app/`);
  await page.getByLabel('API key').fill('not-a-real-key-1234567890');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor(WAIT);
  assert.match((await page.getByRole('alert').textContent()) ?? '', /\S/);
  assert.equal(await page.getByLabel('API key').inputValue(), '');
  assert.equal(new URL(page.url()).pathname, '/app/sign-in');
  assert.deepEqual(problems, []);
  await context.close();
});

test('signing out returns to sign-in, and the old session cookie then gets 401', async () => {
  const { context, page, problems } = await w.signedIn();
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'runyard_session');
  assert.ok(session, 'signed in with a session cookie');
  const status = () => page.evaluate(async () => (await fetch('/api/v1/users/me')).status);
  assert.equal(await status(), 200);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((u) => u.pathname === '/app/sign-in', WAIT);
  await page.getByLabel('API key').waitFor(WAIT);
  assert.equal(await status(), 401, 'the browser no longer sends a session');
  // The old cookie, put back, is refused too: the server ended the session, not only the browser.
  await context.addCookies([session]);
  assert.equal(await status(), 401, 'the server refuses the old cookie');
  assert.deepEqual(problems, []);
  await context.close();
});
