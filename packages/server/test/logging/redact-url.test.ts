import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCredentialName, redactUrl } from '../../src/http/redact-url.js';

const ID = '0123456789abcdef01234567';
const SECRET = 'Abc-def_ghiJKLmnoPQRstuVWXyz0123456789abcde';
const KEY = `ry_${ID}_${SECRET}`;

describe('redactUrl', () => {
  it('keeps a URL without credentials as it is', () => {
    for (const url of [
      '/',
      '/api/v2/projects?teamId=abc&pageSize=10&page=1',
      '/api/v1/jobs?teamId=x&status=running&q=factory_ry_x',
      '/a?flag&b=',
    ]) {
      assert.equal(redactUrl(url), url);
    }
  });

  it('drops the secret of a Runyard key anywhere in the path or the query, keeping its id', () => {
    assert.equal(redactUrl(`/api/v1/users/${KEY}/me`), `/api/v1/users/ry_${ID}_[redacted]/me`);
    assert.equal(redactUrl(`/api/v2/projects?teamId=${KEY}&page=1`), `/api/v2/projects?teamId=ry_${ID}_[redacted]&page=1`);
    assert.equal(redactUrl(`/x?q=%20${KEY}`), `/x?q=%20ry_${ID}_[redacted]`);
    // Percent-encoded, in part or in whole, it is still a key.
    assert.equal(redactUrl(`/api/v1/users/ry%5F${ID}%5F${SECRET}/me`), `/api/v1/users/ry_${ID}_[redacted]/me`);
    const encodedWhole = [...KEY].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    assert.equal(redactUrl(`/x?q=${encodedWhole}&page=1`), `/x?q=ry_${ID}_[redacted]&page=1`);
    assert.doesNotMatch(redactUrl(`/x/${encodeURIComponent(KEY)}`), new RegExp(SECRET));
    // A key cut short, or with its id in capitals, is still a key.
    assert.equal(redactUrl(`/x/ry_${ID.toUpperCase()}_${SECRET.slice(0, 10)}`), `/x/ry_${ID.toUpperCase()}_[redacted]`);
  });

  it('drops the value of every query key named like a credential, whatever it holds', () => {
    const names = ['apikey', 'apiKey', 'api_key', 'API-KEY', 'token', 'access_token', 'refresh_token', 'key', 'secret', 'client_secret'];
    names.push(
      'password',
      'passwd',
      'authorization',
      'Authorization',
      'X-Amz-Signature',
      'X-Amz-Credential',
      'X-Amz-Security-Token',
      'sig',
    );
    names.push('api%5Fkey');
    for (const name of names) {
      assert.equal(redactUrl(`/api/v1/users/me?${name}=hunter2&page=1`), `/api/v1/users/me?${name}=[redacted]&page=1`, name);
    }
  });

  it('tells credential names from ordinary ones', () => {
    assert.equal(isCredentialName('apikey'), true);
    for (const name of ['teamId', 'pageSize', 'q', 'search', 'status', 'workspaceId', 'userId', 'id'])
      assert.equal(isCredentialName(name), false, name);
  });

  it('never throws on text that is not valid percent-encoding', () => {
    assert.equal(redactUrl('/x?%E0%A4%A=1&token=%ZZ'), '/x?%E0%A4%A=1&token=[redacted]');
  });
});
