import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { bashBody, jobWorld, submit, type JobWorld } from './fixtures.js';

describe('job list, archive, abort (wire)', () => {
  let w: JobWorld;
  const ids: string[] = [];
  let bobKey = '';
  let bobId = '';
  before(async () => {
    w = await jobWorld();
    for (let i = 0; i < 12; i++) ids.push((await submit(w, bashBody(w, { name: i % 2 ? `Align-${i}` : `call-${i}` }))).json().jobId);
    const bob = (await call(w.s, 'POST', '/api/runyard/admin/users', { username: 'bob', email: 'bob@x.org', name: 'Bob' })).json();
    await call(w.s, 'POST', '/api/runyard/admin/members', { workspaceId: w.ws, userId: bob.id, role: 'member' });
    bobKey = (await call(w.s, 'POST', '/api/runyard/admin/apikeys', { userId: bob.id })).json().apikey;
    bobId = bob.id;
    ids.push((await submit(w, bashBody(w, { name: 'bobs-job' }), { userId: bob.id, workspaceId: w.ws, apikey: bobKey })).json().jobId);
  });
  after(() => w.close());

  const list = (query: string) => call(w.s, 'GET', `/api/v2/jobs?teamId=${w.ws}&${query}`);

  it('pages newest first with exact pagination metadata', async () => {
    const r = (await list('archived.status=false&page=1&limit=5')).json();
    assert.equal(r.jobs.length, 5);
    assert.deepEqual(r.paginationMetadata, {
      'Pagination-Count': 13,
      'Pagination-Page': 1,
      'Pagination-Limit': 5,
      'Pagination-Completed-Count': 0,
    });
    assert.equal(r.jobs[0]._id, ids[12]);
    const last = (await list('archived.status=false&page=3&limit=5')).json();
    assert.equal(last.jobs.length, 3);
    assert.equal(last.jobs[2]._id, ids[0]);
    const asc = (await list('sort=createdAt&limit=1')).json();
    assert.equal(asc.jobs[0]._id, ids[0]);
  });

  it('filters by status, name (case-insensitive), id, project, workflow and user', async () => {
    assert.equal((await list('name=align')).json().paginationMetadata['Pagination-Count'], 6);
    assert.equal((await list('status=queued&limit=100')).json().jobs.length, 13);
    assert.equal((await list('status=running')).json().jobs.length, 0);
    assert.deepEqual(
      (await list(`id=${ids[3]}`)).json().jobs.map((j: { _id: string }) => j._id),
      [ids[3]],
    );
    assert.equal((await list(`project.id=${w.projectId}&limit=100`)).json().jobs.length, 13);
    assert.equal((await list(`workflow.id=${w.nextflowWorkflowId}`)).json().jobs.length, 0);
    assert.deepEqual(
      (await list(`user.id=${bobId}`)).json().jobs.map((j: { name: string }) => j.name),
      ['bobs-job'],
    );
    // Every job went to the workspace's default queue: the queue filter keeps them all, another id none.
    const queues = (await call(w.s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${w.ws}`)).json() as {
      id: string;
      isDefault: boolean;
    }[];
    const byDefault = queues.find((q) => q.isDefault)!;
    assert.equal((await list(`batch.jobQueue.id=${byDefault.id}&limit=100`)).json().jobs.length, 13);
    assert.equal((await list(`batch.jobQueue.id=${'0'.repeat(24)}`)).json().jobs.length, 0);
  });

  it('refuses limit over 100 and page 0', async () => {
    assertError(await list('limit=101'), 400, 'VALIDATION_FAILED');
    assertError(await list('page=0'), 400, 'VALIDATION_FAILED');
  });

  it('archives and unarchives; archived jobs are listed only with archived.status=true', async () => {
    const body = (status: boolean, jobIds: string[]) => ({
      jobIds,
      update: { archived: { status, archivalTimestamp: '2026-11-22T10:00:00.123456Z' } },
    });
    const r = await call(w.s, 'PUT', `/api/v1/jobs?teamId=${w.ws}`, body(true, [ids[0], ids[1]]));
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { success: true });
    assert.equal((await list('archived.status=true&page=1&limit=1&id=' + ids[0])).json().jobs.length, 1);
    assert.equal((await list('archived.status=false&page=1&limit=1&id=' + ids[0])).json().jobs.length, 0);
    assert.equal((await list('limit=100')).json().jobs.length, 11);
    const doc = (await call(w.s, 'GET', `/api/v1/jobs/${ids[0]}?teamId=${w.ws}`)).json();
    assert.deepEqual(doc.archived, { status: true, archivalTimestamp: '2026-11-22T10:00:00.123456Z' });
    assertError(
      await call(w.s, 'PUT', `/api/v1/jobs?teamId=${w.ws}`, body(false, [ids[0], '0123456789abcdef01234567'])),
      404,
      'JOB_NOT_FOUND',
    );
    assert.equal((await list('archived.status=true&id=' + ids[0])).json().jobs.length, 1, 'nothing changed on a 404');
    await call(w.s, 'PUT', `/api/v1/jobs?teamId=${w.ws}`, body(false, [ids[0], ids[1]]));
    assert.equal((await list('limit=100')).json().jobs.length, 13);
  });

  it('aborts a queued job at once; a started one becomes aborting; a finished one is a conflict', async () => {
    const abort = (id: string, force = false) => call(w.s, 'PUT', `/api/v2/jobs/${id}/abort?forceAbort=${force}&teamId=${w.ws}`);
    assert.deepEqual((await abort(ids[5])).json(), { status: 'aborted' });
    assert.match(assertError(await abort(ids[5]), 409, 'JOB_STATE_CONFLICT'), /already aborted/);
    await w.s.store.db.updateTable('jobs').set({ status: 'running' }).where('id', '=', ids[6]).execute();
    assert.deepEqual((await abort(ids[6], true)).json(), { status: 'aborting' });
    const row = await w.s.store.db.selectFrom('jobs').select(['status', 'abort_force']).where('id', '=', ids[6]).executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'aborting', abort_force: 1 });
  });

  it("finds a job with teamId=None or no teamId, only among the caller's workspaces", async () => {
    assert.equal((await call(w.s, 'GET', `/api/v1/jobs/${ids[2]}?teamId=None`)).json()._id, ids[2]);
    assert.equal((await call(w.s, 'GET', `/api/v1/jobs/${ids[2]}`)).json()._id, ids[2]);
    const other = await w.s.newTenant('mallory');
    assertError(await call(w.s, 'GET', `/api/v1/jobs/${ids[2]}?teamId=None`, undefined, other.apikey), 404, 'JOB_NOT_FOUND');
    assertError(
      await call(w.s, 'GET', `/api/v1/jobs/${ids[2]}?teamId=${other.workspaceId}`, undefined, other.apikey),
      404,
      'JOB_NOT_FOUND',
    );
    assertError(await call(w.s, 'GET', `/api/v1/jobs/${ids[2]}?teamId=${w.ws}`, undefined, other.apikey), 404, 'JOB_NOT_FOUND');
    assertError(
      await call(w.s, 'PUT', `/api/v2/jobs/${ids[2]}/abort?teamId=${other.workspaceId}`, undefined, other.apikey),
      404,
      'JOB_NOT_FOUND',
    );
    assertError(
      await call(w.s, 'GET', `/api/v1/jobs/${ids[2]}/request-payload?teamId=${other.workspaceId}`, undefined, other.apikey),
      404,
      'JOB_NOT_FOUND',
    );
    assertError(
      await call(
        w.s,
        'PUT',
        `/api/v1/jobs?teamId=${other.workspaceId}`,
        { jobIds: [ids[2]], update: { archived: { status: true } } },
        other.apikey,
      ),
      404,
      'JOB_NOT_FOUND',
    );
    assert.equal((await call(w.s, 'GET', `/api/v2/jobs?teamId=${other.workspaceId}`, undefined, other.apikey)).json().jobs.length, 0);
  });
});

describe('job queues (wire and admin)', () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(() => w.close());

  it('a workspace starts with default queues for Nextflow and WDL, and a module queue', async () => {
    const team = (await call(w.s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${w.ws}`)).json();
    assert.deepEqual(
      team.map((q: { name: string; executor: string; isDefault: boolean }) => [q.name, q.executor, q.isDefault]),
      [
        ['default', 'nextflow', true],
        ['default-wdl', 'cromwell', true],
      ],
    );
    for (const q of team) {
      for (const k of [
        'id',
        'resource',
        'name',
        'label',
        'description',
        'isDefault',
        'resourceType',
        'executor',
        'arn',
        'computeEnvironments',
        'status',
      ])
        assert.ok(k in q, k);
      assert.equal(q.status, 'Ready');
      assert.equal(q.resourceType, 'teamBatchJobQueue');
    }
    const system = (await call(w.s, 'GET', `/api/v1/teams/aws/v2/system-job-queues?teamId=${w.ws}`)).json();
    assert.equal(system.length, 1);
    assert.equal(system[0].resourceType, 'systemBatchJobQueue');
  });

  it('an admin adds a queue and may make it the default; names are unique per workspace', async () => {
    const r = await call(w.s, 'POST', '/api/runyard/admin/queues', {
      workspaceId: w.ws,
      name: 'fast',
      label: 'Fast lane',
      concurrency: 8,
      isDefault: true,
    });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.json().concurrency, 8);
    const team = (await call(w.s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${w.ws}`)).json();
    assert.deepEqual(
      team
        .filter((q: { isDefault: boolean; executor: string }) => q.isDefault && q.executor === 'nextflow')
        .map((q: { name: string }) => q.name),
      ['fast'],
    );
    const job = (await submit(w, bashBody(w))).json().jobId;
    assert.equal((await call(w.s, 'GET', `/api/v1/jobs/${job}?teamId=${w.ws}`)).json().batch.jobQueue.name, 'fast');
    assertError(await call(w.s, 'POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'fast' }), 409, 'QUEUE_NAME_TAKEN');
    assertError(
      await call(w.s, 'POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'x', concurrency: 0 }),
      400,
      'VALIDATION_FAILED',
    );
    const other = await w.s.newTenant('oscar');
    assertError(
      await call(w.s, 'POST', '/api/runyard/admin/queues', { workspaceId: other.workspaceId, name: 'y' }, other.apikey),
      403,
      'ADMIN_REQUIRED',
    );
  });
});
