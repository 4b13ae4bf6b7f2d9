import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError, ConflictError, ForbiddenError, NotFoundError, RunyardClient, type HpcCluster } from '@runyard/client';
import { jobWorld, type JobWorld } from './job-world.js';

describe('SDK HPC clusters: client.admin.createHpcCluster / listHpcClusters, and jobs on a cluster', () => {
  let w: JobWorld;
  let shared = '';
  let cluster: HpcCluster;
  before(async () => {
    w = await jobWorld();
    shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-shared-'));
  });
  after(() => w.close());

  it('registers a cluster with one POST and lists it with one GET', async () => {
    const n = w.proxy.requests.length;
    cluster = await w.client.admin.createHpcCluster({
      name: 'hpc1',
      partitions: ['short', 'long'],
      sharedDirectory: shared,
      submitPrefix: ['ssh', 'login1'],
    });
    assert.match(cluster.id, /^[0-9a-f]{24}$/);
    assert.deepEqual(
      [cluster.name, cluster.partitions, cluster.defaultPartition, cluster.sharedDirectory, cluster.submitPrefix],
      ['hpc1', ['short', 'long'], 'short', shared, ['ssh', 'login1']],
    );
    const listed = await w.client.admin.listHpcClusters();
    assert.deepEqual(listed, [cluster]);
    assert.deepEqual(w.since(n), ['POST /api/runyard/admin/hpc', 'GET /api/runyard/admin/hpc']);
  });

  it('throws typed errors: 400 with the code and the reason, 409 for a taken name, 403 for a non-admin', async () => {
    await assert.rejects(
      w.client.admin.createHpcCluster({ name: 'rel', partitions: ['p'], sharedDirectory: 'shared' }),
      (e: unknown) => e instanceof ApiError && e.status === 400 && e.code === 'VALIDATION_FAILED' && /absolute path/.test(e.message),
    );
    await assert.rejects(
      w.client.admin.createHpcCluster({ name: 'hpc1', partitions: ['p'], sharedDirectory: shared }),
      (e: unknown) => e instanceof ConflictError && e.code === 'HPC_CLUSTER_NAME_TAKEN',
    );
    const plain = await w.s.newTenant('plain');
    const theirs = new RunyardClient({ platformUrl: w.s.url, apikey: plain.apikey });
    try {
      await assert.rejects(theirs.admin.listHpcClusters(), (e: unknown) => e instanceof ForbiddenError && e.code === 'ADMIN_REQUIRED');
    } finally {
      theirs.close();
    }
    assert.deepEqual(
      (await w.client.admin.listHpcClusters()).map((c) => c.name),
      ['hpc1'],
    );
  });

  it('sendJob on hpc with hpcId: the public-client HPC body, and the job document names the cluster', async () => {
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      executionPlatform: 'hpc',
      hpcId: cluster.id,
      jobQueue: 'ignored-on-hpc',
    });
    const payload = await w.client.getJobRequestPayload(jobId, w.ws);
    assert.deepEqual(
      [payload.executionPlatform, payload.hpc, payload.instanceType, payload.saveProcessLogs, payload.nextflowVersion],
      ['hpc', cluster.id, null, false, '22.10.8'],
    );
    assert.ok(!('batch' in payload) && !('masterInstance' in payload), JSON.stringify(payload));
    const job = await w.client.getJobStatus(jobId, w.ws);
    assert.deepEqual(job.hpcCluster, { id: cluster.id, name: 'hpc1', partition: 'short', slurmJobId: null });
    assert.equal((job.batch as { jobQueue: { name: string } }).jobQueue.name, 'hpc-hpc1');
  });

  it('sendJob of a bash job on hpc sends the cluster too; an unregistered hpcId is a NotFoundError', async () => {
    const jobId = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'hostname',
      executionPlatform: 'hpc',
      hpcId: cluster.id,
      cpus: 2,
    });
    const job = await w.client.getJobStatus(jobId, w.ws);
    assert.deepEqual([job.jobType, (job.hpcCluster as { id: string }).id], ['dockerAWS', cluster.id]);
    await assert.rejects(
      w.client.sendJob({
        workspaceId: w.ws,
        projectName: 'demo',
        workflowName: 'ubuntu',
        workflowType: 'docker',
        command: 'hostname',
        executionPlatform: 'hpc',
        hpcId: '660fae20f93358ad61e0104b',
      }),
      (e: unknown) => e instanceof NotFoundError && e.code === 'HPC_NOT_FOUND',
    );
  });
});
