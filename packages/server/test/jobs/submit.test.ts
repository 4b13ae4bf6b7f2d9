import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { bashBody, jobCount, jobWorld, nextflowBody, submit, type JobWorld } from './fixtures.js';

describe('job submission (POST /api/v2/jobs)', () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(() => w.close());

  it('answers {jobId} for a bash job and the job document carries every key the reference lists', async () => {
    const r = await submit(w, bashBody(w));
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(Object.keys(r.json()), ['jobId']);
    const doc = (await call(w.s, 'GET', `/api/v1/jobs/${r.json().jobId}?teamId=${w.ws}`)).json();
    assert.equal(doc._id, r.json().jobId);
    assert.equal(doc.team, w.ws);
    assert.equal(doc.status, 'queued');
    assert.equal(doc.jobType, 'dockerAWS');
    assert.equal(doc.command, 'echo hi');
    assert.ok(!('nextflowVersion' in doc), 'bash jobs carry no nextflowVersion');
    assert.deepEqual(doc.parameters, bashBody(w).parameters);
    assert.deepEqual(doc.resourceRequirements, { cpu: 1, ram: 4 });
    assert.equal(doc.revision.tag, '22.04');
    assert.ok('digest' in doc.revision);
    assert.equal(doc.project._id, w.projectId);
    assert.equal(doc.project.name, 'demo');
    assert.equal(doc.workflow._id, w.bashWorkflowId);
    assert.equal(doc.user.id, w.s.admin.userId);
    assert.equal(doc.masterInstance.requestedInstance.type, 'c5.xlarge');
    assert.equal(doc.batch.jobQueue.name, 'default');
    assert.equal(doc.batch.jobQueue.executor, 'nextflow');
    assert.equal(doc.logs.s3BucketName, `runyard-${w.ws}`);
    assert.equal(doc.logs.s3Prefix, `${w.ws}/jobs/${doc._id}/logs`);
    assert.equal(doc.results.s3Prefix, `${w.ws}/jobs/${doc._id}/results`);
    assert.ok('resumeWorkDir' in doc);
    for (const k of ['startTime', 'endTime', 'createdAt', 'updatedAt', 'computeCostSpent', 'storageSizeInGb', 'storageMode'])
      assert.ok(k in doc, k);
    assert.equal(doc.computeCostSpent, 0);
  });

  it('resolves a Nextflow revision to the exact commit: default branch, branch, tag, commit', async () => {
    const revisionOf = async (revision?: unknown) => {
      const r = await submit(w, nextflowBody(w, revision ? { revision } : {}));
      assert.equal(r.statusCode, 200, r.body);
      return (await call(w.s, 'GET', `/api/v1/jobs/${r.json().jobId}?teamId=${w.ws}`)).json();
    };
    const byDefault = await revisionOf();
    assert.deepEqual(byDefault.revision, { revisionType: 'branch', commit: w.heads.main, tag: null, branch: 'main' });
    assert.equal(byDefault.jobType, 'nextflowAWS');
    assert.equal(byDefault.nextflowVersion, '24.04.4');
    assert.equal((await revisionOf({ revisionType: 'branch', branch: 'dev', tag: null, commit: null })).revision.commit, w.heads.dev);
    assert.deepEqual((await revisionOf({ revisionType: 'tag', tag: 'v1.0', branch: null, commit: null })).revision, {
      revisionType: 'tag',
      commit: w.heads.main,
      tag: 'v1.0',
      branch: null,
    });
    assert.equal((await revisionOf({ revisionType: 'commit', commit: w.heads.dev })).revision.commit, w.heads.dev);
    // A cloned job's revision names the branch and the commit it resolved to; revisionType decides.
    const cloned = await revisionOf({ revisionType: 'branch', branch: 'dev', commit: w.heads.main, tag: null });
    assert.deepEqual(cloned.revision, { revisionType: 'branch', commit: w.heads.dev, tag: null, branch: 'dev' });
  });

  it('refuses bad submissions with a 4xx naming the problem, and creates nothing', async () => {
    const before = await jobCount(w);
    const other = await w.s.newTenant('eve');
    const foreignQueue = (
      await call(w.s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${other.workspaceId}`, undefined, other.apikey)
    ).json()[0].id;
    const cases: [unknown, number, string, RegExp][] = [
      [
        nextflowBody(w, { revision: { commit: w.heads.main, branch: 'main' } }),
        400,
        'VALIDATION_FAILED',
        /only one of commit, tag and branch/,
      ],
      [nextflowBody(w, { revision: { revisionType: 'sideways', branch: 'main' } }), 400, 'VALIDATION_FAILED', /revisionType/],
      [nextflowBody(w, { revision: { branch: 'nope' } }), 400, 'VALIDATION_FAILED', /Branch "nope"/],
      [nextflowBody(w, { revision: { tag: 'v9' } }), 400, 'VALIDATION_FAILED', /Tag "v9"/],
      [nextflowBody(w, { revision: { commit: 'abc123' } }), 400, 'VALIDATION_FAILED', /full 40-character/],
      [bashBody(w, { project: '0123456789abcdef01234567' }), 404, 'PROJECT_NOT_FOUND', /Project/],
      [bashBody(w, { workflow: '0123456789abcdef01234567' }), 404, 'WORKFLOW_NOT_FOUND', /Workflow/],
      [bashBody(w, { batch: { enabled: true, jobQueue: foreignQueue } }), 404, 'QUEUE_NOT_FOUND', /queue/],
      [bashBody(w, { command: undefined }), 400, 'VALIDATION_FAILED', /command is required/],
      [nextflowBody(w, { command: 'echo' }), 400, 'VALIDATION_FAILED', /only for container workflows/],
      [bashBody(w, { project: 'not-an-id' }), 400, 'VALIDATION_FAILED', /project/],
      [bashBody(w, { name: '' }), 400, 'VALIDATION_FAILED', /name/],
      [bashBody(w, { parameters: [{ name: 'x', parameterKind: 'textValue' }] }), 400, 'VALIDATION_FAILED', /textValue/],
      [bashBody(w, { parameters: [{ name: 'x', parameterKind: 'magic' }] }), 400, 'VALIDATION_FAILED', /parameterKind/],
      [bashBody(w, { execution: { computeCostLimit: -5 } }), 400, 'VALIDATION_FAILED', /computeCostLimit/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await submit(w, body);
      assert.match(assertError(r, status, code), message);
    }
    const r = await submit(w, bashBody(w), other);
    assertError(r, 404, 'PROJECT_NOT_FOUND');
    assert.equal(await jobCount(w), before);
  });

  it('refuses a job on an archived workflow', async () => {
    await call(w.s, 'PUT', `/api/runyard/workflows/${w.bashWorkflowId}/archive?teamId=${w.ws}`);
    assertError(await submit(w, bashBody(w)), 400, 'VALIDATION_FAILED');
    await call(w.s, 'PUT', `/api/runyard/workflows/${w.bashWorkflowId}/unarchive?teamId=${w.ws}`);
  });

  it('keeps the original body for request-payload, with _id and resourceId', async () => {
    const body = bashBody(w, { name: 'payload-job', extraKeyFromANewerClient: true });
    const id = (await submit(w, body)).json().jobId;
    const payload = (await call(w.s, 'GET', `/api/v1/jobs/${id}/request-payload?teamId=${w.ws}`)).json();
    assert.equal(payload._id, id);
    assert.equal(payload.resourceId, id);
    const { _id, resourceId, ...rest } = payload;
    assert.ok(_id && resourceId);
    assert.deepEqual(rest, body);
  });

  it('counts jobs on the project', async () => {
    const projects = (await call(w.s, 'GET', `/api/v2/projects?teamId=${w.ws}&search=demo`)).json().projects;
    assert.equal(projects[0].jobCount, await jobCount(w));
  });

  it('200 parallel submissions make 200 distinct jobs (T2)', async () => {
    const before = await jobCount(w);
    const replies = await Promise.all(Array.from({ length: 200 }, (_, i) => submit(w, bashBody(w, { name: `parallel-${i}` }))));
    assert.ok(replies.every((r) => r.statusCode === 200));
    assert.equal(new Set(replies.map((r) => r.json().jobId)).size, 200);
    assert.equal(await jobCount(w), before + 200);
  });
});
