import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { connectionArgs } from './support/connection-args.js';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

/** The request sequences of wire-api §6, through a recording proxy in front of a real server. */
describe('job commands on the wire (wire-api §6)', { timeout: 300_000 }, () => {
  let w: JobWorld;
  let proxy: RecordingProxy;
  before(async () => {
    w = await jobWorld();
    proxy = await startRecordingProxy(w.s.url);
  });
  after(async () => {
    await proxy.close();
    await w.close();
  });

  /** Runs the CLI through the proxy: its result, and each request as `METHOD path?query` with W for the workspace. */
  async function wire(args: string[]) {
    proxy.requests.length = 0;
    const r = await runCli([...args, ...connectionArgs(proxy.url, w.s.admin.apikey, w.ws)]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    return { r, id: r.stdout.trim(), seq: proxy.requests.map((q) => `${q.method} ${q.url.split(w.ws).join('W')}`) };
  }

  it('job run (Nextflow on aws): workflow type, module, project, workflow, queues, POST, one GET of the job', async () => {
    const { r, id, seq } = await wire(['job', 'run', '--project-name', 'demo', '--workflow-name', 'rnatoy', '-p', 'a=b']);
    assert.equal(r.code, 0, r.stderr);
    const search = ['GET /api/v3/workflows?teamId=W&search=rnatoy', 'GET /api/v3/workflows?teamId=W&search=rnatoy&pageSize=1'];
    assert.deepEqual(seq, [
      ...search, // detect_workflow
      ...search, // is_module
      'GET /api/v2/projects?teamId=W&search=demo',
      ...search, // the workflow id
      'GET /api/v1/teams/aws/v2/job-queues?teamId=W',
      'GET /api/v1/teams/aws/v2/system-job-queues?teamId=W',
      'POST /api/v2/jobs?teamId=W',
      `GET /api/v1/jobs/${id}?teamId=W`,
    ]);
    assert.match(
      r.stderr,
      new RegExp(
        `\\nJob ${id} is (queued|scheduled|initializing|running|completed); follow it with "runyard job status --job-id ${id}"\\.\\n$`,
      ),
    );
    await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 30 });
  });

  it('bash job: project and workflow searches, POST, GET; --wait-completion polls the job until it finishes', async () => {
    const plain = await wire(['bash', 'job', '--project-name', 'demo', '--workflow-name', 'ubuntu', '--command', 'true']);
    assert.deepEqual(plain.seq, [
      'GET /api/v2/projects?teamId=W&search=demo',
      'GET /api/v3/workflows?teamId=W&search=ubuntu',
      'GET /api/v3/workflows?teamId=W&search=ubuntu&pageSize=1',
      'POST /api/v2/jobs?teamId=W',
      `GET /api/v1/jobs/${plain.id}?teamId=W`,
    ]);
    const waited = await wire([
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'ubuntu',
      '--command',
      'sleep 0.5',
      '--wait-completion',
    ]);
    assert.equal(waited.r.code, 0, waited.r.stderr);
    const polls = waited.seq.slice(4);
    assert.ok(polls.length >= 2, polls.join('\n'));
    assert.ok(
      polls.every((p) => p === `GET /api/v1/jobs/${waited.id}?teamId=W`),
      polls.join('\n'),
    );
    const queued = await wire([
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'ubuntu',
      '--command',
      'true',
      '--job-queue',
      'default',
    ]);
    assert.deepEqual(queued.seq.slice(3, 5), [
      'GET /api/v1/teams/aws/v2/job-queues?teamId=W',
      'GET /api/v1/teams/aws/v2/system-job-queues?teamId=W',
    ]);
    for (const id of [plain.id, queued.id]) await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 30 });
  });

  it('job status and job details: one GET; job list: one page', async () => {
    const id = (await w.client.getJobList(w.ws, { lastNJobs: 1 })).jobs[0]._id;
    assert.deepEqual((await wire(['job', 'status', '--job-id', id])).seq, [`GET /api/v1/jobs/${id}?teamId=W`]);
    assert.deepEqual((await wire(['job', 'details', '--job-id', id])).seq, [`GET /api/v1/jobs/${id}?teamId=W`]);
    assert.deepEqual((await wire(['job', 'list'])).seq, ['GET /api/v2/jobs?teamId=W&archived.status=false&limit=10&page=1']);
  });

  it('job abort: for each id a GET, then the abort of the active ones', async () => {
    const running = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'sleep 30',
    });
    for (let i = 0; i < 200 && (await w.client.getJobStatus(running, w.ws)).status !== 'running'; i++) await sleep(50);
    const finished = (await w.client.getJobList(w.ws, { filterStatus: 'completed', lastNJobs: 1 })).jobs[0]._id;
    const { r, seq } = await wire(['job', 'abort', '--job-ids', `${running},${finished}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${running}?teamId=W`,
      `PUT /api/v2/jobs/${running}/abort?forceAbort=false&teamId=W`,
      `GET /api/v1/jobs/${finished}?teamId=W`,
    ]);
    assert.equal((await w.client.waitJobCompletion(running, w.ws, { requestInterval: 0.1, waitTime: 30 })).status, 'aborted');
  });

  it('job archive: the archived.status=true probe, then false, per id; one PUT for all', async () => {
    const [a, b] = (await w.client.getJobList(w.ws, { lastNJobs: 2 })).jobs.map((j) => j._id);
    const { r, seq } = await wire(['job', 'archive', '--job-ids', `${a},${b}`]);
    assert.equal(r.code, 0, r.stderr);
    const probes = (id: string) => [
      `GET /api/v2/jobs?teamId=W&archived.status=true&page=1&limit=1&id=${id}`,
      `GET /api/v2/jobs?teamId=W&archived.status=false&page=1&limit=1&id=${id}`,
    ];
    assert.deepEqual(seq, [...probes(a), ...probes(b), 'PUT /api/v1/jobs?teamId=W']);
    const again = await wire(['job', 'archive', '--job-ids', a]);
    assert.deepEqual(again.seq, [`GET /api/v2/jobs?teamId=W&archived.status=true&page=1&limit=1&id=${a}`], 'already archived: no PUT');
  });
});
