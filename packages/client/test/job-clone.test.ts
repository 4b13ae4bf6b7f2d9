import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NotFoundError, RunyardValueError, type JobQueue } from '@runyard/client';
import { jobWorld, type JobWorld } from './job-world.js';

describe('SDK clone_or_resume_job against a real server', () => {
  let w: JobWorld;
  let ws: string;
  let fast: JobQueue;
  let otherProjectId: string;
  const nextflow = (extra: Record<string, unknown> = {}) =>
    w.client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      workflowType: 'nextflow',
      isModule: false,
      jobName: 'original',
      parameters: ['reads=s3://bucket/reads/*.fq', 'genome=hg38'],
      nextflowProfile: 'standard',
      ...extra,
    });
  const count = async () => (await w.client.getJobList(ws, { lastNJobs: 'all' })).jobs.length;
  before(async () => {
    w = await jobWorld();
    ws = w.ws;
    fast = await w.client.request<JobQueue>('POST', '/api/runyard/admin/queues', {
      body: { workspaceId: ws, name: 'fast', label: 'Fast lane' },
    });
    otherProjectId = await w.client.createProject(ws, 'other');
  });
  after(() => w.close());

  it('clones a job as it was: request payload, revision from the job document, POST', async () => {
    const source = await nextflow();
    const n = w.proxy.requests.length;
    const cloneId = await w.client.cloneOrResumeJob({ workspaceId: ws, sourceJobId: source });
    assert.notEqual(cloneId, source);
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${source}/request-payload?teamId=${ws}`,
      `GET /api/v1/jobs/${source}?teamId=${ws}`,
      `POST /api/v2/jobs?teamId=${ws}`,
    ]);
    const original = await w.client.getJobRequestPayload(source, ws);
    const copy = await w.client.getJobRequestPayload(cloneId, ws);
    const strip = (p: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(p).filter(([k]) => !['_id', 'resourceId', 'revision'].includes(k)));
    assert.deepEqual(strip(copy), strip(original));
    assert.deepEqual(copy.revision, { revisionType: 'branch', tag: null, commit: null, branch: 'main' });
    const job = await w.client.getJobStatus(cloneId, ws);
    assert.equal(job.name, 'original');
    assert.equal((job.revision as { commit: string }).commit, w.heads.main);
  });

  it('clones with overrides: name, cost limit, instance, version, profile, params, branch, queue and project', async () => {
    const source = await nextflow({ gitTag: 'v1.0' });
    const n = w.proxy.requests.length;
    const warnings: string[] = [];
    const cloneId = await w.client.cloneOrResumeJob({
      workspaceId: ws,
      sourceJobId: source,
      mode: 'clone',
      jobName: 'cloned',
      costLimit: 12.5,
      masterInstance: 'm5.2xlarge',
      nextflowVersion: '25.04.8',
      profile: 'test,docker',
      parameters: ['genome=hg19', '--extra=1', 'reads=s3://other/reads'],
      branch: 'dev',
      queueName: 'Fast lane',
      projectName: 'other',
      resumable: true,
      accelerateSavingResults: true,
      onWarning: (m) => warnings.push(m),
    });
    const wf = await w.client.getWorkflowContent(ws, 'rnatoy');
    assert.deepEqual(w.since(n).slice(0, 2), [
      `GET /api/v1/jobs/${source}/request-payload?teamId=${ws}`,
      `GET /api/v1/jobs/${source}?teamId=${ws}`,
    ]);
    assert.match(
      w.since(n)[2],
      new RegExp(
        `^GET /api/v1/git/github/getBranches\\?repositoryIdentifier=${wf.repository!.repositoryId}&owner=acme&workflowOwnerId=${wf.owner.id}&branchName=&page=1&limit=100&teamId=${ws}$`,
      ),
    );
    assert.deepEqual(w.since(n).slice(3, 8), [
      `GET /api/v1/teams/aws/v2/job-queues?teamId=${ws}`,
      `GET /api/v1/teams/aws/v2/system-job-queues?teamId=${ws}`,
      `GET /api/v2/projects?teamId=${ws}&search=other`,
      `POST /api/v2/jobs?teamId=${ws}`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy`,
    ]);
    assert.deepEqual(warnings, []);
    const body = await w.client.getJobRequestPayload(cloneId, ws);
    assert.equal(body.name, 'cloned');
    assert.deepEqual(body.execution, { computeCostLimit: 12.5, optim: 'test' });
    assert.deepEqual(body.masterInstance, { requestedInstance: { type: 'm5.2xlarge' } });
    assert.equal(body.nextflowVersion, '25.04.8');
    assert.equal(body.profile, 'test,docker');
    assert.equal(body.project, otherProjectId);
    assert.equal(body.resumable, true);
    assert.equal(body.accelerateSavingResults, true);
    assert.deepEqual(body.batch, { dockerLogin: false, enabled: true, jobQueue: fast.id });
    assert.deepEqual(body.revision, { revisionType: 'branch', branch: 'dev' });
    assert.deepEqual(body.parameters, [
      { prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://other/reads' },
      { prefix: '--', name: 'genome', parameterKind: 'textValue', textValue: 'hg19' },
      { prefix: '--', name: 'extra', parameterKind: 'textValue', textValue: '1' },
    ]);
    const job = await w.client.getJobStatus(cloneId, ws);
    assert.equal((job.revision as { commit: string }).commit, w.heads.dev);
    assert.equal((job.project as { name: string }).name, 'other');
    assert.equal((job.batch as { jobQueue: { label: string } }).jobQueue.label, 'Fast lane');
  });

  it('clones a bash job with batch reset, and keeps text fields text when fixing string booleans', async () => {
    const source = await w.client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'echo hi',
      jobQueue: 'Fast lane',
    });
    const row = await w.s.store.db.selectFrom('jobs').select('request_json').where('id', '=', source).executeTakeFirstOrThrow();
    const stored = JSON.parse(row.request_json);
    await w.s.store.db
      .updateTable('jobs')
      .set({
        request_json: JSON.stringify({
          ...stored,
          name: 'false',
          command: 'true',
          saveProcessLogs: 'True',
          parameters: [{ prefix: '--', name: 'flag', parameterKind: 'textValue', textValue: 'true' }],
        }),
      })
      .where('id', '=', source)
      .execute();
    const cloneId = await w.client.cloneOrResumeJob({ workspaceId: ws, sourceJobId: source });
    const body = await w.client.getJobRequestPayload(cloneId, ws);
    assert.equal(body.name, 'false');
    assert.equal(body.command, 'true');
    assert.equal(body.saveProcessLogs, true);
    assert.deepEqual(body.parameters, [{ prefix: '--', name: 'flag', parameterKind: 'textValue', textValue: 'true' }]);
    assert.deepEqual(body.batch, { enabled: false });
    assert.equal((await w.client.getJobStatus(cloneId, ws)).jobType, 'dockerAWS');
  });

  it('resumes a finished resumable job with its work directory; a running one or one without a work directory is refused', async () => {
    // A job that was not resumable has no resumeWorkDir.
    const plain = await nextflow({ jobName: 'not-resumable' });
    await w.setStatus(plain, 'completed');
    await assert.rejects(
      w.client.cloneOrResumeJob({ workspaceId: ws, sourceJobId: plain, mode: 'resume' }),
      (e: unknown) => e instanceof RunyardValueError && e.message === 'The job was not set as resumable when originally run',
    );
    const source = await nextflow({ resumable: true, jobName: 'resumable' });
    // A resumable job's resumeWorkDir is its work directory's File Explorer folder.
    const workDir = (await w.client.getJobStatus(source, ws)).resumeWorkDir as string;
    assert.match(workDir, /^[0-9a-f]{24}$/);
    await w.setStatus(source, 'running');
    await assert.rejects(
      w.client.cloneOrResumeJob({ workspaceId: ws, sourceJobId: source, mode: 'resume' }),
      (e: unknown) =>
        e instanceof RunyardValueError &&
        /has status 'running'; only jobs with status completed, failed, aborted can be resumed/.test(e.message),
    );
    await w.setStatus(source, 'completed');
    const n = w.proxy.requests.length;
    const warnings: string[] = [];
    const resumed = await w.client.cloneOrResumeJob({
      workspaceId: ws,
      sourceJobId: source,
      mode: 'resume',
      jobName: 'resumed',
      resumable: true,
      onWarning: (m) => warnings.push(m),
    });
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${source}/request-payload?teamId=${ws}`,
      `GET /api/v1/jobs/${source}?teamId=${ws}`,
      `GET /api/v1/jobs/${source}?teamId=${ws}`,
      `GET /api/v1/jobs/${source}?teamId=${ws}`,
      `POST /api/v2/jobs?teamId=${ws}`,
    ]);
    assert.match(warnings.join('\n'), /only applies when cloning/);
    const body = await w.client.getJobRequestPayload(resumed, ws);
    assert.equal(body.resumeWorkDir, workDir);
    assert.equal(body.name, 'resumed');
    assert.equal((await w.client.getJobStatus(resumed, ws)).resumeWorkDir, workDir, 'the resumed job shares the work directory');
  });

  it('refuses a bad queue, branch, project or source job clearly, and creates nothing', async () => {
    const source = await nextflow();
    const before = await count();
    const cases: [Record<string, unknown>, (e: unknown) => boolean][] = [
      [{ queueName: 'nope' }, (e) => e instanceof RunyardValueError && e.message === `Queue 'nope' not found in workspace '${ws}'.`],
      [
        { branch: 'nope' },
        (e) => e instanceof RunyardValueError && /Branch 'nope' not found .*Available branches: dev, main/.test((e as Error).message),
      ],
      [{ projectName: 'nope' }, (e) => e instanceof RunyardValueError && /Project 'nope' was not found/.test((e as Error).message)],
      [{ parameters: ['novalue'] }, (e) => e instanceof RunyardValueError && /single '=' as spacer/.test((e as Error).message)],
      [{ sourceJobId: '0123456789abcdef01234567' }, (e) => e instanceof NotFoundError],
      [{ mode: 'restart' }, (e) => e instanceof RunyardValueError && /mode must be 'clone' or 'resume'/.test((e as Error).message)],
    ];
    for (const [extra, check] of cases) {
      await assert.rejects(w.client.cloneOrResumeJob({ workspaceId: ws, sourceJobId: source, ...extra }), check, JSON.stringify(extra));
    }
    assert.equal(await count(), before);
  });
});
