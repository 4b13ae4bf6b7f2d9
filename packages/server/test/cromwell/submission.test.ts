import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { engineStatus, engineWorld, wdlBody, type EngineWorld } from './world.js';

// A WDL job needs the workspace's engine server started: refused while it is stopped, with a
// message saying how to start it; queued once it runs (running the workflow is the scheduler's).

describe('WDL submission and the engine server', { timeout: 120_000 }, () => {
  let w: EngineWorld;
  before(async () => {
    w = await engineWorld();
  });
  after(() => w.close());
  const submit = (body: unknown) => call(w.s, 'POST', `/api/v2/jobs?teamId=${w.ws}`, body);
  const jobCount = async () =>
    Number(
      (
        await w.s.store.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('refused (409) while the engine server is stopped, saying how to start it; nothing is stored', async () => {
    const message = assertError(await submit(wdlBody(w)), 409, 'ENGINE_STOPPED');
    assert.equal(
      message,
      'The workspace\'s WDL engine server is stopped: start it with "runyard cromwell start" (PUT /api/v1/cromwell/restart), then submit again.',
    );
    assert.equal(await jobCount(), 0);
    assert.equal((await engineStatus(w)).status, 'Stopped', 'the first submission made the server, stopped');
  });

  it('accepted and queued once it runs, with cromwellCloudResources its _id or absent', async () => {
    const server = (await call(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`)).json();
    assert.equal(server.status, 'Running');
    for (const body of [wdlBody(w, { cromwellCloudResources: server._id }), wdlBody(w, { cromwellCloudResources: undefined })]) {
      const r = await submit(body);
      assert.equal(r.statusCode, 200, r.body);
      const job = await call(w.s, 'GET', `/api/v1/jobs/${r.json().jobId}?teamId=${w.ws}`);
      assert.equal(job.json().status, 'queued');
    }
  });

  it('accepted while it starts (the job waits in the queue)', async () => {
    await w.s.store.db.updateTable('engine_servers').set({ status: 'Starting' }).where('workspace_id', '=', w.ws).execute();
    const r = await submit(wdlBody(w, { name: 'while-starting' }));
    assert.equal(r.statusCode, 200, r.body);
  });

  it('another cromwellCloudResources is a 400 naming it; a malformed one never a 5xx', async () => {
    const wrong = '0123456789abcdef01234567';
    const message = assertError(await submit(wdlBody(w, { cromwellCloudResources: wrong })), 400, 'VALIDATION_FAILED');
    assert.match(message, new RegExp(`cromwellCloudResources "${wrong}" is not this workspace's WDL engine server`));
    for (const bad of ['x', 'x'.repeat(101), 42, { a: 1 }]) {
      const r = await submit(wdlBody(w, { cromwellCloudResources: bad }));
      assert.equal(r.statusCode, 400, `${JSON.stringify(bad)}: ${r.body}`);
    }
  });

  it('stopped again: refused again; other jobs do not care', async () => {
    assert.equal((await call(w.s, 'PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`)).json().status, 'Stopped');
    assertError(await submit(wdlBody(w, { name: 'after-stop' })), 409, 'ENGINE_STOPPED');
    const docker = await call(w.s, 'POST', '/api/runyard/admin/workflows/docker', {
      workspaceId: w.ws,
      name: 'ubuntu',
      containerName: 'library/ubuntu:22.04',
    });
    const bash = await submit({ ...wdlBody(w), workflow: docker.json()._id, command: 'echo hi', parameters: [] });
    assert.equal(bash.statusCode, 200, bash.body);
  });
});
