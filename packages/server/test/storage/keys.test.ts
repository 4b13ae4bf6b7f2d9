// Key, prefix and bucket rules shared by every blob store (T9).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlobKeyError } from '../../src/storage/blob-store.js';
import {
  checkBucket,
  checkContainer,
  checkKey,
  checkListOptions,
  checkPrefix,
  compareKeys,
  MAX_KEY_BYTES,
  nameOf,
} from '../../src/storage/keys.js';
import { BAD_KEYS } from './conformance.js';

describe('blob keys', () => {
  it('accepts ordinary keys, including odd but harmless characters', () => {
    for (const key of [
      'a',
      'a/b/c.txt',
      'ws/jobs/0123/logs/stdout.txt',
      '.hidden',
      'a/.b/..c/...',
      'a..b',
      'file.',
      '100%.txt',
      '100%',
      'a%20b',
      'a%2Fb',
      'report%2e.txt',
      '%e9t%e9',
      'ümlaut file.txt',
      '日本語/ファイル',
      'plus+sign & more=1?#',
      'x'.repeat(MAX_KEY_BYTES),
      'é'.repeat(MAX_KEY_BYTES / 2),
    ]) {
      assert.equal(checkKey(key), key, key.slice(0, 40));
    }
  });

  it('refuses traversal, literal and percent-encoded (once, twice, more), and other unsafe keys', () => {
    for (const key of BAD_KEYS) assert.throws(() => checkKey(key), BlobKeyError, JSON.stringify(key.slice(0, 40)));
    for (const key of [
      '%2e%2e',
      '.%2e/x',
      '%2e./x',
      'a/%2e%2e',
      'a/%2e/b',
      '%252E%252E%252F',
      '%2525252e%2525252e/x',
      'a%2f%2fb',
      '%2fabs',
      '%5c',
      '%0a',
      '%7f',
      '%c2%85',
      'a%25%30%30b',
      'a\u0085b',
      'a\ud800b',
      '\udc00',
      'a/\tb',
      'a\rb',
      '/',
      '//',
      'a/b/',
      'c:',
      'Z:/x',
    ]) {
      assert.throws(() => checkKey(key), BlobKeyError, JSON.stringify(key));
    }
    assert.throws(() => checkKey(undefined), BlobKeyError);
    assert.throws(() => checkKey(42), BlobKeyError);
  });

  it('refuses keys whose encoding is deeper than it looks through', () => {
    let key = '..';
    for (let i = 0; i < 6; i++) key = encodeURIComponent(key).replace(/\./g, '%2e');
    assert.throws(() => checkKey(`${key}/x`), BlobKeyError);
    let harmless = 'a b';
    for (let i = 0; i < 6; i++) harmless = encodeURIComponent(harmless);
    assert.throws(() => checkKey(harmless), /encoded too many times/);
  });

  it('counts the limit in UTF-8 bytes', () => {
    assert.throws(() => checkKey('x'.repeat(MAX_KEY_BYTES + 1)), /longer than 1024 bytes/);
    assert.throws(() => checkKey('é'.repeat(MAX_KEY_BYTES / 2 + 1)), /longer than 1024 bytes/);
  });

  it('says what is wrong without echoing control characters', () => {
    assert.throws(() => checkKey('a/../b'), /key "a\/..\/b" has a ".." segment/);
    assert.throws(() => checkKey('%252e%252e/b'), /once percent-decoded 2 times/);
    assert.throws(
      () => checkKey('a\u0000b'),
      (e: Error) => /NUL or control/.test(e.message) && !e.message.includes('\u0000'),
    );
  });

  it('normalises prefixes to folders', () => {
    assert.equal(checkPrefix(''), '');
    assert.equal(checkPrefix(undefined), '');
    assert.equal(checkPrefix('a'), 'a/');
    assert.equal(checkPrefix('a/b/'), 'a/b/');
    for (const bad of ['/', '/a', 'a//', 'a//b/', '../', '..', '%2e%2e/', 'a\\', 'a/./']) {
      assert.throws(() => checkPrefix(bad), BlobKeyError, JSON.stringify(bad));
    }
  });

  it('checks bucket names by S3 rules and container names by Azure rules', () => {
    for (const ok of ['abc', 'runyard-0123456789abcdef01234567', 'a.b-c', 'x'.repeat(63), '1bucket']) assert.equal(checkBucket(ok), ok);
    for (const bad of [
      '',
      'ab',
      'x'.repeat(64),
      'Abc',
      'a_b',
      'a b',
      '-abc',
      'abc-',
      '.abc',
      'abc.',
      'a..b',
      'a.-b',
      'a-.b',
      '10.0.0.1',
      '../ab',
      'a/b',
      'a\\b',
      'ab\u0000',
    ]) {
      assert.throws(() => checkBucket(bad), BlobKeyError, JSON.stringify(bad));
    }
    assert.throws(() => checkBucket(7), BlobKeyError);
    assert.equal(checkContainer('runyard-0123456789abcdef01234567'), 'runyard-0123456789abcdef01234567');
    for (const bad of ['a.b', 'a--b', 'ab']) assert.throws(() => checkContainer(bad), BlobKeyError, bad);
  });

  it('checks list options', () => {
    assert.deepEqual(checkListOptions(undefined), { delimiter: false, limit: undefined, cursor: undefined });
    assert.deepEqual(checkListOptions({ delimiter: true, limit: 5, cursor: 'c' }), { delimiter: true, limit: 5, cursor: 'c' });
    for (const bad of [{ limit: 0 }, { limit: -1 }, { limit: 2.5 }, { limit: NaN }, { cursor: '' }]) {
      assert.throws(() => checkListOptions(bad), BlobKeyError, JSON.stringify(bad));
    }
  });

  it('names and orders keys as S3 does (bytewise UTF-8)', () => {
    assert.equal(nameOf('a/b/c.txt'), 'c.txt');
    assert.equal(nameOf('a/b/'), 'b');
    assert.equal(nameOf('top'), 'top');
    const keys = ['ws10/', 'ws1/', 'ws1.txt', 'ws1-x/', '\uffff', '\u{1f600}', 'Z', 'a'];
    assert.deepEqual([...keys].sort(compareKeys), ['Z', 'a', 'ws1-x/', 'ws1.txt', 'ws1/', 'ws10/', '\uffff', '\u{1f600}']);
  });
});
