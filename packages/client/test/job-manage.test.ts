import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  archivalTimestamp,
  ApiError,
  ConflictError,
  NotFoundError,
  RunyardClient,
  RunyardValueError,
  type JobDocument,
} from '@runyard/client';
import { jobWorld, type JobWorld } from './job-world.js';

describe('SDK job status, payload, abort, archive and wait against a real server', () => {
  let w: JobWorld;
  let ws: string;
  const submit = (jobName: string) =>
    w.client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'echo hi',
      jobName,
      parameters: ['--x=1'],
    });
  before(async () => {
    w = await jobWorld();
    ws = w.ws;
  });
  after(() => w.close());

  it('get_job_status reads the job document, with teamId=None when no workspace is given', async () => {
    const id = await submit('status-job');
    let n = w.proxy.requests.length;
    const doc = await w.client.getJobStatus(id, ws);
    assert.deepEqual(w.since(n), [`GET /api/v1/jobs/${id}?teamId=${ws}`]);
    assert.equal(doc._id, id);
    assert.equal(doc.name, 'status-job');
    assert.equal(doc.status, 'queued');
    assert.equal(doc.team, ws);
    n = w.proxy.requests.length;
    assert.equal((await w.client.getJobStatus(id)).status, 'queued');
    assert.deepEqual(w.since(n), [`GET /api/v1/jobs/${id}?teamId=None`]);
    await assert.rejects(
      w.client.getJobStatus('0123456789abcdef01234567', ws),
      (e: unknown) => e instanceof NotFoundError && /not found/.test(e.message),
    );
  });

  it('get_job_request_payload returns the body with _id and resourceId; get_field_from_jobs_endpoint reads one key', async () => {
    const id = await submit('payload-job');
    const n = w.proxy.requests.length;
    const body = await w.client.getJobRequestPayload(id, ws);
    assert.deepEqual(w.since(n), [`GET /api/v1/jobs/${id}/request-payload?teamId=${ws}`]);
    assert.equal(body._id, id);
    assert.ok('resourceId' in body);
    assert.equal(body.name, 'payload-job');
    assert.equal(body.command, 'echo hi');
    assert.deepEqual(await w.client.job(id, ws).payload(), body);

    assert.equal(await w.client.getFieldFromJobsEndpoint(id, 'status', ws), 'queued');
    assert.equal(await w.client.getFieldFromJobsEndpoint(id, 'resumeWorkDir', ws), null, 'a key present with null is returned');
    assert.deepEqual(await w.client.getFieldFromJobsEndpoint(id, 'resourceRequirements', ws), { cpu: 1, ram: 4 });
    await assert.rejects(
      w.client.getFieldFromJobsEndpoint(id, 'noSuchField', ws),
      (e: unknown) => e instanceof RunyardValueError && e.message === "Field 'noSuchField' not found in endpoint 'jobs'.",
    );
    await assert.rejects(w.client.getJobRequestPayload('0123456789abcdef01234567', ws), NotFoundError);
  });

  it('abort_job aborts a queued job, sends forceAbort, and a finished job fails with the server message', async () => {
    const queued = await submit('to-abort');
    let n = w.proxy.requests.length;
    await w.client.abortJob(queued, ws);
    assert.deepEqual(w.since(n), [`PUT /api/v2/jobs/${queued}/abort?forceAbort=false&teamId=${ws}`]);
    assert.equal((await w.client.getJobStatus(queued, ws)).status, 'aborted');

    const running = await submit('running-abort');
    await w.setStatus(running, 'running');
    n = w.proxy.requests.length;
    await w.client.job(running, ws).abort(true);
    assert.deepEqual(w.since(n), [`PUT /api/v2/jobs/${running}/abort?forceAbort=true&teamId=${ws}`]);
    assert.equal((await w.client.getJobStatus(running, ws)).status, 'aborting');

    const done = await submit('done');
    await w.setStatus(done, 'completed');
    await assert.rejects(
      w.client.abortJob(done, ws),
      (e: unknown) => e instanceof ConflictError && e.message === 'Server returned status 409. Message: Job is already completed!',
    );
    await assert.rejects(w.client.abortJob(queued, ws), (e: unknown) => e instanceof ApiError && /already aborted/.test(e.message));
  });

  it('archive_jobs and unarchive_jobs send one PUT with the ids and a UTC timestamp with microseconds', async () => {
    const a = await submit('arch-a');
    const b = await submit('arch-b');
    assert.match(archivalTimestamp(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(archivalTimestamp(Date.UTC(2024, 0, 2, 3, 4, 5, 678) + 0.9), '2024-01-02T03:04:05.678900Z');
    let n = w.proxy.requests.length;
    assert.deepEqual(await w.client.archiveJobs([a, b, a], ws), { success: true });
    assert.deepEqual(w.since(n), [`PUT /api/v1/jobs?teamId=${ws}`]);
    const archived = (await w.client.getJobStatus(a, ws)).archived as { status: boolean; archivalTimestamp: string };
    assert.equal(archived.status, true);
    assert.match(archived.archivalTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual((await w.client.getJobList(ws, { archived: true, filterJobName: 'arch-' })).jobs.map((j) => j.name).sort(), [
      'arch-a',
      'arch-b',
    ]);
    n = w.proxy.requests.length;
    await w.client.unarchiveJobs([a], ws);
    assert.deepEqual(w.since(n), [`PUT /api/v1/jobs?teamId=${ws}`]);
    assert.equal(((await w.client.getJobStatus(a, ws)).archived as { status: boolean }).status, false);
    await assert.rejects(
      w.client.archiveJobs([], ws),
      (e: unknown) => e instanceof RunyardValueError && /No job IDs provided/.test(e.message),
    );
    await assert.rejects(w.client.archiveJobs(['0123456789abcdef01234567'], ws), NotFoundError);
  });

  it('check_jobs_archive_status probes archived=true then archived=false per id and partitions the ids', async () => {
    const archived = await submit('check-archived');
    const live = await submit('check-live');
    await w.client.archiveJobs([archived], ws);
    const missing = '0123456789abcdef01234567';
    const n = w.proxy.requests.length;
    const log: string[] = [];
    const forArchive = await w.client.checkJobsArchiveStatus([archived, live, missing], ws, true, true, (m) => log.push(m));
    const probe = (id: string, state: boolean) => `GET /api/v2/jobs?teamId=${ws}&archived.status=${state}&page=1&limit=1&id=${id}`;
    assert.deepEqual(w.since(n), [
      probe(archived, true),
      probe(live, true),
      probe(live, false),
      probe(missing, true),
      probe(missing, false),
    ]);
    assert.deepEqual(forArchive, { validJobs: [live], alreadyProcessed: [archived], invalidJobs: { [missing]: 'Job not found' } });
    assert.equal(log.length, 3);
    assert.match(log.join('\n'), /already archived; no action needed/);

    const forUnarchive = await w.client.checkJobsArchiveStatus([archived, live, 'not-an-id'], ws, false);
    assert.deepEqual(forUnarchive, { validJobs: [archived], alreadyProcessed: [live], invalidJobs: { 'not-an-id': 'Job not found' } });

    const stranger = await w.s.newTenant('stranger');
    const outsider = new RunyardClient({ platformUrl: w.proxy.url, apikey: stranger.apikey });
    try {
      const denied = await outsider.checkJobsArchiveStatus([live], ws, true);
      assert.deepEqual(denied.validJobs, []);
      assert.match(denied.invalidJobs[live], /^Failed to get status for job .*Server returned status 404.*not a member/);
    } finally {
      outsider.close();
    }
  });

  it('wait_job_completion polls until the job finishes and returns name, id and status', async () => {
    const id = await submit('waited');
    const seen: string[] = [];
    const flipper = (async () => {
      await sleep(150);
      await w.setStatus(id, 'running');
      await sleep(150);
      await w.setStatus(id, 'completed');
    })();
    const n = w.proxy.requests.length;
    const result = await w.client.waitJobCompletion(id, ws, {
      waitTime: 30,
      requestInterval: 0.05,
      onStatus: (job: JobDocument) => seen.push(job.status),
    });
    await flipper;
    assert.deepEqual(result, { name: 'waited', id, status: 'completed' });
    assert.equal(seen[0], 'queued');
    assert.ok(seen.includes('running'), seen.join(','));
    assert.equal(seen[seen.length - 1], 'completed');
    assert.ok(w.since(n).every((r) => r === `GET /api/v1/jobs/${id}?teamId=${ws}`));
    assert.equal(w.since(n).length, seen.length);

    const failed = await submit('will-fail');
    await w.setStatus(failed, 'failed');
    assert.deepEqual(await w.client.job(failed, ws).wait({ requestInterval: 0.01 }), { name: 'will-fail', id: failed, status: 'failed' });
  });

  it('wait_job_completion gives the last status when the wait time runs out', async () => {
    const id = await submit('slow');
    await w.setStatus(id, 'running');
    const lines: string[] = [];
    const started = Date.now();
    const n = w.proxy.requests.length;
    // A wait of 1 s at 0.1 s intervals: room for several polls even when each is slow on a loaded machine.
    const result = await w.client.waitJobCompletion(id, ws, {
      waitTime: 1,
      requestInterval: 0.1,
      verbose: true,
      log: (m) => lines.push(m),
    });
    const took = Date.now() - started;
    assert.deepEqual(result, { name: 'slow', id, status: 'running' });
    assert.ok(took >= 980 && took < 5000, `took ${took} ms`);
    const polls = w.since(n).length;
    assert.ok(polls >= 3 && polls <= 12, `${polls} polls`);
    assert.match(lines[0], /Your current job status is: running/);
    assert.match(lines[lines.length - 1], /has not finished after 1 seconds; its status is running/);

    assert.deepEqual(await w.client.waitJobCompletion(id, ws, { waitTime: 0 }), { name: 'slow', id, status: 'running' });
    await assert.rejects(w.client.waitJobCompletion(id, ws, { requestInterval: 0 }), RunyardValueError);
    await assert.rejects(w.client.waitJobCompletion(id, ws, { waitTime: -1 }), RunyardValueError);
    const controller = new AbortController();
    const waiting = w.client.waitJobCompletion(id, ws, { requestInterval: 10, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(waiting, (e: unknown) => (e as Error).name === 'AbortError');
  });
});
