import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VersionedCache } from '../../src/store/versioned-cache.js';

describe('VersionedCache', () => {
  it('gives a value back only at the version it was computed at', () => {
    const cache = new VersionedCache<string>({ maxEntries: 10 });
    cache.set('a', 'one', 7);
    assert.equal(cache.get('a', 7), 'one');
    assert.equal(cache.get('a', 7), 'one');
    assert.equal(cache.get('a', 8), undefined, 'a commit since: stale');
    assert.equal(cache.get('a', 7), undefined, 'a stale entry is dropped, not kept for an older version');
    assert.equal(cache.size, 0);
  });

  it('drops the least recently used entries past maxEntries', () => {
    const cache = new VersionedCache<number>({ maxEntries: 2 });
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    assert.equal(cache.get('a', 1), 1); // a is now the most recently used
    cache.set('c', 3, 1);
    assert.deepEqual(
      ['a', 'b', 'c'].map((k) => cache.get(k, 1)),
      [1, undefined, 3],
    );
  });

  it('keeps the total weight under maxWeight, and never keeps a value heavier than it', () => {
    const cache = new VersionedCache<string>({ maxEntries: 100, maxWeight: 10, weigh: (s) => s.length });
    cache.set('a', 'xxxx', 1);
    cache.set('b', 'yyyy', 1);
    cache.set('c', 'zzzz', 1); // 12 > 10: a goes
    assert.deepEqual(
      ['a', 'b', 'c'].map((k) => cache.get(k, 1)),
      [undefined, 'yyyy', 'zzzz'],
    );
    cache.set('big', 'x'.repeat(11), 1);
    assert.equal(cache.get('big', 1), undefined);
    assert.equal(cache.get('b', 1), 'yyyy', 'a value too heavy to keep evicts nothing');
    cache.set('b', 'yy', 1); // replacing an entry replaces its weight
    cache.set('d', 'dddd', 1); // 2 + 4 + 4 = 10: all stay
    assert.deepEqual(
      ['b', 'c', 'd'].map((k) => cache.get(k, 1)),
      ['yy', 'zzzz', 'dddd'],
    );
  });
});
