import { after as nodeAfter, before as nodeBefore, test as nodeTest } from 'node:test';
import { NO_BROWSER } from './web-world.js';

// node:test's test, before and after for the browser tests: where Chromium is missing, every test
// is reported skipped with the reason (as the README promises) and the hooks, which start it, do not run.
type Body = () => Promise<void>;

export function test(name: string, body: Body): void {
  if (NO_BROWSER) void nodeTest(name, { skip: NO_BROWSER }, body);
  else void nodeTest(name, body);
}

export function before(body: Body): void {
  if (!NO_BROWSER) nodeBefore(body);
}

export function after(body: Body): void {
  if (!NO_BROWSER) nodeAfter(body);
}
