import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JobQueue } from '@runyard/client';
import type { Tenant } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

describe('runyard queue list|create', { timeout: 300_000 }, () => {
  let w: JobWorld;
  let dora: Tenant;
  before(async () => {
    w = await jobWorld();
    dora = await w.s.newTenant('dora');
  });
  after(async () => {
    await w.close();
  });

  const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli([...args, ...w.conn], options);
  const queues = async (extra: string[] = []): Promise<JobQueue[]> => {
    const r = await run(['queue', 'list', '--output-format', 'json', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as JobQueue[];
  };

  it('list: the workspace queues, then the system queues; --exclude-system-queues leaves those out', async () => {
    const all = await queues();
    assert.deepEqual(
      all.map((q) => [q.label, q.executor, q.isDefault]),
      [
        ['default', 'nextflow', true],
        ['default-wdl', 'cromwell', true],
        ['system', 'nextflow', false],
      ],
    );
    assert.deepEqual(
      (await queues(['--exclude-system-queues'])).map((q) => q.label),
      ['default', 'default-wdl'],
    );
    const table = await run(['queue', 'list']);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(table.stdout.split('\n')[0].split('\t'), [
      all[0].id,
      'default',
      'nextflow',
      'true',
      'Ready',
      'teamBatchJobQueue',
      'local',
      '4',
      'server default',
      'by CPUs',
      '',
      '',
    ]);
    const csv = await run(['queue', 'list', '--output-format', 'csv']);
    assert.equal(
      csv.stdout.split('\n')[0],
      'id,name,label,description,executor,isDefault,status,resourceType,backend,concurrency,taskNetwork,pidsLimit,hpcId,partition',
    );
    assert.equal(csv.stdout.trimEnd().split('\n').length, 4);
  });

  it('create makes a queue that list shows and jobs can choose with --job-queue (and job list --filter-queue)', async () => {
    const r = await run(['queue', 'create', '--name', 'fast', '--label', 'Fast lane', '--concurrency', '2', '--executor', 'nextflow']);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, /^[0-9a-f]{24}$/);
    assert.equal(r.stderr, `Job queue "Fast lane" (nextflow, concurrency 2) created in workspace ${w.ws}.\n`);
    const made = (await queues(['--exclude-system-queues'])).find((q) => q.id === id);
    assert.ok(made);
    assert.deepEqual([made.name, made.label, made.concurrency, made.isDefault, made.status], ['fast', 'Fast lane', 2, false, 'Ready']);

    const job = await run([
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'ubuntu',
      '--command',
      'true',
      '--job-queue',
      'Fast lane',
    ]);
    assert.equal(job.code, 0, job.stderr);
    const jobId = job.stdout.trim();
    assert.equal(((await w.client.getJobStatus(jobId, w.ws)).batch as { jobQueue: { id: string } }).jobQueue.id, id);
    await w.client.waitJobCompletion(jobId, w.ws, { requestInterval: 0.1, waitTime: 30 });
    const other = await run(['bash', 'job', '--project-name', 'demo', '--workflow-name', 'ubuntu', '--command', 'true']);
    assert.equal(other.code, 0, other.stderr);
    const otherId = other.stdout.trim();
    await w.client.waitJobCompletion(otherId, w.ws, { requestInterval: 0.1, waitTime: 30 });
    const filtered = await run(['job', 'list', '--filter-queue', 'Fast lane', '--output-format', 'json']);
    assert.equal(filtered.code, 0, filtered.stderr);
    assert.deepEqual(
      (JSON.parse(filtered.stdout) as Array<{ _id: string }>).map((j) => j._id),
      [jobId],
    );
    const unknown = await run(['job', 'list', '--filter-queue', 'nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^Error: Queue with name 'nope' not found/);
  });

  it('create --default makes it the default of its executor', async () => {
    const r = await run(['queue', 'create', '--name', 'wdl2', '--executor', 'cromwell', '--default']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Job queue "wdl2" \(cromwell, concurrency \d+, default\) created/);
    const cromwell = (await queues(['--exclude-system-queues'])).filter((q) => q.executor === 'cromwell');
    assert.deepEqual(
      cromwell.filter((q) => q.isDefault).map((q) => q.name),
      ['wdl2'],
    );
  });

  it('create --task-network none: the queue says so, in create and list', async () => {
    const r = await run(['queue', 'create', '--name', 'offline', '--task-network', 'none']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Job queue "offline" \(nextflow, concurrency \d+, task network none\) created/);
    const all = await queues(['--exclude-system-queues']);
    assert.equal(all.find((q) => q.name === 'offline')?.taskNetwork, 'none');
    assert.equal(all.find((q) => q.name === 'default')?.taskNetwork, null);
    const bad = await run(['queue', 'create', '--name', 'x', '--task-network', 'bridge']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--task-network/);
  });

  it('create --pids-limit: the queue says so, in create and list; out of range is refused before any request', async () => {
    const r = await run(['queue', 'create', '--name', 'few-procs', '--pids-limit', '100']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Job queue "few-procs" \(nextflow, concurrency \d+, at most 100 processes a task\) created/);
    const all = await queues(['--exclude-system-queues']);
    assert.equal(all.find((q) => q.name === 'few-procs')?.pidsLimit, 100);
    assert.equal(all.find((q) => q.name === 'default')?.pidsLimit, null);
    const bad = await run(['queue', 'create', '--name', 'x', '--pids-limit', '10']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--pids-limit/);
  });

  it('create: a duplicate name, a non-admin key, bad options', async () => {
    const dup = await run(['queue', 'create', '--name', 'fast']);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /^Error: [^\n]+ \(HTTP 409\)\n$/);
    const forbidden = await runCli(['queue', 'create', '--name', 'mine', ...connectionArgs(w.s.url, dora.apikey, dora.workspaceId)]);
    assert.equal(forbidden.code, 1);
    assert.match(forbidden.stderr, /\(HTTP 403\)\n$/);
    const executor = await run(['queue', 'create', '--name', 'x', '--executor', 'slurm']);
    assert.equal(executor.code, 2);
    assert.match(executor.stderr, /--executor/);
    const concurrency = await run(['queue', 'create', '--name', 'x', '--concurrency', '0']);
    assert.equal(concurrency.code, 2);
    const name = await run(['queue', 'create', '--name', 'bad name']);
    assert.equal(name.code, 1);
    assert.match(name.stderr, /\(HTTP 400\)\n$/);
  });

  it("another tenant sees only its own workspace's queues", async () => {
    const r = await runCli([
      'queue',
      'list',
      '--output-format',
      'json',
      '--exclude-system-queues',
      ...connectionArgs(w.s.url, dora.apikey, dora.workspaceId),
    ]);
    assert.equal(r.code, 0, r.stderr);
    const theirs = JSON.parse(r.stdout) as JobQueue[];
    assert.ok(theirs.every((q) => q.resource === dora.workspaceId));
    assert.ok(!theirs.some((q) => q.name === 'fast'));
    const wrong = await runCli(['queue', 'list', ...connectionArgs(w.s.url, dora.apikey, w.ws)]);
    assert.equal(wrong.code, 1);
  });
});
