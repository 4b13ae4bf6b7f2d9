import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultWdlEngine } from '../../src/config.js';
import { engineReady, settleEngineServers } from '../../src/services/engine-servers.js';
import { assertError, assertIsoTime, call } from '../wire.js';
import { emptyPath, engineStatus, engineWorld, wdlBody, type EngineWorld } from './world.js';

// The workspace's WDL engine server (GET/PUT /api/v1/cromwell): made stopped on first use, started
// when its driver can run, stopped once its WDL jobs end; its lifecycle outlives a restart.

describe('engine server lifecycle', { timeout: 120_000 }, () => {
  let w: EngineWorld;
  before(async () => {
    w = await engineWorld();
  });
  after(() => w.close());
  const put = (action: string) => call(w.s, 'PUT', `/api/v1/cromwell/${action}?teamId=${w.ws}`);

  it('GET makes the server on first use: Stopped, with the default driver (toil, installed here) and an _id', async () => {
    const first = await engineStatus(w);
    assert.match(first._id, /^[0-9a-f]{24}$/);
    assert.equal(first.status, 'Stopped');
    assert.equal(first.driver, 'toil');
    assert.equal(first.workspace, w.ws);
    assert.equal(first.url, undefined);
    assertIsoTime(first.createdAt);
    assertIsoTime(first.updatedAt);
    assert.deepEqual(await engineStatus(w), first, 'a second GET finds the same server');
    assert.equal(await engineReady(w.s.store.db, w.ws), null);
  });

  it('restart: Running when toil-wdl-runner is on the task PATH; the scheduler then gets its driver', async () => {
    const r = await put('restart');
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().status, 'Running');
    assert.equal(r.json().statusMessage, undefined);
    assert.equal((await engineStatus(w)).status, 'Running');
    const ready = await engineReady(w.s.store.db, w.ws);
    assert.deepEqual(ready, { id: r.json()._id, driver: 'toil', url: null, managed: false });
    // Again while running: it checks anew and stays Running.
    assert.equal((await put('restart')).json().status, 'Running');
  });

  it('the status and _id survive a restart of Runyard', async () => {
    const before = await engineStatus(w);
    await w.restart();
    const now = await engineStatus(w);
    assert.equal(now._id, before._id);
    assert.equal(now.status, 'Running');
  });

  it('a start left under way (Starting) by a process that is gone is checked again on the next GET', async () => {
    await w.s.store.db.updateTable('engine_servers').set({ status: 'Starting' }).where('workspace_id', '=', w.ws).execute();
    await w.restart();
    assert.equal((await engineStatus(w)).status, 'Running');
  });

  it('stop with no WDL job under way: Stopped at once; again: still Stopped', async () => {
    const r = await put('stop');
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().status, 'Stopped');
    assert.equal((await put('stop')).json().status, 'Stopped');
    assert.equal(await engineReady(w.s.store.db, w.ws), null);
  });

  it('stop while a WDL job runs: Stopping (new WDL jobs refused) until it ends, then Stopped', async () => {
    assert.equal((await put('restart')).json().status, 'Running');
    const submitted = await call(w.s, 'POST', `/api/v2/jobs?teamId=${w.ws}`, wdlBody(w));
    assert.equal(submitted.statusCode, 200, submitted.body);
    const jobId = submitted.json().jobId as string;
    // As the scheduler would have it: the job's task runs.
    await w.s.store.db.updateTable('jobs').set({ status: 'running' }).where('id', '=', jobId).execute();
    const stopping = await put('stop');
    assert.equal(stopping.statusCode, 200, stopping.body);
    assert.equal(stopping.json().status, 'Stopping');
    assert.match(stopping.json().statusMessage, /1 WDL job is still running and will finish; new WDL jobs are refused/);
    assert.equal((await engineStatus(w)).status, 'Stopping', 'the job still runs');
    const refused = await call(w.s, 'POST', `/api/v2/jobs?teamId=${w.ws}`, wdlBody(w, { name: 'while-stopping' }));
    assertError(refused, 409, 'ENGINE_STOPPED');
    // The job ends: the next GET finds the stop done.
    await w.s.store.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', jobId).execute();
    assert.equal((await engineStatus(w)).status, 'Stopped');
  });

  it("settleEngineServers (the background's sweep) finishes a stop whose jobs have ended", async () => {
    await w.s.store.db.updateTable('engine_servers').set({ status: 'Stopping' }).where('workspace_id', '=', w.ws).execute();
    await settleEngineServers(w.s.store.db, w.s.config);
    const row = await w.s.store.db.selectFrom('engine_servers').select('status').where('workspace_id', '=', w.ws).executeTakeFirstOrThrow();
    assert.equal(row.status, 'Stopped');
  });

  it('an unknown action is a 400 naming the two there are; nothing changes', async () => {
    const before = await engineStatus(w);
    const message = assertError(await put('start'), 400, 'VALIDATION_FAILED');
    assert.match(message, /Unknown action "start": PUT \/api\/v1\/cromwell\/restart starts .* \/api\/v1\/cromwell\/stop stops it/);
    assertError(await put('%00'), 400, 'VALIDATION_FAILED');
    assert.deepEqual(await engineStatus(w), before);
  });
});

describe('engine server: a driver that cannot run', { timeout: 120_000 }, () => {
  let w: EngineWorld;
  before(async () => {
    w = await engineWorld({ RUNYARD_TASK_PATH: emptyPath(), RUNYARD_WDL_ENGINE: 'toil' });
  });
  after(() => w.close());

  it('restart without toil-wdl-runner on the task PATH: 409 saying why, and the server stays Stopped with that message', async () => {
    const r = await call(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    const message = assertError(r, 409, 'ENGINE_START_FAILED');
    assert.match(message, /The WDL engine toil cannot start: toil-wdl-runner is not on the task PATH \(RUNYARD_TASK_PATH\)/);
    const now = await engineStatus(w);
    assert.equal(now.status, 'Stopped');
    assert.equal(now.statusMessage, message);
  });

  it('miniwdl absent likewise', async () => {
    const set = await call(w.s, 'PUT', '/api/runyard/admin/engine', { workspaceId: w.ws, driver: 'miniwdl' });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().driver, 'miniwdl');
    assert.equal(set.json().statusMessage, undefined, 'a new driver clears the old reason');
    const message = assertError(await call(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`), 409, 'ENGINE_START_FAILED');
    assert.match(message, /miniwdl is not on the task PATH/);
  });
});

describe('engine server: the cromwell driver', { timeout: 120_000 }, () => {
  // Cromwell itself is not installable here: a stand-in that answers any HTTP request stands for
  // a Cromwell server (the start check is `GET <url>/engine/v1/status`, any status).
  let w: EngineWorld;
  let cromwell: http.Server;
  let url = '';
  const seen: string[] = [];
  before(async () => {
    cromwell = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
    await new Promise<void>((resolve) => cromwell.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(cromwell.address() as AddressInfo).port}`;
    w = await engineWorld({ RUNYARD_WDL_ENGINE: 'cromwell', RUNYARD_CROMWELL_URL: `${url}/` });
  });
  after(async () => {
    await w.close();
    cromwell.close();
  });

  it('takes the configured URL; restart checks that the server answers, then runs; the scheduler gets the URL', async () => {
    const first = await engineStatus(w);
    assert.equal(first.driver, 'cromwell');
    assert.equal(first.url, url, 'without its trailing slash');
    const r = await call(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().status, 'Running');
    assert.deepEqual(seen, ['GET /engine/v1/status']);
    assert.deepEqual(await engineReady(w.s.store.db, w.ws), { id: first._id, driver: 'cromwell', url, managed: false });
  });

  it('the driver cannot change while the server runs (409); stopped, it can', async () => {
    const body = { workspaceId: w.ws, driver: 'toil' };
    assertError(await call(w.s, 'PUT', '/api/runyard/admin/engine', body), 409, 'ENGINE_NOT_STOPPED');
    assert.equal((await call(w.s, 'PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`)).json().status, 'Stopped');
    const set = await call(w.s, 'PUT', '/api/runyard/admin/engine', body);
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().driver, 'toil');
    assert.equal(set.json().url, undefined);
    const back = await call(w.s, 'PUT', '/api/runyard/admin/engine', { workspaceId: w.ws, driver: 'cromwell', url: `${url}/api/` });
    assert.equal(back.statusCode, 200, back.body);
    assert.equal(back.json().url, `${url}/api`);
  });

  it('a Cromwell server that does not answer: 409 naming it, and Stopped', async () => {
    const dead = http.createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((resolve) => dead.close(resolve));
    const set = await call(w.s, 'PUT', '/api/runyard/admin/engine', { workspaceId: w.ws, driver: 'cromwell', url: deadUrl });
    assert.equal(set.statusCode, 200, set.body);
    const message = assertError(await call(w.s, 'PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`), 409, 'ENGINE_START_FAILED');
    assert.match(message, new RegExp(`the Cromwell server at ${deadUrl} does not answer \\(ECONNREFUSED\\)`));
    assert.equal((await engineStatus(w)).status, 'Stopped');
  });

  it('set-engine refuses bad input with 400s (and an unknown workspace with 404), never a 5xx', async () => {
    const bad: [unknown, number][] = [
      [{ workspaceId: w.ws, driver: 'toil', url }, 400],
      [{ workspaceId: w.ws, driver: 'cromwell', url: 'ftp://x' }, 400],
      [{ workspaceId: w.ws, driver: 'cromwell', url: 'http://user:pw@host:8000' }, 400],
      [{ workspaceId: w.ws, driver: 'cromwell', url: 'http://host/?q=1' }, 400],
      [{ workspaceId: w.ws, driver: 'cromwell', url: 'not a url' }, 400],
      [{ workspaceId: w.ws, driver: 'spark' }, 400],
      [{ workspaceId: w.ws, driver: 'toil', extra: 1 }, 400],
      [{ workspaceId: 'x', driver: 'toil' }, 400],
      [{ driver: 'toil' }, 400],
      ['[]', 400],
      [{ workspaceId: '0123456789abcdef01234567', driver: 'toil' }, 404],
    ];
    for (const [body, status] of bad) {
      const r = await call(w.s, 'PUT', '/api/runyard/admin/engine', body);
      assert.equal(r.statusCode, status, `${JSON.stringify(body)}: ${r.body}`);
    }
  });
});

describe('default WDL driver', () => {
  it('toil when toil-wdl-runner is on the task PATH, else miniwdl when it is, else toil', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-engines-'));
    assert.equal(defaultWdlEngine(dir), 'toil');
    const fake = path.join(dir, 'miniwdl');
    writeFileSync(fake, '#!/bin/sh\n');
    chmodSync(fake, 0o755);
    assert.equal(defaultWdlEngine(dir), 'miniwdl');
    assert.equal(defaultWdlEngine(`/usr/bin:${dir}`), 'toil');
  });
});
