import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  NotFoundError,
  RunyardClient,
  RunyardValueError,
  TransportError,
  encodeQuery,
} from '@runyard/client';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { selfSignedCertificate } from '../../../test/support/tls.js';

describe('transport', () => {
  let s: TestServer;
  let proxy: RecordingProxy;
  before(async () => {
    s = await startTestServer({ listen: true });
    proxy = await startRecordingProxy(s.url, '/prefix');
  });
  after(async () => {
    await proxy.close();
    await s.close();
  });

  it('sends the apikey header and joins a base URL with a path prefix and a trailing slash', async () => {
    const client = new RunyardClient({ platformUrl: `${proxy.url}/prefix/`, apikey: s.admin.apikey });
    const me = await client.getUserInfo();
    client.close();
    assert.equal(me.username, 'admin');
    const last = proxy.requests.at(-1)!;
    assert.equal(last.url, '/prefix/api/v1/users/me');
    assert.equal(last.headers.apikey, s.admin.apikey);
  });

  it('turns statuses >= 400 into typed errors carrying the status and the server message', async () => {
    const bad = new RunyardClient({ platformUrl: s.url, apikey: 'ry_not_a_key' });
    await assert.rejects(
      bad.getUserInfo(),
      (e: unknown) => e instanceof AuthenticationError && e.status === 401 && /not valid/.test(e.message),
    );
    bad.close();
    const client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    await client.createProject(s.admin.workspaceId, 'dup');
    await assert.rejects(
      client.createProject(s.admin.workspaceId, 'dup'),
      (e: unknown) =>
        e instanceof ConflictError &&
        e.status === 409 &&
        e.message.startsWith('Server returned status 409. Message: A project named "dup"'),
    );
    await assert.rejects(
      client.getProjectList('0123456789abcdef01234567'),
      (e: unknown) => e instanceof NotFoundError && e.code === 'WORKSPACE_NOT_FOUND',
    );
    await assert.rejects(
      client.request('GET', '/api/v2/projects', { query: { teamId: s.admin.workspaceId, pageSize: 5000 } }),
      (e: unknown) => e instanceof ApiError && e.status === 400 && /pageSize/.test(e.message),
    );
    client.close();
  });

  it('reports an unreachable server as a TransportError', async () => {
    const client = new RunyardClient({ platformUrl: 'http://127.0.0.1:1', apikey: 'k' });
    await assert.rejects(client.getUserInfo(), TransportError);
  });

  it('refuses a URL that is not http(s) and a missing key before any request', () => {
    assert.throws(() => new RunyardClient({ platformUrl: 'ftp://x', apikey: 'k' }), RunyardValueError);
    assert.throws(() => new RunyardClient({ platformUrl: 'not a url', apikey: 'k' }), RunyardValueError);
    assert.throws(() => new RunyardClient({ platformUrl: 'http://x', apikey: '' }), RunyardValueError);
  });

  it('uses the API key as engine token when none is given, and never shows the key when printed', () => {
    const a = new RunyardClient({ platformUrl: 'http://x', apikey: 'secret-key-1' });
    const b = new RunyardClient({ platformUrl: 'http://x', apikey: 'secret-key-1', engineToken: 'tok' });
    assert.equal(a.engineToken, 'secret-key-1');
    assert.equal(b.engineToken, 'tok');
    assert.ok(!JSON.stringify(a).includes('secret-key-1'));
  });

  it('encodes arrays as repeated keys and leaves out empty values', () => {
    assert.equal(
      encodeQuery({ teamId: 'w', status: ['ready', 'deleted'], x: undefined, y: null }),
      '?teamId=w&status=ready&status=deleted',
    );
  });
});

describe('transport over TLS', () => {
  let s: TestServer;
  let tls: { certFile: string; keyFile: string };
  before(async () => {
    tls = selfSignedCertificate();
    s = await startTestServer({ listen: true, env: { RUNYARD_TLS_CERT_FILE: tls.certFile, RUNYARD_TLS_KEY_FILE: tls.keyFile } });
  });
  after(() => s.close());

  it('verifies certificates by default, skips with verify=false, and trusts a CA file given as verify', async () => {
    assert.match(s.url, /^https:/);
    const strict = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    await assert.rejects(strict.getUserInfo(), TransportError);
    strict.close();
    const insecure = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey, verify: false });
    assert.equal((await insecure.getUserInfo()).username, 'admin');
    insecure.close();
    const withCa = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey, verify: tls.certFile });
    assert.equal((await withCa.getUserInfo()).username, 'admin');
    withCa.close();
  });

  it('refuses a CA file that does not exist', () => {
    assert.throws(() => new RunyardClient({ platformUrl: s.url, apikey: 'k', verify: '/nonexistent/ca.pem' }), RunyardValueError);
  });
});
