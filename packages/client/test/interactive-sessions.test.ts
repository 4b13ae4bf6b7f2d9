import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConflictError, NotFoundError, RunyardClient, RunyardValueError, wireSessionStatuses } from '@runyard/client';
import type { SessionCreateBody } from '@runyard/client';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

// The SDK's interactive-session operations (seed §4.5) against a real server, through a recording
// proxy that shows the requests as they go on the wire (wire-api §2.11).

describe('SDK: interactive sessions', { timeout: 120_000 }, () => {
  let s: TestServer;
  let proxy: RecordingProxy;
  let client: RunyardClient;
  let ws: string;
  let projectId: string;
  before(async () => {
    s = await startTestServer({ listen: true, env: { RUNYARD_SESSION_COMMAND_VSCODE: 'code-server' } });
    proxy = await startRecordingProxy(s.url);
    client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
    ws = s.admin.workspaceId;
    projectId = await client.createProject(ws, 'demo');
  });
  after(async () => {
    client.close();
    await proxy.close();
    await s.close();
  });

  const payload = (name: string, extra: Partial<SessionCreateBody['interactiveSessionConfiguration']> = {}): SessionCreateBody => ({
    interactiveSessionConfiguration: {
      name,
      backend: 'vscode',
      executionPlatform: 'aws',
      instanceType: 'c5.xlarge',
      isCostSaving: false,
      storageSizeInGb: 500,
      storageMode: 'regular',
      visibility: 'workspace',
      execution: { computeCostLimit: -1, autoShutdownAtDate: new Date(Date.now() + 3_600_000).toISOString() },
      ...extra,
    },
    dataItems: [],
    fileSystemIds: [],
    fuseFileSystems: [],
    projectId,
  });
  const last = () => proxy.requests.at(-1)!;
  const setStatus = (id: string, status: string) =>
    s.store.db.updateTable('interactive_sessions').set({ status }).where('id', '=', id).execute();

  it('createInteractiveSession posts the payload and answers the session with its _id, scheduled', async () => {
    const session = await client.createInteractiveSession(ws, payload('first'));
    assert.match(session._id, /^[0-9a-f]{24}$/);
    assert.equal(session.status, 'scheduled');
    assert.equal(session.interactiveSessionType, 'awsVSCode');
    assert.equal(`${last().method} ${last().url}`, `POST /api/v1/interactive-sessions?teamId=${ws}`);
    assert.equal(last().headers['content-type'], 'application/json');
    assert.equal(last().headers.apikey, s.admin.apikey);
  });

  it("getInteractiveSessionList sends the public client's params, maps seed status names, and computes the page counts", async () => {
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await client.createInteractiveSession(ws, payload(name)))._id);
    await setStatus(ids[0], 'ready');
    await setStatus(ids[1], 'aborted');
    await setStatus(ids[2], 'setup');
    const running = await client.getInteractiveSessionList(ws, { status: ['running'] });
    assert.deepEqual(
      running.sessions.map((x) => x._id),
      [ids[0]],
    );
    assert.equal(
      `${last().method} ${last().url}`,
      `GET /api/v3/interactive-sessions?teamId=${ws}&page=1&limit=10&status%5B%5D=ready&archived.status=false`,
    );
    const stopped = await client.getInteractiveSessionList(ws, { status: ['stopped', 'provisioning'], ownerOnly: true });
    assert.deepEqual(stopped.sessions.map((x) => x.name).sort(), ['b', 'c']);
    assert.match(
      last().url,
      /status%5B%5D=aborted&status%5B%5D=initializing&status%5B%5D=setup&onlyOwnerSessions=true&archived\.status=false$/,
    );
    const page = await client.getInteractiveSessionList(ws, { page: 2, limit: 3 });
    assert.deepEqual(page.paginationMetadata, { count: 4, page: 2, limit: 3, totalPages: 2 });
    assert.deepEqual(
      page.sessions.map((x) => x.name),
      ['first'],
    );
    assert.deepEqual((await client.getInteractiveSessionList(ws, { includeArchived: true })).sessions, []);
    assert.match(last().url, /archived\.status=true$/);
  });

  it('refuses a bad page, limit or status before any request', async () => {
    const before = proxy.requests.length;
    await assert.rejects(
      client.getInteractiveSessionList(ws, { limit: 101 }),
      (e) => e instanceof RunyardValueError && /Limit cannot exceed 100/.test(e.message),
    );
    await assert.rejects(client.getInteractiveSessionList(ws, { page: 0 }), RunyardValueError);
    await assert.rejects(client.getInteractiveSessionList(ws, { status: ['sleeping'] }), /Invalid status 'sleeping'/);
    assert.equal(proxy.requests.length, before);
    assert.deepEqual(wireSessionStatuses(['Running', 'paused', 'stopped', 'initialising']), ['ready', 'aborted', 'initializing']);
  });

  it('abortInteractiveSession answers 204 and records the pause; resumeInteractiveSession answers the session scheduled again', async () => {
    const session = await client.createInteractiveSession(ws, payload('pause-me'));
    await setStatus(session._id, 'ready');
    assert.equal(await client.abortInteractiveSession(session._id, ws, false, false), 204);
    assert.equal(`${last().method} ${last().url}`, `PUT /api/v1/interactive-sessions/${session._id}/abort?teamId=${ws}`);
    const row = await s.store.db.selectFrom('interactive_sessions').selectAll().where('id', '=', session._id).executeTakeFirstOrThrow();
    assert.deepEqual([row.status, row.upload_on_close, row.abort_force], ['aborting', 0, 0]);
    await assert.rejects(
      client.abortInteractiveSession(session._id, ws),
      (e) => e instanceof ConflictError && /aborted in aborting status/.test(e.message),
    );
    await setStatus(session._id, 'aborted');
    const resumed = await client.resumeInteractiveSession(session._id, ws, {
      dataItems: [],
      newInteractiveSessionConfiguration: { instanceType: 'c5.2xlarge', execution: { computeCostLimit: 3 } },
    });
    assert.equal(resumed.status, 'scheduled');
    assert.equal(resumed.interactiveSessionConfiguration.instanceType, 'c5.2xlarge');
    assert.equal(resumed.interactiveSessionConfiguration.execution.computeCostLimit, 3);
    assert.equal(`${last().method} ${last().url}`, `PUT /api/v1/interactive-sessions/${session._id}/resume?teamId=${ws}`);
    assert.deepEqual(await client.getInteractiveSession(session._id, ws), resumed);
    assert.equal(`${last().method} ${last().url}`, `GET /api/v2/interactive-sessions/${session._id}?teamId=${ws}`);
  });

  it('an unknown session is a NotFoundError naming the session', async () => {
    const id = 'e'.repeat(24);
    for (const call of [
      () => client.getInteractiveSession(id, ws),
      () => client.abortInteractiveSession(id, ws),
      () => client.resumeInteractiveSession(id, ws),
    ]) {
      await assert.rejects(
        call(),
        (e) => e instanceof NotFoundError && e.code === 'SESSION_NOT_FOUND' && /Interactive session with ID 'e{24}'/.test(e.message),
      );
    }
  });
});
