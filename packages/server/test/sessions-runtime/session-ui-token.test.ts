import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SessionUiTokens } from '../../src/http/session-ui-token.js';

const SESSION = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const USER = '111111111111111111111111';

describe('session UI tokens', () => {
  const keyFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-key-')), 'secret.key');

  it("are signed with a key derived from the server's key file, which every process derives alike", () => {
    const a = SessionUiTokens.fromKeyFile(keyFile);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    const token = a.issue('launch', SESSION, USER, 60);
    const claims = SessionUiTokens.fromKeyFile(keyFile).verify(token, 'launch', SESSION);
    assert.ok(claims);
    assert.equal(claims.userId, USER);
    assert.equal(claims.sessionId, SESSION);
    const otherKey = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-key-')), 'secret.key');
    assert.equal(SessionUiTokens.fromKeyFile(otherKey).verify(token, 'launch', SESSION), null);
  });

  it('hold for their session, their kind and their lifetime only', () => {
    let now = 1_000_000;
    const tokens = SessionUiTokens.fromKeyFile(keyFile, () => now);
    const token = tokens.issue('launch', SESSION, USER, 60);
    assert.ok(tokens.verify(token, 'launch', SESSION));
    assert.equal(tokens.verify(token, 'cookie', SESSION), null);
    assert.equal(tokens.verify(token, 'launch', 'bbbbbbbbbbbbbbbbbbbbbbbb'), null);
    now += 59_999;
    assert.ok(tokens.verify(token, 'launch', SESSION));
    now += 1;
    assert.equal(tokens.verify(token, 'launch', SESSION), null);
    // Two tokens for the same person and session differ (each launch token is taken once).
    assert.notEqual(tokens.issue('launch', SESSION, USER, 60), tokens.issue('launch', SESSION, USER, 60));
  });

  it('refuse any change to their text', () => {
    const tokens = SessionUiTokens.fromKeyFile(keyFile);
    const token = tokens.issue('cookie', SESSION, USER, 60);
    const [claims, mac] = token.split('.') as [string, string];
    const forged = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
    forged.userId = '222222222222222222222222';
    for (const bad of [
      `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${mac}`,
      `${claims}.${mac.slice(0, -2)}`,
      // The same signature bytes in another text (the spare bits of the last character).
      `${claims}.${mac.slice(0, -1)}${String.fromCharCode(mac.charCodeAt(mac.length - 1) ^ 1)}`,
      `${claims}.`,
      claims,
      '',
      `${claims}.${mac}${'A'.repeat(2000)}`,
    ])
      assert.equal(tokens.verify(bad, 'cookie', SESSION), null, bad.slice(0, 40));
  });
});
