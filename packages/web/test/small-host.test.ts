import assert from 'node:assert/strict';
import { after, before, test } from './support/browser-test.js';
import { webWorld, type WebWorld } from './support/web-world.js';

// A server whose local executor is a 2-CPU, 8-GiB host, smaller than the default instance type
// (c5.xlarge: 4 vCPUs, 8 GiB): the forms offer a type that fits first, and mark the larger ones.
const WAIT = { timeout: 60_000 };

let w: WebWorld;
before(async () => {
  w = await webWorld({ RUNYARD_LOCAL_CPUS: '2', RUNYARD_LOCAL_MEMORY_GIB: '8' });
});
after(async () => {
  await w?.close();
});

test('the Launch form and the session form pre-select a type that fits, and say which run capped here', async () => {
  const { context, page, problems } = await w.signedIn();
  const capped = /^c5\.xlarge — 4 CPUs, 8 GiB, .* \(runs here with at most 2 CPUs, 8 GiB\)$/;

  await page.goto(`${w.s.url}/app/advanced-analytics/launch`);
  const launchType = page.getByLabel('Instance type');
  await launchType.locator('option', { hasText: 'c5.xlarge' }).waitFor({ state: 'attached', ...WAIT });
  assert.equal(await launchType.inputValue(), 't3.large', 'the largest type that fits (the cheapest of its size)');
  assert.match((await launchType.locator('option', { hasText: 'c5.xlarge' }).textContent()) ?? '', capped);
  assert.doesNotMatch((await launchType.locator('option', { hasText: 't3.large' }).textContent()) ?? '', /runs here/);

  await page.goto(`${w.s.url}/app/data-science/interactive-analysis`);
  const sessionType = page.getByLabel('Instance type');
  await sessionType.locator('option', { hasText: 'c5.xlarge' }).waitFor({ state: 'attached', ...WAIT });
  assert.equal(await sessionType.inputValue(), 't3.large');
  assert.match(
    (await sessionType.locator('option', { hasText: 'c5.xlarge' }).textContent()) ?? '',
    /\(runs here with at most 2 CPUs, 8 GiB\)$/,
  );

  assert.deepEqual(problems, []);
  await context.close();
});
