import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { statusText } from '../src/http-status.js';
import { sleep } from '../src/sleep.js';

// What the browser-safe core keeps its own copy of, so as not to load node: each copy behaves as its original.
describe('the core’s copies of node and contract values', () => {
  it('names every error status as node does', () => {
    for (const [code, text] of Object.entries(http.STATUS_CODES)) {
      if (Number(code) >= 400) assert.equal(statusText(Number(code)), text, code);
    }
    assert.equal(statusText(499), 'Unknown error');
  });

  it('sleeps, and stops sleeping with the signal’s reason', async () => {
    const started = performance.now();
    await sleep(30);
    assert.ok(performance.now() - started >= 25);
    const controller = new AbortController();
    const sleeping = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await assert.rejects(sleeping, (e: unknown) => (e as Error).name === 'AbortError');
    await assert.rejects(sleep(10, AbortSignal.abort(new Error('gone'))), /gone/);
  });
});
