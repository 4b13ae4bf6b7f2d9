import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { atMostEveryMs } from '../../src/background/at-most-every.js';

describe('atMostEveryMs', () => {
  // On a clock and timers of the test's own: how busy the machine is changes nothing.
  it('runs the first call at once, and a burst of calls after it once more, at the end of the interval', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let clock = 1000;
    let calls = 0;
    const wake = atMostEveryMs(
      5,
      () => calls++,
      () => clock,
    );
    wake();
    assert.equal(calls, 1, 'the first call is not delayed');
    clock += 1;
    for (let i = 0; i < 100; i++) wake();
    assert.equal(calls, 1, 'the burst waits for the interval');
    clock += 3;
    t.mock.timers.tick(3);
    assert.equal(calls, 1, 'not before the end of the interval');
    clock += 1;
    t.mock.timers.tick(1);
    assert.equal(calls, 2, 'the burst ran once, at the end of the interval');
    clock += 10;
    wake();
    assert.equal(calls, 3, 'after a quiet spell, at once again');
  });
});
