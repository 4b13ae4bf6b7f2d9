import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { atMostEveryMs } from '../../src/background/at-most-every.js';

describe('atMostEveryMs', () => {
  it('runs the first call at once, and a burst of calls after it once more, at the end of the interval', async () => {
    let calls = 0;
    const wake = atMostEveryMs(5, () => calls++);
    wake();
    assert.equal(calls, 1, 'the first call is not delayed');
    for (let i = 0; i < 100; i++) wake();
    assert.equal(calls, 1, 'the burst waits for the interval');
    await sleep(50);
    assert.equal(calls, 2, 'the burst ran once');
    await sleep(10);
    wake();
    assert.equal(calls, 3, 'after a quiet spell, at once again');
  });
});
