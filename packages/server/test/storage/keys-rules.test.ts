// Storage keys and paths (storage/keys.ts) rule by rule: each refused key with the reason it is given, the
// boundaries of what is accepted, and list cursors, which come back from clients and must stay in their folder.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlobKeyError } from '../../src/storage/blob-store.js';
import {
  checkBucket,
  checkContainer,
  checkKey,
  checkListOptions,
  checkPrefix,
  decodeKeyCursor,
  encodeKeyCursor,
  MAX_KEY_BYTES,
  nameOf,
  TMP_SEGMENT_PREFIX,
} from '../../src/storage/keys.js';

/** The message a check refuses a value with ('accepted' when it does not). */
function refusal(check: (v: unknown) => unknown, value: unknown): string {
  try {
    check(value);
  } catch (err) {
    assert.ok(err instanceof BlobKeyError, `${JSON.stringify(value)}: ${String(err)}`);
    return err.message;
  }
  return 'accepted';
}
const key = (value: unknown) => refusal(checkKey, value);

describe('storage keys, rule by rule', () => {
  it('says which rule a literal key breaks', () => {
    assert.equal(key(7), 'key must be a string');
    assert.equal(key(null), 'key must be a string');
    assert.equal(key(''), 'key must not be empty');
    for (const c of ['\u0000', '\u0009', '\u001f', '\u007f', '\u0085', '\u009f']) {
      const message = key(`a${c}b`);
      assert.match(message, /^key "a\\(u00[0-9a-f]{2}|t)b" contains a NUL or control character$/, JSON.stringify(c));
    }
    assert.equal(key('a\u00a0b'), 'accepted');
    assert.equal(key('a\\b'), 'key "a\\\\b" contains a backslash');
    assert.equal(key('/etc/passwd'), 'key "/etc/passwd" is an absolute path');
    assert.equal(key('/'), 'key "/" is an absolute path');
    assert.equal(key('C:/windows'), 'key "C:/windows" starts with a drive letter');
    assert.equal(key('z:'), 'key "z:" starts with a drive letter');
    for (const ok of ['cd:/x', '1:/x', 'a/c:', 'c:x', ':']) assert.equal(key(ok), 'accepted', ok);
    assert.equal(key('a//b'), 'key "a//b" has an empty segment');
    assert.equal(key('a/'), 'key "a/" has an empty segment');
    assert.equal(key('a/./b'), 'key "a/./b" has a "." segment');
    assert.equal(key('x/..'), 'key "x/.." has a ".." segment');
    for (const ok of ['...', '.a', 'a.', '..a', 'a/..b/c']) assert.equal(key(ok), 'accepted', ok);
  });

  it('refuses lone surrogates, and takes the pairs they belong in', () => {
    for (const bad of ['\ud800', 'a\udbffb', '\udc00', 'a\udfff', '\udc00\ud800', '\ud800\ud800\udc00', '\ud800\udc00\udc00']) {
      assert.match(key(bad), / is not valid Unicode$/, JSON.stringify(bad));
    }
    for (const ok of ['\u{1f600}', 'a\u{10ffff}b', '\u{10000}/\u{1f4a9}']) assert.equal(key(ok), 'accepted', JSON.stringify(ok));
  });

  it('counts 1024 UTF-8 bytes at most', () => {
    assert.equal(MAX_KEY_BYTES, 1024);
    assert.equal(key('\u{1f600}'.repeat(256)), 'accepted');
    assert.equal(key(`${'\u{1f600}'.repeat(255)}abcd`), 'accepted');
    assert.equal(key(`${'\u{1f600}'.repeat(255)}abcde`), 'key is longer than 1024 bytes');
  });

  it('looks through up to four rounds of percent-encoding for what a literal key may not hold', () => {
    assert.equal(key('%2e%2e/x'), 'key "%2e%2e/x" has a ".." segment once percent-decoded');
    assert.equal(key('a%2F%2Fb'), 'key "a%2F%2Fb" has an empty segment once percent-decoded');
    assert.equal(key('%2Fetc'), 'key "%2Fetc" is an absolute path once percent-decoded');
    assert.equal(key('a%5Cb'), 'key "a%5Cb" contains a backslash once percent-decoded');
    assert.equal(key('a%09b'), 'key "a%09b" contains a NUL or control character once percent-decoded');
    assert.equal(key('c%3A/x'), 'key "c%3A/x" starts with a drive letter once percent-decoded');
    assert.equal(key('%2525252e%2525252e/x'), 'key "%2525252e%2525252e/x" has a ".." segment once percent-decoded 4 times');
    // Four rounds decoded is what a key may carry; the fifth is refused whatever it hides.
    let four = 'a b';
    for (let i = 0; i < 4; i++) four = encodeURIComponent(four);
    assert.equal(four, 'a%25252520b');
    assert.equal(key(four), 'accepted');
    assert.equal(key(encodeURIComponent(four)), 'key "a%2525252520b" is percent-encoded too many times');
    // A "%" that starts no escape is an ordinary character, and an escape of a harmless character is harmless.
    for (const ok of ['100%', '%', '%%', '%2', '%zz', '%g0', 'a%2Fb', 'a%2e', '%41%42', '%2e%2e%2e']) assert.equal(key(ok), 'accepted', ok);
  });

  it('decodes the ASCII escapes of a key that is not valid UTF-8 as a whole, and only those', () => {
    // %ff is no UTF-8: decodeURIComponent refuses the whole key, yet the %2e%2e beside it still reads "..".
    assert.equal(key('%ff/%2e%2e/x'), 'key "%ff/%2e%2e/x" has a ".." segment once percent-decoded');
    assert.equal(key('%ff%2F%2Fx'), 'key "%ff%2F%2Fx" has an empty segment once percent-decoded');
    assert.equal(key('%ff%7F'), 'key "%ff%7F" contains a NUL or control character once percent-decoded');
    assert.equal(key('%ff/%252e%252e/x'), 'key "%ff/%252e%252e/x" has a ".." segment once percent-decoded 2 times');
    // Nothing ASCII to decode: the key is what it says.
    for (const ok of ['%ff', '%e9t%e9', '%ff%80', '%c0%ae%c0%ae/x', '%ff/%2ex']) assert.equal(key(ok), 'accepted', ok);
  });

  it(`reserves names that start with ${TMP_SEGMENT_PREFIX} in any segment`, () => {
    assert.equal(TMP_SEGMENT_PREFIX, '.runyard-tmp-');
    assert.equal(key('.runyard-tmp-1'), 'key ".runyard-tmp-1" uses the reserved name .runyard-tmp-*');
    assert.equal(key('a/.runyard-tmp-/b'), 'key "a/.runyard-tmp-/b" uses the reserved name .runyard-tmp-*');
    for (const ok of ['a.runyard-tmp-1', '.runyard-tmp', 'x/.runyard-tmpx', 'runyard-tmp-1']) assert.equal(key(ok), 'accepted', ok);
    assert.match(refusal(checkPrefix, 'a/.runyard-tmp-9/'), /^prefix "a\/.runyard-tmp-9\/" uses the reserved name/);
  });

  it('normalises prefixes to folders by the same rules, naming them prefixes', () => {
    assert.equal(checkPrefix(''), '');
    assert.equal(checkPrefix(undefined), '');
    assert.equal(checkPrefix('a/b'), 'a/b/');
    assert.equal(checkPrefix('a/b/'), 'a/b/');
    assert.equal(refusal(checkPrefix, null), 'prefix must be a string');
    assert.equal(refusal(checkPrefix, 'a//'), 'prefix "a//" has an empty segment');
    assert.equal(refusal(checkPrefix, '%2e%2e/'), 'prefix "%2e%2e/" has a ".." segment once percent-decoded');
    assert.equal(refusal(checkPrefix, 'a%2F/'), 'prefix "a%2F/" has an empty segment once percent-decoded');
    assert.equal(refusal(checkPrefix, '/'), 'prefix "/" is an absolute path');
  });
});

describe('bucket and container names', () => {
  const bucket = (v: unknown) => refusal(checkBucket, v);
  it('says which S3 rule a bucket name breaks', () => {
    assert.equal(bucket(3), 'bucket name must be a string');
    for (const bad of ['ab', 'x'.repeat(64), '']) assert.match(bucket(bad), /must be 3 to 63 characters long$/, bad);
    for (const ok of ['abc', 'x'.repeat(63), 'a-b', 'a.b', '0a9']) assert.equal(bucket(ok), 'accepted', ok);
    for (const bad of ['Abc', 'a_b', '-ab', 'ab-', '.ab', 'ab.', 'a b']) {
      assert.match(
        bucket(bad),
        /may hold only lowercase letters, digits, dots and hyphens, and must start and end with a letter or digit$/,
        bad,
      );
    }
    for (const bad of ['a..b', 'a.-b', 'a-.b'])
      assert.match(bucket(bad), /must not have two dots, or a dot and a hyphen, next to each other$/, bad);
    assert.equal(bucket('a--b'), 'accepted');
    for (const ip of ['10.0.0.1', '192.168.100.200']) assert.equal(bucket(ip), `bucket name "${ip}" must not look like an IP address`);
    for (const ok of ['10.0.0.1.5', '10.0.0', 'a10.0.0.1', '10.0.0.1a']) assert.equal(bucket(ok), 'accepted', ok);
  });

  it('a container name follows Azure: no dots, no two hyphens together', () => {
    assert.equal(checkContainer('a-b-c'), 'a-b-c');
    assert.equal(refusal(checkContainer, 'a.b'), 'container name "a.b" may hold only lowercase letters, digits and single hyphens');
    assert.equal(refusal(checkContainer, 'a--b'), 'container name "a--b" may hold only lowercase letters, digits and single hyphens');
    assert.match(refusal(checkContainer, 'A-b'), /^bucket name "A-b" may hold only/);
    assert.equal(refusal(checkContainer, 9), 'bucket name must be a string');
  });
});

describe('list options and cursors', () => {
  it('takes a positive integer limit and a non-empty cursor', () => {
    assert.deepEqual(checkListOptions({}), { delimiter: false, limit: undefined, cursor: undefined });
    assert.deepEqual(checkListOptions({ limit: 1, delimiter: 1 as unknown as boolean }), { delimiter: true, limit: 1, cursor: undefined });
    assert.equal(
      refusal(() => checkListOptions({ limit: 0 }), null),
      'list limit must be a positive integer',
    );
    assert.equal(
      refusal(() => checkListOptions({ limit: Infinity }), null),
      'list limit must be a positive integer',
    );
    assert.equal(
      refusal(() => checkListOptions({ cursor: '' }), null),
      'list cursor must be a non-empty string',
    );
    assert.equal(
      refusal(() => checkListOptions({ cursor: 5 as unknown as string }), null),
      'list cursor must be a non-empty string',
    );
  });

  it('a cursor gives back the key it was made of, under the folder listed, and nothing else', () => {
    for (const [k, folder] of [
      ['a/b.txt', ''],
      ['a/b.txt', 'a/'],
      ['a/b/', 'a/'],
      ['ü/日本', 'ü/'],
    ] as const) {
      const cursor = encodeKeyCursor(k);
      assert.match(cursor, /^[A-Za-z0-9_-]+$/);
      assert.equal(decodeKeyCursor(cursor, folder), k);
    }
    assert.equal(encodeKeyCursor('a/b.txt'), Buffer.from('a/b.txt').toString('base64url'));
    const invalid = (cursor: string, folder: string) => refusal(() => decodeKeyCursor(cursor, folder), null);
    // Another folder's key, the folder itself, a key that is not a key, a text that is not one of our cursors.
    assert.equal(invalid(encodeKeyCursor('b/x'), 'a/'), 'invalid list cursor');
    assert.equal(invalid(encodeKeyCursor('a/'), 'a/'), 'invalid list cursor');
    for (const bad of ['a/../x', 'a/./', 'a//', '/a', 'a/%2e%2e/', 'a/%2e%2e'])
      assert.equal(invalid(encodeKeyCursor(bad), ''), 'invalid list cursor', bad);
    assert.equal(invalid(`${encodeKeyCursor('a/b.txt')}=`, ''), 'invalid list cursor');
    assert.equal(invalid('YS9iLnR4dA==', ''), 'invalid list cursor');
    assert.equal(invalid('!!!!', ''), 'invalid list cursor');
  });

  it('names a key or folder by its last segment', () => {
    assert.equal(nameOf('a/b/'), 'b');
    assert.equal(nameOf('a/b'), 'b');
    assert.equal(nameOf('b/'), 'b');
    assert.equal(nameOf('b'), 'b');
  });
});
