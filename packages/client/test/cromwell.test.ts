import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, AuthenticationError, ConflictError, ForbiddenError, RunyardClient, RunyardValueError } from '@runyard/client';
import type { EngineAction } from '@runyard/client';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

// get_cromwell_status and cromwell_switch with the Cromwell header (wire-api §1.2, pinned by
// cloudos-cli's test_create_cromwell_header): an apikey alone gives {Accept, apikey}; an engine
// token, alone or with an apikey, gives {Accept, Authorization: Bearer} and no apikey.

describe('SDK: the workflow-engine server', { timeout: 120_000 }, () => {
  let s: TestServer;
  let proxy: RecordingProxy;
  let ws: string;
  const clients: RunyardClient[] = [];
  const client = (options: { engineToken?: string | null; apikey?: string } = {}) => {
    const c = new RunyardClient({ platformUrl: proxy.url, apikey: options.apikey ?? s.admin.apikey, engineToken: options.engineToken });
    clients.push(c);
    return c;
  };
  before(async () => {
    s = await startTestServer({ listen: true });
    proxy = await startRecordingProxy(s.url);
    ws = s.admin.workspaceId;
  });
  after(async () => {
    for (const c of clients) c.close();
    await proxy.close();
    await s.close();
  });

  /** The auth headers of the last request, and its method and URL. */
  const last = () => {
    const r = proxy.requests.at(-1)!;
    return {
      line: `${r.method} ${r.url}`,
      accept: r.headers.accept,
      apikey: r.headers.apikey,
      authorization: r.headers.authorization,
      contentType: r.headers['content-type'],
    };
  };

  it('with the API key alone: Accept and apikey, no Authorization', async () => {
    const status = await client().getCromwellStatus(ws);
    assert.equal(status.status, 'Stopped');
    assert.match(status._id, /^[0-9a-f]{24}$/);
    assert.deepEqual(last(), {
      line: `GET /api/v1/cromwell?teamId=${ws}`,
      accept: 'application/json',
      apikey: s.admin.apikey,
      authorization: undefined,
      contentType: undefined,
    });
  });

  it('with an engine token (alone or with the key): Accept and Authorization: Bearer, no apikey; the switch sends no body', async () => {
    const token = (await client().showEngineToken(ws)).token;
    const c = client({ engineToken: token });
    assert.equal(c.engineToken, token);
    assert.equal((await c.cromwellSwitch(ws, 'restart')).status, 'Running');
    assert.deepEqual(last(), {
      line: `PUT /api/v1/cromwell/restart?teamId=${ws}`,
      accept: 'application/json',
      apikey: undefined,
      authorization: `Bearer ${token}`,
      contentType: undefined,
    });
    assert.equal((await c.getCromwellStatus(ws)).status, 'Running');
    assert.equal(last().authorization, `Bearer ${token}`);
    assert.equal(last().apikey, undefined);
    // The token alone authenticates: the client's API key is not even valid.
    const tokenOnly = client({ engineToken: token, apikey: 'ry_not_a_key' });
    assert.equal((await tokenOnly.cromwellSwitch(ws, 'stop')).status, 'Stopped');
    assert.deepEqual([last().line, last().apikey], [`PUT /api/v1/cromwell/stop?teamId=${ws}`, undefined]);
  });

  it('an empty engine token is none: the apikey is sent', async () => {
    const c = client({ engineToken: '' });
    await c.getCromwellStatus(ws);
    assert.equal(last().apikey, s.admin.apikey);
    assert.equal(last().authorization, undefined);
    assert.equal(c.engineToken, s.admin.apikey);
  });

  it('errors: a wrong token is an AuthenticationError; another workspace a 404; an unknown action a RunyardValueError, sent nowhere', async () => {
    const wrong = client({ engineToken: `ryc_${'x'.repeat(43)}` });
    await assert.rejects(wrong.getCromwellStatus(ws), (e: unknown) => e instanceof AuthenticationError && e.status === 401);
    await assert.rejects(client().getCromwellStatus('0123456789abcdef01234567'), (e: unknown) => e instanceof ApiError && e.status === 404);
    const n = proxy.requests.length;
    await assert.rejects(client().cromwellSwitch(ws, 'start' as EngineAction), RunyardValueError);
    assert.equal(proxy.requests.length, n);
  });

  it('waitForCromwell returns once the server runs; rotate replaces the token', async () => {
    const c = client();
    await c.cromwellSwitch(ws, 'restart');
    const seen: string[] = [];
    const running = await c.waitForCromwell(ws, { waitTime: 5, interval: 0.05, onStatus: (x) => seen.push(x.status) });
    assert.equal(running.status, 'Running');
    assert.deepEqual(seen, ['Running']);
    const before = (await c.showEngineToken(ws)).token;
    const rotated = await c.rotateEngineToken(ws);
    assert.notEqual(rotated.token, before);
    assert.equal(rotated.workspace, ws);
    await assert.rejects(client({ engineToken: before }).getCromwellStatus(ws), AuthenticationError);
  });

  it('admin.setWorkspaceEngine: 409 while the server runs, the driver once it is stopped', async () => {
    const c = client();
    await assert.rejects(
      c.admin.setWorkspaceEngine(ws, 'miniwdl'),
      (e: unknown) => e instanceof ConflictError && e.code === 'ENGINE_NOT_STOPPED',
    );
    await c.cromwellSwitch(ws, 'stop');
    const set = await c.admin.setWorkspaceEngine(ws, 'cromwell', 'http://127.0.0.1:1/');
    assert.deepEqual([set.driver, set.url, set.status], ['cromwell', 'http://127.0.0.1:1', 'Stopped']);
    await assert.rejects(c.cromwellSwitch(ws, 'restart'), (e: unknown) => e instanceof ConflictError && e.code === 'ENGINE_START_FAILED');
    const other = await s.newTenant('other');
    const stranger = client({ apikey: other.apikey });
    await assert.rejects(stranger.admin.setWorkspaceEngine(ws, 'toil'), (e: unknown) => e instanceof ForbiddenError);
  });
});
