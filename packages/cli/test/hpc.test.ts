import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HpcCluster, JobQueue } from '@runyard/client';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { connectionArgs } from './support/connection-args.js';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

// runyard admin hpc create|list, queue create --hpc-id, jobs with --execution-platform hpc --hpc-id, job details.
// The test server runs no Slurm executor: jobs of a cluster stay queued, which is all these commands need.
describe('runyard admin hpc, and jobs on a cluster', { timeout: 300_000 }, () => {
  let w: JobWorld;
  let proxy: RecordingProxy;
  let shared = '';
  let clusterId = '';
  before(async () => {
    w = await jobWorld();
    proxy = await startRecordingProxy(w.s.url);
    shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-shared-'));
  });
  after(async () => {
    await proxy.close();
    await w.close();
  });

  const run = (args: string[]) => runCli([...args, ...w.conn]);
  const ok = async (args: string[]) => {
    const r = await run(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };
  const jobArgs = ['--project-name', 'demo'];
  /** Admin commands take no workspace. */
  const admin = async (args: string[]) => runCli([...args, ...connectionArgs(w.s.url, w.s.admin.apikey)]);
  const adminOk = async (args: string[]) => {
    const r = await admin(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  };

  it('admin hpc create registers a cluster and prints its id; the submit prefix keeps each argument whole', async () => {
    const r = await adminOk([
      'admin',
      'hpc',
      'create',
      '--name',
      'hpc1',
      '--partition',
      'short',
      '--partition',
      'long',
      '--shared-directory',
      `${shared}/`,
      '--submit-prefix',
      'sudo',
      '--submit-prefix',
      '-u',
      '--submit-prefix',
      'slurm runner',
    ]);
    clusterId = r.stdout.trim();
    assert.match(clusterId, /^[0-9a-f]{24}$/);
    assert.equal(
      r.stderr,
      `HPC cluster "hpc1" registered (partitions short, long, default short; shared directory ${shared}, ` +
        `Slurm commands run through ["sudo","-u","slurm runner"]).\n`,
    );
    const [cluster] = (await w.client.admin.listHpcClusters()) as HpcCluster[];
    assert.deepEqual(cluster.submitPrefix, ['sudo', '-u', 'slurm runner']);
  });

  it('admin hpc list: a table, json and csv', async () => {
    const table = await adminOk(['admin', 'hpc', 'list']);
    assert.deepEqual(table.stdout.trimEnd().split('\n')[0].split('\t').slice(0, 6), [
      clusterId,
      'hpc1',
      'short,long',
      'short',
      shared,
      '["sudo","-u","slurm runner"]',
    ]);
    const json = JSON.parse((await adminOk(['admin', 'hpc', 'list', '--output-format', 'json'])).stdout) as HpcCluster[];
    assert.deepEqual(
      json.map((c) => [c.id, c.name, c.partitions]),
      [[clusterId, 'hpc1', ['short', 'long']]],
    );
    const csv = (await adminOk(['admin', 'hpc', 'list', '--output-format', 'csv'])).stdout.split('\n');
    assert.equal(csv[0], 'id,name,partitions,defaultPartition,sharedDirectory,submitPrefix,createdAt');
    assert.match(csv[1], new RegExp(`^${clusterId},hpc1,`));
  });

  it('admin hpc create: usage errors exit 2, a refused cluster exits 1 with the reason, a non-admin gets 403', async () => {
    const missing = await admin(['admin', 'hpc', 'create', '--name', 'x', '--shared-directory', shared]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--partition/);
    const relative = await admin(['admin', 'hpc', 'create', '--name', 'x', '--partition', 'p', '--shared-directory', 'shared']);
    assert.equal(relative.code, 1);
    assert.match(relative.stderr, /^Error: [^\n]*must be an absolute path[^\n]*\(HTTP 400\)\n$/);
    const plain = await w.s.newTenant('plain');
    const forbidden = await runCli(['admin', 'hpc', 'list', ...connectionArgs(w.s.url, plain.apikey)]);
    assert.equal(forbidden.code, 1);
    assert.match(forbidden.stderr, /\(HTTP 403\)\n$/);
    assert.equal((await w.client.admin.listHpcClusters()).length, 1);
  });

  it('queue create --hpc-id --partition makes a queue of the cluster; list shows it; a bad id is a usage error', async () => {
    const r = await ok(['queue', 'create', '--name', 'hpc1-long', '--hpc-id', clusterId, '--partition', 'long']);
    assert.match(
      r.stderr,
      new RegExp(`^Job queue "hpc1-long" \\(nextflow, concurrency \\d+, HPC cluster ${clusterId} partition long\\) created`),
    );
    const queues = JSON.parse((await ok(['queue', 'list', '--output-format', 'json', '--exclude-system-queues'])).stdout) as JobQueue[];
    const q = queues.find((x) => x.name === 'hpc1-long')!;
    assert.deepEqual([q.backend, q.hpcId, q.partition], ['slurm', clusterId, 'long']);
    const table = (await ok(['queue', 'list', '--exclude-system-queues'])).stdout.split('\n');
    assert.deepEqual(
      table
        .find((l) => l.includes('hpc1-long'))!
        .split('\t')
        .slice(-2),
      [clusterId, 'long'],
    );
    const wrong = await run(['queue', 'create', '--name', 'x', '--partition', 'gpu', '--hpc-id', clusterId]);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /"gpu" is not one of[^\n]*\(HTTP 400\)/);
    const badId = await run(['queue', 'create', '--name', 'x', '--hpc-id', 'hpc1']);
    assert.equal(badId.code, 2);
    assert.match(badId.stderr, /A cluster id is 24 hexadecimal characters/);
  });

  it('job run --execution-platform hpc --hpc-id: no queue lookup, the HPC body, the job on the cluster; details print it', async () => {
    proxy.requests.length = 0;
    const viaProxy = await runCli([
      'job',
      'run',
      ...jobArgs,
      '--workflow-name',
      'rnatoy',
      '--execution-platform',
      'hpc',
      '--hpc-id',
      clusterId,
      ...connectionArgs(proxy.url, w.s.admin.apikey, w.ws),
    ]);
    assert.equal(viaProxy.code, 0, viaProxy.stderr);
    const id = viaProxy.stdout.trim();
    assert.ok(!proxy.requests.some((q) => q.url.includes('job-queues')), 'hpc jobs look up no queue');
    const payload = await w.client.getJobRequestPayload(id, w.ws);
    assert.deepEqual(
      [payload.executionPlatform, payload.hpc, payload.instanceType, payload.saveProcessLogs, payload.nextflowVersion],
      ['hpc', clusterId, null, false, '22.10.8'],
    );
    assert.ok(!('batch' in payload) && !('masterInstance' in payload));
    await w.s.store.db
      .updateTable('jobs')
      .set({ external_id: JSON.stringify({ backend: 'slurm', cluster: clusterId, jobId: '777' }) })
      .where('id', '=', id)
      .execute();
    const details = await ok(['job', 'details', '--job-id', id]);
    const rows = new Map(
      details.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    assert.equal(rows.get('Execution platform'), 'hpc');
    assert.equal(rows.get('HPC cluster'), `hpc1 (${clusterId})`);
    assert.equal(rows.get('Partition'), 'short');
    assert.equal(rows.get('Slurm job id'), '777');
    assert.equal(rows.get('Job queue'), 'hpc-hpc1');
  });

  it('bash job --execution-platform hpc --hpc-id runs on the cluster, and without --hpc-id on the only one; aws jobs show no cluster', async () => {
    const r = await ok([
      'bash',
      'job',
      ...jobArgs,
      '--workflow-name',
      'ubuntu',
      '--command',
      'hostname',
      '--execution-platform',
      'hpc',
      '--hpc-id',
      clusterId,
      '--cpus',
      '2',
    ]);
    const job = await w.client.getJobStatus(r.stdout.trim(), w.ws);
    assert.deepEqual(job.hpcCluster, { id: clusterId, name: 'hpc1', partition: 'short', slurmJobId: null });
    assert.deepEqual(job.resourceRequirements, { cpu: 2, ram: 4 });
    // As cloudos-cli's bash job sends it (it has no --hpc-id): hpc null, which means the server's only cluster.
    const none = await ok(['bash', 'job', ...jobArgs, '--workflow-name', 'ubuntu', '--command', 'hostname', '--execution-platform', 'hpc']);
    const noneJob = await w.client.getJobStatus(none.stdout.trim(), w.ws);
    assert.deepEqual(noneJob.hpcCluster, { id: clusterId, name: 'hpc1', partition: 'short', slurmJobId: null });
    // job run's default --hpc-id (cloudos-cli's) names no cluster here.
    const unknown = await run(['job', 'run', ...jobArgs, '--workflow-name', 'rnatoy', '--execution-platform', 'hpc']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /"660fae20f93358ad61e0104b" is not registered[^\n]*\(HTTP 404\)/);
    // An aws job carries that default too, and runs as usual.
    const aws = await ok(['job', 'run', ...jobArgs, '--workflow-name', 'rnatoy']);
    const awsJob = await w.client.getJobStatus(aws.stdout.trim(), w.ws);
    assert.equal((await w.client.getJobRequestPayload(awsJob._id, w.ws)).hpc, '660fae20f93358ad61e0104b');
    assert.deepEqual([awsJob.executionPlatform, awsJob.hpcCluster], ['aws', null]);
    const details = (await ok(['job', 'details', '--job-id', awsJob._id])).stdout;
    assert.doesNotMatch(details, /HPC cluster|Slurm job id|Partition/);
    await w.client.waitJobCompletion(awsJob._id, w.ws, { requestInterval: 0.1, waitTime: 60 });
  });
});
