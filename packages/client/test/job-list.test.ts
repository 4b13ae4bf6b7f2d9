import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processJobList, reorderJobList, RunyardClient, RunyardValueError, saveJobListToCsv, type JobQueue } from '@runyard/client';
import { jobWorld, type JobWorld } from './job-world.js';

describe('SDK get_job_list against a real server', () => {
  let w: JobWorld;
  let ws: string;
  let fast: JobQueue;
  let otherProjectId: string;
  let bobId: string;
  let bob: RunyardClient;
  const ids: Record<string, string> = {};
  let dir: string;

  before(async () => {
    w = await jobWorld();
    ws = w.ws;
    dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-job-list-'));
    fast = await w.client.request<JobQueue>('POST', '/api/runyard/admin/queues', {
      body: { workspaceId: ws, name: 'fast', label: 'Fast lane' },
    });
    otherProjectId = await w.client.createProject(ws, 'other');
    const user = await w.client.admin.createUser({ username: 'bob', email: 'bob@example.org', name: 'Bob', surname: 'Builder' });
    bobId = user.id;
    await w.client.admin.addMember(ws, bobId, 'member');
    bob = new RunyardClient({ platformUrl: w.proxy.url, apikey: (await w.client.admin.createApiKey(bobId)).apikey });
    const nf = { workspaceId: ws, projectName: 'demo', workflowName: 'rnatoy', workflowType: 'nextflow', isModule: false } as const;
    const bash = { workspaceId: ws, workflowName: 'ubuntu', workflowType: 'docker', command: 'ls' } as const;
    // Oldest first; the server lists newest first.
    ids.archived = await w.client.sendJob({ ...nf, jobName: 'old-archived' });
    ids.alpha1 = await w.client.sendJob({ ...nf, jobName: 'alpha-1' });
    ids.alpha2 = await w.client.sendJob({ ...nf, jobName: 'Alpha-2', jobQueue: 'Fast lane' });
    ids.beta = await w.client.sendJob({ ...bash, projectName: 'other', jobName: 'beta' });
    ids.bob = await bob.sendJob({ ...bash, projectName: 'demo', jobName: 'bob-job' });
    await w.client.archiveJobs([ids.archived], ws);
    await w.setStatus(ids.alpha2, 'running');
    await w.setStatus(ids.beta, 'completed');
    await w.setStatus(ids.bob, 'failed');
  });
  after(async () => {
    bob.close();
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const names = (jobs: { name: string }[]) => jobs.map((j) => j.name);

  it('last_n_jobs=1 sends exactly teamId, archived.status=false, limit=1, page=1 and returns the newest job', async () => {
    const n = w.proxy.requests.length;
    const r = await w.client.getJobList(ws, { lastNJobs: 1 });
    assert.deepEqual(w.since(n), [`GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=1&page=1`]);
    assert.deepEqual(names(r.jobs), ['bob-job']);
    assert.equal(r.paginationMetadata?.['Pagination-Count'], 4);
    assert.equal(r.paginationMetadata?.['Pagination-Limit'], 1);
  });

  it('page mode sends limit=page size and the page, in one request', async () => {
    let n = w.proxy.requests.length;
    const first = await w.client.getJobList(ws);
    assert.deepEqual(w.since(n), [`GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=10&page=1`]);
    assert.deepEqual(names(first.jobs), ['bob-job', 'beta', 'Alpha-2', 'alpha-1']);
    assert.deepEqual(first.paginationMetadata, {
      'Pagination-Count': 4,
      'Pagination-Page': 1,
      'Pagination-Limit': 10,
      'Pagination-Completed-Count': 1,
    });
    n = w.proxy.requests.length;
    const second = await w.client.getJobList(ws, { page: 2, pageSize: 2 });
    assert.deepEqual(w.since(n), [`GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=2&page=2`]);
    assert.deepEqual(names(second.jobs), ['Alpha-2', 'alpha-1']);
    n = w.proxy.requests.length;
    assert.deepEqual(names((await w.client.getJobList(ws, { page: 3, pageSize: 2 })).jobs), []);
    assert.equal(w.since(n).length, 1);
  });

  it('last_n_jobs ignores page and page size, and stops as soon as it has enough', async () => {
    const n = w.proxy.requests.length;
    const r = await w.client.getJobList(ws, { lastNJobs: 3, page: 5, pageSize: 1 });
    assert.deepEqual(w.since(n), [`GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=3&page=1`]);
    assert.deepEqual(names(r.jobs), ['bob-job', 'beta', 'Alpha-2']);
  });

  it('adds each server-side filter to the query, resolving names to ids first', async () => {
    const check = async (options: Parameters<typeof w.client.getJobList>[1], calls: string[], expected: string[]) => {
      const n = w.proxy.requests.length;
      const r = await w.client.getJobList(ws, options);
      assert.deepEqual(w.since(n), calls);
      assert.deepEqual(names(r.jobs), expected);
    };
    const base = `/api/v2/jobs?teamId=${ws}&archived.status=false&limit=10&page=1`;
    await check({ filterStatus: 'RUNNING' }, [`GET ${base}&status=running`], ['Alpha-2']);
    await check({ filterStatus: 'completed' }, [`GET ${base}&status=completed`], ['beta']);
    await check({ filterJobName: 'ALPHA' }, [`GET ${base}&name=ALPHA`], ['Alpha-2', 'alpha-1']);
    await check({ filterJobId: ids.alpha1 }, [`GET ${base}&id=${ids.alpha1}`], ['alpha-1']);
    await check(
      { filterProject: 'other' },
      [`GET /api/v2/projects?teamId=${ws}&search=other`, `GET ${base}&project.id=${otherProjectId}`],
      ['beta'],
    );
    await check(
      { filterWorkflow: 'rnatoy' },
      [
        `GET /api/v3/workflows?teamId=${ws}&search=rnatoy`,
        `GET /api/v3/workflows?teamId=${ws}&search=rnatoy&pageSize=1`,
        `GET ${base}&workflow.id=${w.nextflowWorkflowId}`,
      ],
      ['Alpha-2', 'alpha-1'],
    );
    await check(
      { filterOnlyMine: true },
      [`GET /api/v1/users/me`, `GET ${base}&user.id=${w.s.admin.userId}`],
      ['beta', 'Alpha-2', 'alpha-1'],
    );
    await check(
      { filterOwner: 'bob' },
      [`GET /api/v1/users/search-assist?q=bob&teamId=${ws}`, `GET ${base}&user.id=${bobId}`],
      ['bob-job'],
    );
    await check({ archived: true }, [`GET /api/v2/jobs?teamId=${ws}&archived.status=true&limit=10&page=1`], ['old-archived']);
    await check(
      { filterStatus: 'running', filterJobName: 'alpha', filterProject: 'demo' },
      [`GET /api/v2/projects?teamId=${ws}&search=demo`, `GET ${base}&status=running&name=alpha&project.id=${w.projectId}`],
      ['Alpha-2'],
    );
  });

  it('filters by queue on the client: label or name, through both queue lists, with its own pagination metadata', async () => {
    let n = w.proxy.requests.length;
    const r = await w.client.getJobList(ws, { filterQueue: 'Fast lane' });
    assert.deepEqual(w.since(n), [
      `GET /api/v1/teams/aws/v2/job-queues?teamId=${ws}`,
      `GET /api/v1/teams/aws/v2/system-job-queues?teamId=${ws}`,
      `GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=100&page=1`,
    ]);
    assert.deepEqual(names(r.jobs), ['Alpha-2']);
    assert.equal((r.jobs[0].batch as { jobQueue: { id: string } }).jobQueue.id, fast.id);
    assert.deepEqual(r.paginationMetadata, { 'Pagination-Count': 1, 'Pagination-Page': 1, 'Pagination-Limit': 10, _client_filtered: true });

    assert.deepEqual(names((await w.client.getJobList(ws, { filterQueue: 'default' })).jobs), ['bob-job', 'beta', 'alpha-1']);
    const paged = await w.client.getJobList(ws, { filterQueue: 'default', page: 2, pageSize: 2 });
    assert.deepEqual(names(paged.jobs), ['alpha-1']);
    assert.deepEqual(paged.paginationMetadata, {
      'Pagination-Count': 3,
      'Pagination-Page': 2,
      'Pagination-Limit': 2,
      _client_filtered: true,
    });

    n = w.proxy.requests.length;
    const last = await w.client.getJobList(ws, { filterQueue: 'fast', lastNJobs: 1 });
    assert.deepEqual(names(last.jobs), ['Alpha-2']);
    assert.deepEqual(w.since(n).slice(2), [
      `GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=1&page=1`,
      `GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=1&page=2`,
      `GET /api/v2/jobs?teamId=${ws}&archived.status=false&limit=1&page=3`,
    ]);
    assert.deepEqual(last.paginationMetadata, {
      'Pagination-Count': 1,
      'Pagination-Page': 1,
      'Pagination-Limit': 1,
      _client_filtered: true,
    });

    assert.deepEqual((await w.client.getJobList(ws, { filterQueue: 'system' })).jobs, [], 'system queues are found too');
    await assert.rejects(
      w.client.getJobList(ws, { filterQueue: 'nope' }),
      (e: unknown) => e instanceof RunyardValueError && e.message === `Queue with name 'nope' not found in workspace '${ws}'`,
    );
  });

  it('refuses bad options before asking the server', async () => {
    const n = w.proxy.requests.length;
    const cases: [Parameters<typeof w.client.getJobList>[1], RegExp][] = [
      [{ pageSize: 101 }, /page_size must be an integer from 1 to 100/],
      [{ pageSize: 0 }, /page_size/],
      [{ page: 0 }, /page must be a positive integer/],
      [{ lastNJobs: 0 }, /last_n_jobs must be a positive integer or 'all'/],
      [{ lastNJobs: 'some' as 'all' }, /last_n_jobs/],
      [
        { filterStatus: 'done' },
        /Invalid filter_status 'done'. Valid values: completed, running, failed, aborted, queued, pending, initializing/,
      ],
      [{ filterOnlyMine: true, filterOwner: 'bob' }, /cannot be used together/],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(
        w.client.getJobList(ws, options),
        (e: unknown) => e instanceof RunyardValueError && message.test(e.message),
        String(message),
      );
    }
    await assert.rejects(w.client.getJobList('', {}), RunyardValueError);
    assert.equal(w.proxy.requests.length, n);
    await assert.rejects(w.client.getJobList(ws, { filterProject: 'nope' }), /Project 'nope' was not found/);
  });

  it('pages through more than 100 jobs for last_n_jobs all or above 100, and cuts at N', async () => {
    const other = await w.s.newTenant('many');
    const ubuntu = await w.client.admin.createDockerWorkflow({
      workspaceId: other.workspaceId,
      name: 'ubuntu',
      containerName: 'library/ubuntu:22.04',
    });
    const client = new RunyardClient({ platformUrl: w.proxy.url, apikey: other.apikey });
    try {
      const project = await client.createProject(other.workspaceId, 'bulk');
      const body = (i: number) => ({
        parameters: [],
        project,
        workflow: ubuntu._id,
        name: `bulk-${i}`,
        command: 'true',
        batch: { enabled: false },
      });
      for (let i = 0; i < 105; i++) await client.request('POST', '/api/v2/jobs', { query: { teamId: other.workspaceId }, body: body(i) });
      const q = `/api/v2/jobs?teamId=${other.workspaceId}&archived.status=false&limit=100`;
      let n = w.proxy.requests.length;
      const all = await client.getJobList(other.workspaceId, { lastNJobs: 'all' });
      assert.equal(all.jobs.length, 105);
      assert.equal(new Set(all.jobs.map((j) => j._id)).size, 105);
      assert.deepEqual(w.since(n), [`GET ${q}&page=1`, `GET ${q}&page=2`]);
      n = w.proxy.requests.length;
      assert.equal((await client.getJobList(other.workspaceId, { lastNJobs: 150 })).jobs.length, 105);
      assert.deepEqual(w.since(n), [`GET ${q}&page=1`, `GET ${q}&page=2`]);
      n = w.proxy.requests.length;
      const cut = await client.getJobList(other.workspaceId, { lastNJobs: 101 });
      assert.equal(cut.jobs.length, 101);
      assert.equal(cut.jobs[0].name, 'bulk-104');
      assert.deepEqual(w.since(n), [`GET ${q}&page=1`, `GET ${q}&page=2`]);
      n = w.proxy.requests.length;
      assert.equal((await client.getJobList(other.workspaceId, { lastNJobs: 100 })).jobs.length, 100);
      assert.deepEqual(w.since(n), [`GET ${q}&page=1`]);
    } finally {
      client.close();
    }
  });

  it('process_job_list keeps the public client selected columns that occur; all_fields keeps every field', async () => {
    const { jobs } = await w.client.getJobList(ws);
    const table = processJobList(jobs);
    assert.deepEqual(table.columns, [
      'status',
      'name',
      'project.name',
      'user.name',
      'user.surname',
      'workflow.name',
      '_id',
      'startTime',
      'endTime',
      'createdAt',
      'updatedAt',
      'revision.commit',
      'realInstancesExecutionCost',
      'masterInstance.usedInstance.type',
      'storageMode',
      'workflow.repository.url',
      'nextflowVersion',
      'batch.enabled',
      'storageSizeInGb',
      'batch.jobQueue.id',
      'usesFusionFileSystem',
    ]);
    assert.equal(table.rows.length, 4);
    assert.equal(table.rows[0].name, 'bob-job');
    assert.equal(table.rows[0]['user.name'], 'Bob');
    const full = w.client.processJobList(jobs, true);
    assert.ok(full.columns.includes('team') && full.columns.includes('batch.jobQueue.label') && full.columns.includes('logs.s3Prefix'));
    assert.deepEqual(processJobList([]), { columns: [], rows: [] });
  });

  it('save_job_list_to_csv writes the renamed, ordered columns (my_jobs.csv by default)', async () => {
    const { jobs } = await w.client.getJobList(ws);
    const file = path.join(dir, 'jobs.csv');
    assert.deepEqual(await w.client.saveJobListToCsv(jobs, file), { filename: file, rows: 4 });
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    assert.equal(
      lines[0],
      'Status,Name,Project,Owner,Pipeline,ID,Submit time,End time,Run time,Commit,Cost,Resources,Storage type,Pipeline url,Nextflow version,Executor,Storage size,Job queue ID,Accelerated file staging',
    );
    assert.equal(lines.length, 5);
    const bobRow = lines[1].split(',');
    assert.deepEqual(bobRow.slice(0, 3), ['failed', 'bob-job', 'demo']);
    assert.equal(bobRow[3], 'Bob Builder');
    assert.equal(bobRow[5], ids.bob);
    assert.match(bobRow[6], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.match(bobRow[8], /^\d+s$/, 'run time from start to end');
    assert.equal(bobRow[10], '0.0000', 'cost in dollars from cents');
    assert.equal(bobRow[15], 'N/A', 'a bash job without a queue is not a batch job');
    assert.equal(lines[3].split(',')[15], 'Batch');

    const cwd = process.cwd();
    process.chdir(dir);
    try {
      await saveJobListToCsv([]);
      assert.equal(readFileSync(path.join(dir, 'my_jobs.csv'), 'utf8'), '');
    } finally {
      process.chdir(cwd);
    }
    const reordered = reorderJobList(processJobList(jobs, true));
    assert.deepEqual(reordered.columns.slice(0, 6), ['Status', 'Name', 'Project', 'Owner', 'Pipeline', 'ID']);
    assert.ok(reordered.columns.includes('team'), 'other fields follow');
    assert.ok(!reordered.columns.includes('startTime') && !reordered.columns.includes('user.name'));
  });
});

describe('SDK get_job_list queue filter on a server whose jobs may have no queue', () => {
  it('keeps jobs without a queue (non-batch jobs) and drops those on another queue', async () => {
    const queue = { id: 'q1', _id: 'q1', name: 'batch-q', label: 'Batch Q', status: 'Ready', executor: 'nextflow', isDefault: true };
    const jobs = [
      { _id: 'a', name: 'no-batch', status: 'completed' },
      { _id: 'b', name: 'batch-disabled', status: 'completed', batch: { enabled: false } },
      { _id: 'c', name: 'on-q1', status: 'completed', batch: { enabled: true, jobQueue: { id: 'q1' } } },
      { _id: 'd', name: 'on-q2', status: 'completed', batch: { enabled: true, jobQueue: { id: 'q2' } } },
    ];
    const server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const reply =
        url.pathname === '/api/v1/teams/aws/v2/job-queues'
          ? [queue]
          : url.pathname === '/api/v1/teams/aws/v2/system-job-queues'
            ? []
            : {
                jobs: url.searchParams.get('page') === '1' ? jobs : [],
                paginationMetadata: { 'Pagination-Count': 4, 'Pagination-Page': 1, 'Pagination-Limit': 100 },
              };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new RunyardClient({ platformUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apikey: 'k' });
    try {
      const r = await client.getJobList('W', { filterQueue: 'batch-q' });
      assert.deepEqual(
        r.jobs.map((j) => j.name),
        ['no-batch', 'batch-disabled', 'on-q1'],
      );
      assert.deepEqual(r.paginationMetadata, {
        'Pagination-Count': 3,
        'Pagination-Page': 1,
        'Pagination-Limit': 10,
        _client_filtered: true,
      });
    } finally {
      client.close();
      server.close();
    }
  });
});
