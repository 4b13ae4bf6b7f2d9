import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { quoted } from '../src/errors/quoted.js';
import { assertError, call } from './wire.js';

// Issue 8 §4: an error message never repeats request input raw: it is quoted, its control
// characters escaped, and it is cut short (a key pasted in the wrong place stays out of replies).
const ESCAPES = 'evil\n\u001b[31mred\r\u202eflip';
const LONG = 'ry_' + 'k'.repeat(2_000);

/** The message is one printable line of reasonable length that does not carry the long secret. */
function assertSafe(message: string, what: string): void {
  assert.doesNotMatch(message, /[\u0000-\u001f\u007f-\u009f\u202e]/, `${what}: raw control character in ${JSON.stringify(message)}`);
  assert.ok(message.length < 300, `${what}: ${message.length} characters`);
  assert.ok(!message.includes('k'.repeat(100)), `${what}: the long value is repeated`);
}

describe('quoted(): a request value fit for an error message', () => {
  it('JSON-quotes, escapes control and invisible characters, and cuts at 60 characters', () => {
    assert.equal(quoted(ESCAPES), '"evil\\n\\u001b[31mred\\r\\u202eflip"');
    assert.equal(quoted('x'.repeat(61)), `"${'x'.repeat(60)}…"`);
    assert.equal(quoted('x'.repeat(60)), `"${'x'.repeat(60)}"`);
    // The cut counts code points, so it never leaves half of a surrogate pair.
    assert.equal(quoted('🧬'.repeat(61)), `"${'🧬'.repeat(60)}…"`);
    assert.equal(quoted('a\u0085\u2028b'), '"a\\u0085\\u2028b"');
  });
});

describe('error messages built from request input', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it('quote and cut an unknown workspace id (teamId)', async () => {
    for (const teamId of [ESCAPES, LONG]) {
      const message = assertError(
        await call(s, 'GET', `/api/v2/projects?teamId=${encodeURIComponent(teamId)}`),
        404,
        'WORKSPACE_NOT_FOUND',
      );
      assertSafe(message, 'teamId');
      assert.ok(message.startsWith(`Workspace ${quoted(teamId)} not found`), message);
    }
  });

  it('quote a name that is taken', async () => {
    const url = `/api/v1/projects?teamId=${s.admin.workspaceId}`;
    for (const name of [ESCAPES, 'p' + 'k'.repeat(199)]) {
      assert.equal((await call(s, 'POST', url, { name })).statusCode, 200);
      const message = assertError(await call(s, 'POST', url, { name }), 409, 'PROJECT_NAME_TAKEN');
      assertSafe(message, 'project name');
      assert.match(message, /^A project named ".*" already exists/);
    }
  });

  it('quote an unknown key, in the body and in the query string', async () => {
    const body = assertError(
      await call(s, 'POST', '/api/runyard/admin/users', { username: 'u', email: 'u@example.org', [ESCAPES]: 1, [LONG]: 2 }),
      400,
      'VALIDATION_FAILED',
    );
    assertSafe(body, 'body key');
    assert.ok(body.includes(`unknown key ${quoted(ESCAPES)}`), body);
    const query = assertError(
      await call(s, 'GET', `/api/runyard/admin/apikeys?${encodeURIComponent(ESCAPES)}=1&${LONG}=2`),
      400,
      'VALIDATION_FAILED',
    );
    assertSafe(query, 'query key');
  });

  it('do not repeat the body of malformed JSON, the URL of a bad path, or a long unknown path', async () => {
    const json = assertError(await call(s, 'POST', '/api/runyard/admin/users', `{"apikey": ${LONG}\u001b}`), 400, 'INVALID_JSON');
    assertSafe(json, 'malformed JSON');
    assert.ok(!json.includes('ry_k'), json);
    const bad = assertError(await call(s, 'GET', `/api/v2/projects%ED%A0%80?apikey=${LONG}`), 400, 'BAD_REQUEST');
    assertSafe(bad, 'bad path');
    assert.ok(!bad.includes('ry_'), bad);
    const unknown = assertError(await call(s, 'GET', `/${LONG}`), 404, 'ROUTE_NOT_FOUND');
    assertSafe(unknown, 'unknown path');
  });
});
