import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import {
  ApiError,
  AuthenticationError,
  FetchTransport,
  ForbiddenError,
  NotFoundError,
  RunyardApi,
  TransportError,
  type JobEvent,
} from '@runyard/client/core';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';

// The browser's transport (fetch) against a real server that runs jobs: the same operations give
// the same answers and the same typed errors as over the node transport. Outside a browser there is
// no session cookie, so the requests carry the apikey header.
describe('RunyardApi over FetchTransport', () => {
  let s: RunningServer;
  let api: RunyardApi;
  let node: RunyardClient;
  let ws: string;

  before(async () => {
    s = await startRunningServer();
    ws = s.admin.workspaceId;
    api = new RunyardApi(new FetchTransport({ baseUrl: s.url, headers: { apikey: s.admin.apikey } }));
    node = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    await api.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  });
  after(async () => {
    api.close();
    node.close();
    await s.close();
  });

  const bash = (command: string, jobName: string) =>
    api.sendJob({ workspaceId: ws, projectName: 'demo', workflowName: 'ubuntu', workflowType: 'docker', command, jobName });

  const follow = async (client: RunyardApi, jobId: string): Promise<JobEvent[]> => {
    const events: JobEvent[] = [];
    for await (const e of client.followJob(jobId, ws)) events.push(e);
    return events;
  };

  it('creates and lists projects as the node client sees them', async () => {
    const id = await api.createProject(ws, 'demo');
    const listed = await api.getProjectList(ws);
    assert.deepEqual(
      listed.map((p) => [p._id, p.name]),
      [[id, 'demo']],
    );
    assert.deepEqual(listed, await node.getProjectList(ws));
    assert.equal((await api.getUserInfo()).username, 'admin');
  });

  it('submits a job, reads it, and follows its log to its end', async () => {
    const id = await bash('echo one; echo "two ✓"', 'fetched');
    const doc = await api.getJobStatus(id, ws);
    assert.equal(doc.name, 'fetched');
    assert.equal((await api.getJobRequestPayload(id, ws)).name, 'fetched');
    const events = await follow(api, id);
    const end = events.at(-1);
    assert.deepEqual(end, { type: 'end', status: 'completed', statusMessage: end?.type === 'end' ? end.statusMessage : null, exitCode: 0 });
    const log = events.flatMap((e) => (e.type === 'log' ? [e.text] : [])).join('');
    // The server's note on where the job ran comes first.
    assert.match(log, /\none\ntwo ✓\n$/);
    assert.ok(events.some((e) => e.type === 'status' || e.type === 'end'));
    // Once finished, both transports read the same events.
    assert.deepEqual(await follow(api, id), await follow(node, id));
    assert.equal((await api.getJobList(ws, { filterStatus: 'completed' })).jobs.length, 1);
  });

  it('turns a 404 and a 401 into the same typed errors as the node transport', async () => {
    const missing = '0123456789abcdef01234567';
    const viaFetch = await api.getJobStatus(missing, ws).catch((e: unknown) => e);
    const viaNode = await node.getJobStatus(missing, ws).catch((e: unknown) => e);
    assert.ok(viaFetch instanceof NotFoundError, String(viaFetch));
    assert.ok(viaNode instanceof NotFoundError);
    for (const k of ['status', 'code', 'message', 'serverMessage', 'method', 'path'] as const) assert.equal(viaFetch[k], viaNode[k], k);
    // The events stream refuses the same way, without retrying.
    await assert.rejects(follow(api, missing), (e: unknown) => e instanceof NotFoundError && e.status === 404);
    const stranger = new RunyardApi(new FetchTransport({ baseUrl: s.url, headers: { apikey: 'ry_not_a_key' } }));
    await assert.rejects(stranger.getUserInfo(), (e: unknown) => e instanceof AuthenticationError && e.status === 401);
    // A browser with no session: signed out, not an error.
    assert.equal(await new RunyardApi(new FetchTransport({ baseUrl: s.url })).currentSession().catch((e: unknown) => e), null);
    assert.ok(!(viaFetch instanceof TransportError) && viaFetch instanceof ApiError);
  });

  it('signs in with a key, then reads and writes with the session cookie, its CSRF token on writes', async () => {
    // Node's fetch keeps no cookies: the test carries the session cookie as a browser would.
    const open = new RunyardApi(new FetchTransport({ baseUrl: s.url }));
    const login = await open.rawRequest('POST', '/api/runyard/auth/login', { body: { apikey: s.admin.apikey } });
    assert.equal(login.status, 200);
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    assert.match(cookie, /^runyard_session=./);
    let token: string | undefined = (login.body as { csrfToken: string }).csrfToken;
    const browser = new RunyardApi(new FetchTransport({ baseUrl: s.url, headers: { cookie }, csrfToken: () => token }));
    const session = await browser.currentSession();
    assert.equal(session?.user.username, 'admin');
    assert.equal(session?.csrfToken, token);
    assert.match(await browser.createProject(ws, 'by-cookie'), /^[0-9a-f]{24}$/);
    token = undefined;
    await assert.rejects(browser.createProject(ws, 'no-token'), (e: unknown) => e instanceof ForbiddenError && e.code === 'CSRF_FAILED');
    assert.deepEqual((await browser.getProjectList(ws)).map((p) => p.name).sort(), ['by-cookie', 'demo']);
    token = session?.csrfToken;
    await browser.logout();
    assert.equal(await browser.currentSession(), null);
    await assert.rejects(browser.getUserInfo(), AuthenticationError);
    // The login helper answers the same session body.
    assert.equal((await open.login(s.admin.apikey)).user.username, 'admin');
    await assert.rejects(open.login('ry_not_a_key'), AuthenticationError);
  });

  it('reports a server that cannot be reached as a TransportError', async () => {
    const down = new RunyardApi(new FetchTransport({ baseUrl: 'http://127.0.0.1:1' }));
    await assert.rejects(
      down.getUserInfo(),
      (e: unknown) => e instanceof TransportError && /Could not reach http:\/\/127\.0\.0\.1:1/.test(e.message),
    );
    await assert.rejects(follow(down, '0123456789abcdef01234567'), TransportError);
  });

  it('uploads to the URL a page is given, and downloads from the storage object path', async () => {
    const explorer = await api.datasets(ws, 'demo');
    const target = await explorer.uploadUrl('Data', 'notes.txt');
    assert.match(target, /^\/api\/runyard\/datasets\/upload\?teamId=[0-9a-f]{24}&projectId=[0-9a-f]{24}&name=notes\.txt$/);
    const res = await fetch(new URL(target, s.url), {
      method: 'POST',
      headers: { apikey: s.admin.apikey, 'content-type': 'application/octet-stream' },
      body: 'hello from a page\n',
    });
    assert.equal(res.status, 201, await res.clone().text());
    const listed = await explorer.listFolderContent('Data');
    const file = listed.files.find((f) => f.name === 'notes.txt');
    assert.ok(file?.s3BucketName && file.s3ObjectKey, JSON.stringify(listed));
    const href = api.storageObjectPath(ws, { bucket: file.s3BucketName, key: file.s3ObjectKey });
    assert.ok(href.startsWith('/api/runyard/storage/object?'));
    const download = await fetch(new URL(href, s.url), { headers: { apikey: s.admin.apikey } });
    assert.equal(download.status, 200);
    assert.match(download.headers.get('content-disposition') ?? '', /attachment; filename\*=UTF-8''notes\.txt/);
    assert.equal(await download.text(), 'hello from a page\n');
    // A path outside Data, or a bad name, is refused before anything is sent.
    await assert.rejects(explorer.uploadUrl('Elsewhere', 'x.txt'), /Data/);
    await assert.rejects(explorer.uploadUrl('Data', '../x'), /Invalid name/);
  });

  it('stops following when the signal is aborted', async () => {
    const id = await bash('echo started; sleep 30; true', 'long');
    const controller = new AbortController();
    const seen: JobEvent[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of api.followJob(id, ws, { signal: controller.signal })) {
          seen.push(e);
          if (e.type === 'log') controller.abort();
        }
      })(),
      (e: unknown) => (e as Error).name === 'AbortError',
    );
    assert.equal(seen.at(-1)?.type, 'log');
    await api.abortJob(id, ws, true);
  });
});
