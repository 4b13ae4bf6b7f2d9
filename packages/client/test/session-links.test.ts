import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunyardClient, RunyardValueError } from '@runyard/client';
import { SessionRunner, createBlobStore, createExecutors } from '@runyard/server';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';

// Linking into interactive sessions with the SDK (seed §4.5, §9; wire-api §2.12): against a real
// server whose jobs and Jupyter sessions really run, and against a peer that answers as an older
// CloudOS without the v2 mount (the v1 fallback).

const JUPYTER = (process.env.PATH ?? '').split(':').some((d) => Boolean(d) && existsSync(`${d}/jupyter`));

describe('SDK: linking into a running session', { skip: !JUPYTER && 'jupyter is not installed', timeout: 600_000 }, () => {
  let s: RunningServer;
  let runner: SessionRunner;
  let proxy: RecordingProxy;
  let client: RunyardClient;
  let ws: string;
  let jobId: string;
  let sessionId: string;
  before(async () => {
    s = await startRunningServer();
    runner = new SessionRunner({
      db: s.store.db,
      config: s.config,
      blobs: createBlobStore(s.config),
      executor: createExecutors(s.config).local!,
      pollMs: 100,
    });
    runner.start();
    proxy = await startRecordingProxy(s.url);
    client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
    ws = s.admin.workspaceId;
    const projectId = await client.createProject(ws, 'demo');
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
    jobId = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      jobName: 'sdk-job',
      command: 'mkdir -p "$RUNYARD_RESULTS_DIR/results" && echo hello > "$RUNYARD_RESULTS_DIR/results/out.txt" && echo done',
    });
    assert.equal((await client.waitJobCompletion(jobId, ws, { waitTime: 60, requestInterval: 0.1 })).status, 'completed');
    const session = await client.createInteractiveSession(ws, {
      interactiveSessionConfiguration: {
        name: 'sdk-links',
        backend: 'regular',
        executionPlatform: 'aws',
        instanceType: 'c5.xlarge',
        isCostSaving: false,
        storageSizeInGb: 500,
        storageMode: 'regular',
        visibility: 'workspace',
        execution: { computeCostLimit: -1, autoShutdownAtDate: new Date(Date.now() + 3_600_000).toISOString() },
      },
      dataItems: [],
      fileSystemIds: [],
      fuseFileSystems: [],
      projectId,
    });
    sessionId = session._id;
    for (let i = 0; ; i++) {
      const now = await client.getInteractiveSession(sessionId, ws);
      if (now.status === 'ready') break;
      assert.ok(!['aborted', 'terminated'].includes(now.status), `${now.status}: ${now.statusMessage}`);
      assert.ok(i < 2400, 'the session is ready within 240 s');
      await sleep(100);
    }
  });
  after(async () => {
    client?.close();
    if (sessionId) await client?.abortInteractiveSession(sessionId, ws, false, true).catch(() => undefined);
    for (let i = 0; sessionId && i < 300; i++) {
      const row = await s.store.db.selectFrom('interactive_sessions').select('status').where('id', '=', sessionId).executeTakeFirst();
      if (row?.status === 'aborted') break;
      await sleep(100);
    }
    await runner?.stop();
    await proxy?.close();
    await s?.close();
  });

  const fast = { timeout: 60, checkInterval: 0.1 };

  it("linkJobResults, linkJobWorkdir and linkJobLogs link the job's folders (v2), verified mounted", async () => {
    const before = proxy.requests.length;
    const lines: string[] = [];
    const results = await client.linkJobResults(jobId, ws, sessionId, { ...fast, log: (l) => lines.push(l) });
    assert.deepEqual(results, {
      path: `s3://runyard-${ws}/${ws}/jobs/${jobId}/results/results`,
      mounted: true,
      message: `Successfully mounted S3 folder: s3://runyard-${ws}/${ws}/jobs/${jobId}/results/results`,
    });
    const mounts = proxy.requests.slice(before).filter((r) => r.url.includes('fuse-filesystem'));
    assert.equal(
      `${mounts[0].method} ${mounts[0].url}`,
      `POST /api/v2/interactive-sessions/${sessionId}/fuse-filesystem/mount?teamId=${ws}`,
    );
    assert.match(
      `${mounts[1].method} ${mounts[1].url}`,
      new RegExp(`^GET /api/v1/interactive-sessions/${sessionId}/fuse-filesystems\\?teamId=${ws}`),
    );
    assert.ok(lines.includes('\tLinking results directory...'));
    const workdir = await client.linkJobWorkdir(jobId, ws, sessionId, fast);
    assert.equal(workdir.mounted, true, workdir.message);
    assert.equal(workdir.path, `s3://runyard-${ws}/${ws}/jobs/${jobId}/work`);
    const logs = await client.linkJobLogs(jobId, ws, sessionId, fast);
    assert.equal(logs.mounted, true, logs.message);
    assert.equal(logs.path, `s3://runyard-${ws}/${ws}/jobs/${jobId}/logs`);
    // Linked again: the server's 403, as the public client says it (printed, not thrown).
    const again = await client.linkJobResults(jobId, ws, sessionId, fast);
    assert.equal(again.mounted, false);
    assert.match(again.message, /^Failed to link results: Provided S3 folder already exists with 'mounted' status$/);

    const all = await client.getFuseFilesystemsStatus(sessionId, ws);
    assert.deepEqual(all.map((m) => [m.mountName, m.status]).sort(), [
      ['logs', 'mounted'],
      ['results', 'mounted'],
      ['work', 'mounted'],
    ]);
    const one = await client.waitForMountCompletion(sessionId, ws, 'results', fast);
    assert.equal(one.status, 'mounted');
    assert.ok(one.mountPoint.endsWith(`/mounts/results`));
  });

  it('linkFolder takes File Explorer folders and files (v2); linkFoldersBatch several; a virtual folder and a failed mount say so', async () => {
    const up = await client.datasets(ws, 'demo');
    const dataset = await up.findDestination('Data');
    await up.createVirtualFolder('virtual', dataset.id, dataset.kind);
    const file = await s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${ws}&projectId=${up.projectId}&name=samples.csv`,
      headers: { apikey: s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    assert.equal(file.statusCode, 201, file.body);
    const lines: string[] = [];
    assert.equal(
      await client.linkFoldersBatch([`AnalysesResults/sdk-job-${jobId}`, 'Data/samples.csv'], sessionId, ws, {
        ...fast,
        projectName: 'demo',
        log: (l) => lines.push(l),
      }),
      true,
    );
    assert.deepEqual(lines, [
      `Successfully mounted File Explorer folder: AnalysesResults/sdk-job-${jobId}`,
      'Successfully mounted File Explorer file: Data/samples.csv',
    ]);
    await assert.rejects(
      client.linkFolder('Data/virtual', sessionId, ws, { ...fast, projectName: 'demo' }),
      (e) =>
        e instanceof RunyardValueError &&
        e.message === "Invalid Supported DataItem 'File Explorer' folderType. Virtual folders cannot be linked.",
    );
    // Nothing there: recorded, then failed by the runner; false, with the reason logged.
    const failed: string[] = [];
    assert.equal(
      await client.linkFolder(`s3://runyard-${ws}/${ws}/nothing/here.txt`, sessionId, ws, { ...fast, log: (l) => failed.push(l) }),
      false,
    );
    assert.deepEqual(failed.slice(0, 1), [`Failed to mount S3 file: s3://runyard-${ws}/${ws}/nothing/here.txt`]);
    assert.match(failed[1], /Error: Nothing is stored at/);
  });

  it('waitForMountCompletion, mountFuseFilesystemV2 and the status on an unknown mount or session', async () => {
    await assert.rejects(
      client.waitForMountCompletion(sessionId, ws, 'never', { timeout: 0.5, checkInterval: 0.1 }),
      (e) => e instanceof RunyardValueError && /Mount 'never' not found .*timeout after 0.5 seconds/.test(e.message),
    );
    const ghost = 'f'.repeat(24);
    await assert.rejects(
      client.mountFuseFilesystemV2(ghost, ws, {
        dataItems: [{ type: 'S3Folder', data: { name: 'x', s3BucketName: `runyard-${ws}`, s3Prefix: `${ws}/x` } }],
      }),
      (e) => e instanceof RunyardValueError && e.message === `Session not found: ${ghost}`,
    );
    const before = proxy.requests.length;
    await assert.rejects(client.linkFolder(`s3://runyard-${ws}/${ws}/x`, ghost, ws, fast), /Session not found/);
    assert.equal(proxy.requests.slice(before).filter((r) => r.url.includes('/api/v1/')).length, 0, 'no v1 fallback');
    await assert.rejects(
      client.getFuseFilesystemsStatus(ghost, ws),
      (e) => e instanceof RunyardValueError && e.message === `Interactive session ${ghost} not found`,
    );
    await assert.rejects(client.linkFolder('az://acct/c/x', sessionId, ws), /az:\/\/\) are not supported/);
    await assert.rejects(client.linkFolder('s3://bucket-only', sessionId, ws), /must include a key after the bucket/);
    await assert.rejects(client.linkFoldersBatch(['s3://b/one/x', 's3://c/two/x'], sessionId, ws), /Duplicate mount name 'x'/);
  });
});

/** A peer that answers as an older CloudOS: no v2 mount (404 "Not Found"), v1 one folder at a time, mounted at once. */
async function olderCloudOs() {
  const requests: Array<{ method: string; url: string; body: any }> = [];
  const mounted: string[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const body = text ? JSON.parse(text) : undefined;
      requests.push({ method: req.method!, url: req.url!, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const url = req.url!.split('?')[0];
      if (req.method === 'POST' && /^\/api\/v2\/interactive-sessions\/gone\//.test(url)) return json(404, { message: 'Session not found' });
      if (req.method === 'POST' && url.startsWith('/api/v2/')) return json(404, { statusCode: 404, message: 'Not Found' });
      if (req.method === 'POST' && /^\/api\/v1\/interactive-sessions\/[^/]+\/fuse-filesystem\/mount$/.test(url)) {
        const item = body.dataItem;
        const name = item.data?.name ?? item.name;
        if (name === 'taken') return json(403, { message: 'already mounted' });
        mounted.push(name);
        res.writeHead(204);
        return res.end();
      }
      if (req.method === 'GET' && /\/fuse-filesystems$/.test(url)) {
        return json(200, {
          fuseFileSystems: mounted.map((n, i) => ({ _id: String(i), mountName: n, status: 'mounted', errorMessage: null })),
          paginationMetadata: { 'Pagination-Count': mounted.length, 'Pagination-Page': 1, 'Pagination-Limit': 10 },
        });
      }
      json(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    mounted,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('SDK: linking falls back to v1 on a server without the v2 mount', () => {
  let peer: Awaited<ReturnType<typeof olderCloudOs>>;
  let client: RunyardClient;
  before(async () => {
    peer = await olderCloudOs();
    client = new RunyardClient({ platformUrl: peer.url, apikey: 'k' });
  });
  after(async () => {
    client.close();
    await peer.close();
  });
  const fast = { timeout: 5, checkInterval: 0.05 };

  it('sends the batch to v2 once, then each folder to v1, and verifies them', async () => {
    peer.requests.length = 0;
    assert.equal(await client.linkFoldersBatch(['s3://bucket/a/one', 's3://bucket/a/two/'], 'sess', 'W', fast), true);
    const calls = peer.requests.map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(calls.slice(0, 3), [
      'POST /api/v2/interactive-sessions/sess/fuse-filesystem/mount?teamId=W',
      'POST /api/v1/interactive-sessions/sess/fuse-filesystem/mount?teamId=W',
      'POST /api/v1/interactive-sessions/sess/fuse-filesystem/mount?teamId=W',
    ]);
    assert.deepEqual(peer.requests[0].body, {
      dataItems: [
        { type: 'S3Folder', data: { name: 'one', s3BucketName: 'bucket', s3Prefix: 'a/one' } },
        { type: 'S3Folder', data: { name: 'two', s3BucketName: 'bucket', s3Prefix: 'a/two/' } },
      ],
    });
    assert.deepEqual(peer.requests[1].body, {
      dataItem: { type: 'S3Folder', data: { name: 'one', s3BucketName: 'bucket', s3Prefix: 'a/one' } },
    });
    assert.ok(calls.slice(3).every((c) => c.startsWith('GET /api/v1/interactive-sessions/sess/fuse-filesystems?teamId=W')));
  });

  it('a file cannot go through v1; a refusal after a success names what was mounted; a 404 naming the session does not fall back', async () => {
    peer.requests.length = 0;
    await assert.rejects(
      client.linkFolder('s3://bucket/a/table.csv', 'sess', 'W', fast),
      (e) => e instanceof RunyardValueError && /is a file: this server links only folders/.test(e.message),
    );
    assert.deepEqual(
      peer.requests.map((r) => r.url.split('?')[0]),
      ['/api/v2/interactive-sessions/sess/fuse-filesystem/mount'],
    );
    await assert.rejects(
      client.linkFoldersBatch(['s3://bucket/b/fine', 's3://bucket/b/taken'], 'sess', 'W', fast),
      (e) =>
        e instanceof RunyardValueError &&
        e.message.startsWith("Provided S3 folder already exists with 'mounted' status") &&
        e.message.includes('successfully mounted before this error: s3://bucket/b/fine'),
    );
    peer.requests.length = 0;
    await assert.rejects(
      client.linkFolder('s3://bucket/c/x', 'gone', 'W', fast),
      (e) => e instanceof RunyardValueError && e.message === 'Session not found: gone',
    );
    assert.equal(peer.requests.length, 1);
  });
});
