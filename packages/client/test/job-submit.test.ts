import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RunyardValueError, type JobQueue } from '@runyard/client';
import { jobWorld, type JobWorld } from './job-world.js';

describe('SDK send_job against a real server', () => {
  let w: JobWorld;
  let dir: string;
  let defaultQueue: JobQueue;
  let fastQueue: JobQueue;
  before(async () => {
    w = await jobWorld();
    dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-job-config-'));
    defaultQueue = (await w.client.getJobQueues(w.ws, { excludeSystemQueues: true })).find((q) => q.name === 'default')!;
    fastQueue = await w.client.request<JobQueue>('POST', '/api/runyard/admin/queues', {
      body: { workspaceId: w.ws, name: 'fast', label: 'Fast lane' },
    });
  });
  after(async () => {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const payload = (id: string) => w.client.getJobRequestPayload(id, w.ws);
  const doc = (id: string) => w.client.getJobStatus(id, w.ws);

  it('runs a Nextflow job with the request sequence of `job run` and the body of convert_nextflow_to_json', async () => {
    const n = w.proxy.requests.length;
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      parameters: ['reads=s3://bucket/reads/*.fq'],
    });
    assert.match(jobId, /^[0-9a-f]{24}$/);
    const ws = w.ws;
    assert.deepEqual(w.since(n), [
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy&pageSize=1`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy&pageSize=1`,
      `GET /api/v2/projects?teamId=${ws}&search=demo`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy&pageSize=1`,
      `GET /api/v1/teams/aws/v2/job-queues?teamId=${ws}`,
      `GET /api/v1/teams/aws/v2/system-job-queues?teamId=${ws}`,
      `POST /api/v2/jobs?teamId=${ws}`,
    ]);
    const body = await payload(jobId);
    assert.deepEqual(body.parameters, [{ prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://bucket/reads/*.fq' }]);
    assert.equal(body.project, w.projectId);
    assert.equal(body.workflow, w.nextflowWorkflowId);
    assert.equal(body.name, 'new_job');
    assert.equal(body.nextflowVersion, '24.04.4');
    assert.equal(body.resumable, false);
    assert.equal(body.saveProcessLogs, true);
    assert.equal(body.executionPlatform, 'aws');
    assert.equal(body.hpc, null);
    assert.equal(body.storageSizeInGb, 500);
    assert.deepEqual(body.execution, { computeCostLimit: 30, optim: 'test' });
    assert.equal(body.instanceType, 'c5.xlarge');
    assert.deepEqual(body.masterInstance, { requestedInstance: { type: 'c5.xlarge' } });
    assert.deepEqual(body.batch, { dockerLogin: false, enabled: true, jobQueue: defaultQueue.id });
    assert.ok(!('revision' in body) && !('command' in body));
    const job = await doc(jobId);
    assert.equal(job.status, 'queued');
    assert.equal(job.jobType, 'nextflowAWS');
    assert.deepEqual(job.revision, { revisionType: 'branch', commit: w.heads.main, tag: null, branch: 'main' });
  });

  it('takes the job-config file first, then -p (which replaces a pair of the same name); list-like values warn', async () => {
    const config = path.join(dir, 'rnatoy.config');
    writeFileSync(
      config,
      [
        '// rnatoy',
        'params {',
        '  reads = s3://bucket/reads/*.fq   // the reads',
        '  genome = "hg38"',
        '  flag = true',
        '  list = [1, 2]',
        '}',
        '',
      ].join('\n'),
    );
    const warnings: string[] = [];
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      jobConfig: config,
      parameters: ['genome=hg19', '-single=x=y'],
      jobName: 'configured',
      onWarning: (m) => warnings.push(m),
    });
    assert.deepEqual((await payload(jobId)).parameters, [
      { prefix: '--', name: 'reads', parameterKind: 'textValue', textValue: 's3://bucket/reads/*.fq' },
      { prefix: '--', name: 'genome', parameterKind: 'textValue', textValue: 'hg19' },
      { prefix: '--', name: 'flag', parameterKind: 'textValue', textValue: 'true' },
      { prefix: '--', name: 'list', parameterKind: 'textValue', textValue: '[1, 2]' },
      { prefix: '-', name: 'single', parameterKind: 'textValue', textValue: 'x=y' },
    ]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /looks like a list/);
    await assert.rejects(
      w.client.sendJob({ workspaceId: w.ws, projectName: 'demo', workflowName: 'rnatoy', jobConfig: path.join(dir, 'missing.config') }),
      (e: unknown) => e instanceof RunyardValueError && /does not exist/.test(e.message),
    );
  });

  it('sends a git branch, tag or commit, and the server resolves each to its commit', async () => {
    const run = async (rev: { gitBranch?: string; gitTag?: string; gitCommit?: string }) => {
      const id = await w.client.sendJob({
        workspaceId: w.ws,
        projectName: 'demo',
        workflowName: 'rnatoy',
        workflowType: 'nextflow',
        isModule: false,
        ...rev,
      });
      return { body: await payload(id), job: await doc(id) };
    };
    const branch = await run({ gitBranch: 'dev' });
    assert.deepEqual(branch.body.revision, { revisionType: 'branch', tag: null, commit: null, branch: 'dev' });
    assert.equal((branch.job.revision as { commit: string }).commit, w.heads.dev);
    const tag = await run({ gitTag: 'v1.0' });
    assert.deepEqual(tag.body.revision, { revisionType: 'tag', tag: 'v1.0', commit: null, branch: null });
    assert.equal((tag.job.revision as { commit: string }).commit, w.heads.main);
    const commit = await run({ gitCommit: w.heads.dev });
    assert.deepEqual(commit.job.revision, { revisionType: 'commit', commit: w.heads.dev, tag: null, branch: null });
    const n = w.proxy.requests.length;
    await assert.rejects(
      w.client.sendJob({ workspaceId: w.ws, projectName: 'demo', workflowName: 'rnatoy', gitTag: 'v1.0', gitBranch: 'dev' }),
      (e: unknown) => e instanceof RunyardValueError && /only one of --git-tag, --git-branch or --git-commit/.test(e.message),
    );
    assert.equal(w.proxy.requests.length, n, 'nothing is asked of the server');
  });

  it('puts the job on the queue whose label is given, and on the default one with a warning when no label matches', async () => {
    const named = await w.client.sendJob({ workspaceId: w.ws, projectName: 'demo', workflowName: 'rnatoy', jobQueue: 'Fast lane' });
    assert.equal(((await payload(named)).batch as { jobQueue: string }).jobQueue, fastQueue.id);
    assert.equal(((await doc(named)).batch as { jobQueue: { id: string } }).jobQueue.id, fastQueue.id);

    const warnings: string[] = [];
    const fallback = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      jobQueue: 'nope',
      onWarning: (m) => warnings.push(m),
    });
    assert.equal(((await payload(fallback)).batch as { jobQueue: string }).jobQueue, defaultQueue.id);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /Queue 'nope' you specified was not found, using the default queue 'default' instead/);
  });

  it('fetch_job_queue_id: none without batch, the default of the executor, a label, and the default with a warning', async () => {
    let n = w.proxy.requests.length;
    assert.equal(await w.client.fetchJobQueueId(w.ws, { workflowType: 'nextflow', batch: false }), null);
    assert.equal(w.proxy.requests.length, n, 'no call when batch is false');
    assert.equal(await w.client.fetchJobQueueId(w.ws, { workflowType: 'nextflow' }), defaultQueue.id);
    assert.deepEqual(w.since(n), [
      `GET /api/v1/teams/aws/v2/job-queues?teamId=${w.ws}`,
      `GET /api/v1/teams/aws/v2/system-job-queues?teamId=${w.ws}`,
    ]);
    const wdlQueue = (await w.client.getJobQueues(w.ws)).find((q) => q.executor === 'cromwell')!;
    assert.equal(await w.client.fetchJobQueueId(w.ws, { workflowType: 'wdl' }), wdlQueue.id);
    assert.equal(await w.client.fetchJobQueueId(w.ws, { workflowType: 'nextflow', jobQueue: 'Fast lane' }), fastQueue.id);
    assert.equal(
      await w.client.fetchJobQueueId(w.ws, { workflowType: 'nextflow', jobQueue: 'fast' }),
      defaultQueue.id,
      'matched on the label only',
    );
    await assert.rejects(w.client.fetchJobQueueId(w.ws, { workflowType: 'docker' }), RunyardValueError);
    n = w.proxy.requests.length;
    assert.equal((await w.client.getJobQueues(w.ws, { excludeSystemQueues: true })).length, 3);
    assert.equal(w.since(n).length, 1);
    assert.deepEqual(
      (await w.client.getJobQueues(w.ws)).map((q) => q.resourceType),
      ['teamBatchJobQueue', 'teamBatchJobQueue', 'teamBatchJobQueue', 'systemBatchJobQueue'],
    );
  });

  it('runs a bash job: project and workflow lookups, then the POST, with command and resources and no Nextflow version', async () => {
    const n = w.proxy.requests.length;
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'echo hi',
      parameters: ['--test=value', '-test2=value2', 'test3=value3', 'remote=s3://bucket/file.txt', 'other=Project/Data/noext'],
      cpus: 2,
      memory: 8,
    });
    const ws = w.ws;
    assert.deepEqual(w.since(n), [
      `GET /api/v2/projects?teamId=${ws}&search=demo`,
      `GET /api/v3/workflows?teamId=${ws}&search=ubuntu`,
      `GET /api/v3/workflows?teamId=${ws}&search=ubuntu&pageSize=1`,
      `POST /api/v2/jobs?teamId=${ws}`,
    ]);
    const body = await payload(jobId);
    assert.deepEqual(body.parameters, [
      { prefix: '--', name: 'test', parameterKind: 'textValue', textValue: 'value' },
      { prefix: '-', name: 'test2', parameterKind: 'textValue', textValue: 'value2' },
      { prefix: '', name: 'test3', parameterKind: 'textValue', textValue: 'value3' },
      { prefix: '', name: 'remote', parameterKind: 'textValue', textValue: 's3://bucket/file.txt' },
      { prefix: '', name: 'other', parameterKind: 'textValue', textValue: 'Project/Data/noext' },
    ]);
    assert.equal(body.command, 'echo hi');
    assert.deepEqual(body.resourceRequirements, { cpu: 2, ram: 8 });
    assert.deepEqual(body.batch, { enabled: false });
    assert.equal(body.resumable, false);
    assert.ok(!('nextflowVersion' in body));
    const job = await doc(jobId);
    assert.equal(job.jobType, 'dockerAWS');
    assert.equal(job.command, 'echo hi');
  });

  it('a bash job asks for the queues only with a job queue, and then runs as a batch job on it', async () => {
    const n = w.proxy.requests.length;
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'true',
      jobQueue: 'Fast lane',
    });
    assert.ok(w.since(n).includes(`GET /api/v1/teams/aws/v2/job-queues?teamId=${w.ws}`));
    const body = await payload(jobId);
    assert.deepEqual(body.batch, { dockerLogin: false, enabled: true, jobQueue: fastQueue.id });
    assert.equal(body.command, 'true', 'a command "true" stays text');
  });

  it('detects a container workflow by itself when no type is given', async () => {
    const jobId = await w.client.sendJob({ workspaceId: w.ws, projectName: 'demo', workflowName: 'ubuntu', command: 'ls' });
    assert.equal((await doc(jobId)).jobType, 'dockerAWS');
  });

  it('keeps a job named "true" a string, and string booleans of parameters text', async () => {
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      jobName: 'true',
      parameters: ['flag=False'],
    });
    const body = await payload(jobId);
    assert.equal(body.name, 'true');
    assert.equal((await doc(jobId)).name, 'true');
    assert.deepEqual(body.parameters, [{ prefix: '--', name: 'flag', parameterKind: 'textValue', textValue: 'False' }]);
  });

  it('passes the launch options through: profile, version, cost limit, instance, disk, resumable, logs, params file', async () => {
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      nextflowProfile: 'test,docker',
      nextflowVersion: 'latest',
      costLimit: -1,
      instanceType: 'm5.large',
      instanceDisk: 100,
      resumable: true,
      saveLogs: false,
      paramsFile: 's3://my-bucket/path/to/params.json',
    });
    const body = await payload(jobId);
    assert.equal(body.profile, 'test,docker');
    assert.equal(body.nextflowVersion, '25.10.4');
    assert.deepEqual(body.execution, { computeCostLimit: -1, optim: 'test' });
    assert.equal(body.instanceType, 'm5.large');
    assert.deepEqual(body.masterInstance, { requestedInstance: { type: 'm5.large' } });
    assert.equal(body.storageSizeInGb, 100);
    assert.equal(body.resumable, true);
    assert.equal(body.saveProcessLogs, false);
    assert.deepEqual(body.parametersFile, {
      dataItemEmbedded: { data: { name: 'params.json', s3BucketName: 'my-bucket', s3ObjectKey: 'path/to/params.json' }, type: 'S3File' },
    });
  });

  it('gives a platform module no queue and its own Nextflow version, with warnings', async () => {
    const moduleId = await w.client.importWorkflow(w.ws, { workflowUrl: 'https://github.com/acme/rnatoy', workflowName: 'qc-module' });
    await w.s.store.db.updateTable('workflows').set({ group_name: 'system-tools' }).where('id', '=', moduleId).execute();
    const warnings: string[] = [];
    const n = w.proxy.requests.length;
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'qc-module',
      jobQueue: 'Fast lane',
      nextflowVersion: '24.04.4',
      onWarning: (m) => warnings.push(m),
    });
    assert.ok(!w.since(n).some((r) => r.includes('job-queues')), 'no queue lookup for a module');
    const body = await payload(jobId);
    assert.deepEqual(body.batch, { enabled: true });
    assert.equal(body.nextflowVersion, '22.10.8');
    assert.equal(warnings.length, 2);
    assert.match(warnings.join('\n'), /platform module, which runs on its own queue/);
    assert.match(warnings.join('\n'), /only runs with Nextflow 22\.10\.8/);
    assert.equal(((await doc(jobId)).batch as { jobQueue: { name: string } }).jobQueue.name, 'system');
  });

  it('refuses what it cannot send with a clear RunyardValueError, and creates nothing', async () => {
    const count = async () => (await w.client.getJobList(w.ws, { lastNJobs: 'all' })).jobs.length;
    const before = await count();
    const cases: [Parameters<typeof w.client.sendJob>[0], RegExp][] = [
      [
        {
          workspaceId: w.ws,
          projectName: 'demo',
          workflowName: 'ubuntu',
          workflowType: 'docker',
          command: 'ls',
          parameters: ['input=Data/reads/sample.fq'],
        },
        /'reads' not found|sample\.fq' not found/,
      ],
      [
        {
          workspaceId: w.ws,
          projectName: 'demo',
          workflowName: 'ubuntu',
          workflowType: 'docker',
          command: 'ls',
          parameters: ['input=Data/reads/*.fq'],
        },
        /Folder 'reads' not found|'reads' not found/,
      ],
      [
        { workspaceId: w.ws, projectName: 'demo', workflowName: 'rnatoy', paramsFile: 'Data/params.json' },
        /File 'params\.json' not found in directory 'Data'/,
      ],
      [{ workspaceId: w.ws, projectName: 'nope', workflowName: 'rnatoy' }, /Project 'nope' was not found/],
      [{ workspaceId: w.ws, projectName: 'demo', workflowName: 'nope' }, /No workflow found with name "nope"/],
      [{ workspaceId: w.ws, projectName: 'demo', workflowName: 'rnatoy', nextflowVersion: '1.0' }, /Unsupported Nextflow version '1.0'/],
      [{ workspaceId: w.ws, projectName: 'demo', workflowName: 'rnatoy', parameters: ['novalue'] }, /using a single '=' as spacer/],
      [{ workspaceId: w.ws, projectName: 'demo', workflowName: 'ubuntu', workflowType: 'docker' }, /needs a command/],
      [{ workspaceId: '', projectName: 'demo', workflowName: 'rnatoy' }, /workspace_id/],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(
        w.client.sendJob(options),
        (e: unknown) => e instanceof RunyardValueError && message.test(e.message),
        String(message),
      );
    }
    assert.equal(await count(), before);
  });
});
