import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { bashBody, jobCount, jobWorld, nextflowBody, submit, type JobWorld } from '../jobs/fixtures.js';
import { assertError, call } from '../wire.js';

/** The public client's default --hpc-id: every job `cloudos job run` sends carries it (wire-api §8.6). */
const CLI_DEFAULT_HPC = '660fae20f93358ad61e0104b';

// Jobs with executionPlatform hpc: their cluster, their queue, and what their document shows.
describe('HPC jobs: submission and the job document', () => {
  let w: JobWorld;
  let other: Tenant;
  let hpc1 = '';
  let hpc2 = '';
  let shared = '';

  /** The body without the keys an hpc job lacks (wire-api §2.2): no masterInstance, no batch. */
  const withoutBatch = (body: Record<string, unknown>, extra: Record<string, unknown>) => {
    const out: Record<string, unknown> = { ...body, ...extra };
    for (const key of ['masterInstance', 'batch']) if (!(key in extra)) delete out[key];
    return out;
  };
  /** `cloudos job run --execution-platform hpc --hpc-id ID` (wire-api §2.2, case 4). */
  const hpcNextflowBody = (hpc: unknown, extra: Record<string, unknown> = {}) =>
    withoutBatch(
      nextflowBody(w, { executionPlatform: 'hpc', hpc, instanceType: null, saveProcessLogs: false, nextflowVersion: '22.10.8' }),
      extra,
    );
  /** A bash job on hpc as Runyard's client sends it (the public `cloudos bash job` sends hpc null). */
  const hpcBashBody = (hpc: unknown, extra: Record<string, unknown> = {}) =>
    withoutBatch(bashBody(w, { executionPlatform: 'hpc', hpc, instanceType: null, saveProcessLogs: false }), extra);
  const doc = async (id: string) => (await call(w.s, 'GET', `/api/v1/jobs/${id}?teamId=${w.ws}`)).json();
  const submitted = async (body: unknown) => {
    const r = await submit(w, body);
    assert.equal(r.statusCode, 200, r.body);
    return doc(r.json().jobId);
  };
  const hpcQueues = async (workspaceId = w.ws) =>
    w.s.store.db.selectFrom('queues').selectAll().where('workspace_id', '=', workspaceId).where('backend', '=', 'slurm').execute();
  const state = async () =>
    JSON.stringify([
      await jobCount(w),
      await w.s.store.db.selectFrom('queues').selectAll().orderBy('id').execute(),
      await w.s.store.db.selectFrom('folders').select('id').orderBy('id').execute(),
    ]);
  const queue = async (body: Record<string, unknown>) => {
    const r = await call(w.s, 'POST', '/api/runyard/admin/queues', { workspaceId: w.ws, ...body });
    assert.equal(r.statusCode, 201, r.body);
    return r.json().id as string;
  };

  before(async () => {
    w = await jobWorld();
    other = await w.s.newTenant('other');
    shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-shared-'));
    const register = async (name: string, partitions: string[]) => {
      const r = await call(w.s, 'POST', '/api/runyard/admin/hpc', { name, partitions, sharedDirectory: shared });
      assert.equal(r.statusCode, 201, r.body);
      return r.json().id as string;
    };
    hpc1 = await register('hpc1', ['short', 'long']);
    hpc2 = await register('hpc2', ['batch']);
  });
  after(() => w.close());

  it("a public-client HPC job runs on its cluster's workspace queue, made on first use and then reused", async () => {
    assert.deepEqual(await hpcQueues(), []);
    const job = await submitted(hpcNextflowBody(hpc1));
    assert.deepEqual([job.executionPlatform, job.jobType, job.instanceType, job.nextflowVersion], ['hpc', 'nextflowHpc', null, '22.10.8']);
    assert.deepEqual(job.hpcCluster, { id: hpc1, name: 'hpc1', partition: 'short', slurmJobId: null });
    const q = job.batch.jobQueue;
    assert.deepEqual(
      [q.name, q.label, q.backend, q.hpcId, q.partition, q.executor, q.isDefault],
      ['hpc-hpc1', 'hpc-hpc1', 'slurm', hpc1, null, 'nextflow', false],
    );
    assert.equal(job.masterInstance.usedInstance.name, 'slurm-executor');
    const again = await submitted(hpcNextflowBody(hpc1, { name: 'second' }));
    assert.equal(again.batch.jobQueue.id, q.id);
    assert.deepEqual(
      (await hpcQueues()).map((x) => x.name),
      ['hpc-hpc1'],
    );
    const stored = await w.s.store.db.selectFrom('jobs').select(['hpc_id', 'queue_id']).where('id', '=', job._id).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { hpc_id: hpc1, queue_id: q.id });
  });

  it('concurrent first jobs of a workspace on a cluster share one queue', async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => hpcNextflowBody(hpc2, { name: `race-${i}` }));
    const replies = await Promise.all(bodies.map((b) => submit(w, b)));
    for (const r of replies) assert.equal(r.statusCode, 200, r.body);
    const made = (await hpcQueues()).filter((x) => x.hpc_id === hpc2);
    assert.deepEqual(
      made.map((x) => x.name),
      ['hpc-hpc2'],
    );
    const queues = new Set(await Promise.all(replies.map(async (r) => (await doc(r.json().jobId)).batch.jobQueue.id)));
    assert.deepEqual([...queues], [made[0].id]);
  });

  it('a bash job on hpc runs on the cluster too, sized by its cpu and ram', async () => {
    const job = await submitted(hpcBashBody(hpc1, { resourceRequirements: { cpu: 2, ram: 3 } }));
    assert.deepEqual([job.executionPlatform, job.jobType, job.command], ['hpc', 'dockerAWS', 'echo hi']);
    assert.deepEqual(job.resourceRequirements, { cpu: 2, ram: 3 });
    assert.deepEqual(job.hpcCluster, { id: hpc1, name: 'hpc1', partition: 'short', slurmJobId: null });
    assert.equal(job.batch.jobQueue.name, 'hpc-hpc1');
  });

  it("AWS jobs carry the public client's default hpc id (or a real one) and run on their usual queue, not on a cluster", async () => {
    for (const hpc of [CLI_DEFAULT_HPC, hpc1]) {
      const job = await submitted(nextflowBody(w, { hpc }));
      assert.deepEqual(
        [job.executionPlatform, job.jobType, job.batch.jobQueue.name, job.hpcCluster],
        ['aws', 'nextflowAWS', 'default', null],
      );
      const payload = (await call(w.s, 'GET', `/api/v1/jobs/${job._id}/request-payload?teamId=${w.ws}`)).json();
      assert.equal(payload.hpc, hpc, 'the hpc field is kept as sent');
      const stored = await w.s.store.db.selectFrom('jobs').select('hpc_id').where('id', '=', job._id).executeTakeFirstOrThrow();
      assert.equal(stored.hpc_id, null);
    }
    const bash = await submitted(bashBody(w));
    assert.deepEqual([bash.executionPlatform, bash.hpcCluster, bash.batch.jobQueue.backend], ['aws', null, 'local']);
  });

  it('an HPC job may name a queue of its cluster in batch.jobQueue: it runs in that partition', async () => {
    const long = await queue({ name: 'hpc1-long', hpcId: hpc1, partition: 'long' });
    const job = await submitted(hpcNextflowBody(hpc1, { batch: { enabled: false, jobQueue: long } }));
    assert.equal(job.batch.jobQueue.id, long);
    assert.deepEqual(job.hpcCluster, { id: hpc1, name: 'hpc1', partition: 'long', slurmJobId: null });
    // A queue of a cluster runs its jobs there whatever their platform.
    const aws = await submitted(nextflowBody(w, { batch: { enabled: true, jobQueue: long } }));
    assert.deepEqual(aws.hpcCluster, { id: hpc1, name: 'hpc1', partition: 'long', slurmJobId: null });
  });

  it('refuses an HPC job without hpc (400), with an unknown cluster (404), or with a queue that is not of its cluster (400); nothing changes', async () => {
    const local = (await call(w.s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${w.ws}`))
      .json()
      .find((q: { name: string }) => q.name === 'default').id;
    const ofHpc2 = await queue({ name: 'hpc2-batch', hpcId: hpc2 });
    const before = await state();
    for (const hpc of [null, undefined, '']) {
      const body = hpcNextflowBody(hpc);
      if (hpc === undefined) delete (body as Record<string, unknown>).hpc;
      assert.match(
        assertError(await submit(w, body), 400, 'VALIDATION_FAILED'),
        new RegExp(
          `executionPlatform hpc needs hpc: the id of a registered HPC cluster .*; this server has 2: "hpc1" \\(${hpc1}\\), "hpc2" \\(${hpc2}\\)`,
        ),
      );
    }
    // Not a string: refused by the body's schema, before any lookup.
    assert.match(assertError(await submit(w, hpcNextflowBody(42)), 400, 'VALIDATION_FAILED'), /hpc/);
    // What `cloudos job run --execution-platform hpc` sends without --hpc-id: its default, registered nowhere.
    assert.match(
      assertError(await submit(w, hpcNextflowBody(CLI_DEFAULT_HPC)), 404, 'HPC_NOT_FOUND'),
      new RegExp(`"${CLI_DEFAULT_HPC}" is not registered`),
    );
    assertError(await submit(w, hpcBashBody('not an id')), 404, 'HPC_NOT_FOUND');
    assert.match(
      assertError(await submit(w, hpcNextflowBody(hpc1, { batch: { jobQueue: local } })), 400, 'VALIDATION_FAILED'),
      /"default" is a local queue; a job on HPC cluster "hpc1" needs one of that cluster's queues/,
    );
    assert.match(
      assertError(await submit(w, hpcBashBody(hpc1, { batch: { jobQueue: ofHpc2 } })), 400, 'VALIDATION_FAILED'),
      /"hpc2-batch" runs its jobs on another HPC cluster/,
    );
    assert.equal(await state(), before);
  });

  it("a job refused after its cluster was found leaves no queue behind: the cluster's queue is made with the job", async () => {
    const r = await call(w.s, 'POST', '/api/runyard/admin/hpc', { name: 'hpc3', partitions: ['p'], sharedDirectory: shared });
    assert.equal(r.statusCode, 201, r.body);
    const hpc3 = r.json().id;
    const before = await state();
    assert.match(assertError(await submit(w, hpcNextflowBody(hpc3, { nextflowVersion: '1.0.0' })), 400, 'VALIDATION_FAILED'), /1\.0\.0/);
    assertError(await submit(w, hpcBashBody(hpc3, { instanceType: 'no-such-type' })), 400, 'VALIDATION_FAILED');
    assert.equal(await state(), before);
    assert.equal((await submitted(hpcBashBody(hpc3))).batch.jobQueue.name, 'hpc-hpc3');
  });

  it('refuses a queue of another workspace (404), even one of the same cluster', async () => {
    const theirs = await call(w.s, 'POST', '/api/runyard/admin/queues', { workspaceId: other.workspaceId, name: 'theirs', hpcId: hpc1 });
    assert.equal(theirs.statusCode, 201, theirs.body);
    const before = await state();
    const r = await submit(w, hpcNextflowBody(hpc1, { batch: { jobQueue: theirs.json().id } }));
    assertError(r, 404, 'QUEUE_NOT_FOUND');
    assert.equal(await state(), before);
  });

  it('shows the Slurm job id once the executor stored it, and no Slurm id for another backend', async () => {
    const job = await submitted(hpcNextflowBody(hpc1, { name: 'with-id' }));
    const setId = (id: unknown) =>
      w.s.store.db
        .updateTable('jobs')
        .set({ external_id: JSON.stringify(id) })
        .where('id', '=', job._id)
        .execute();
    await setId({ backend: 'slurm', cluster: hpc1, jobId: '4242' });
    assert.deepEqual((await doc(job._id)).hpcCluster, { id: hpc1, name: 'hpc1', partition: 'short', slurmJobId: '4242' });
    await setId({ backend: 'local', pid: 12 });
    assert.equal((await doc(job._id)).hpcCluster.slurmJobId, null);
    // The job list shows the same key.
    const list = (await call(w.s, 'GET', `/api/v2/jobs?teamId=${w.ws}&id=${job._id}`)).json();
    assert.deepEqual(list.jobs[0].hpcCluster, { id: hpc1, name: 'hpc1', partition: 'short', slurmJobId: null });
  });
});

// `cloudos bash job --execution-platform hpc` has no --hpc-id: it sends hpc null (wire-api §2.2, case 6).
describe('HPC jobs without an hpc id', () => {
  let w: JobWorld;
  const hpcBash = (extra: Record<string, unknown> = {}) => {
    const body: Record<string, unknown> = { ...bashBody(w, { executionPlatform: 'hpc', hpc: null }), ...extra };
    delete body.masterInstance;
    delete body.batch;
    return body;
  };
  before(async () => {
    w = await jobWorld();
  });
  after(() => w.close());

  it('are refused while the server has no cluster, saying how to register one; with one cluster they run on it', async () => {
    const count = await jobCount(w);
    assert.match(assertError(await submit(w, hpcBash()), 400, 'VALIDATION_FAILED'), /this server has none \(runyard admin hpc create\)/);
    assert.equal(await jobCount(w), count);
    const shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-shared-'));
    const r = await call(w.s, 'POST', '/api/runyard/admin/hpc', { name: 'only', partitions: ['main'], sharedDirectory: shared });
    assert.equal(r.statusCode, 201, r.body);
    const hpc = r.json().id as string;
    for (const extra of [{}, { hpc: '' }]) {
      const sent = await submit(w, hpcBash(extra));
      assert.equal(sent.statusCode, 200, sent.body);
      const job = (await call(w.s, 'GET', `/api/v1/jobs/${sent.json().jobId}?teamId=${w.ws}`)).json();
      assert.deepEqual(job.hpcCluster, { id: hpc, name: 'only', partition: 'main', slurmJobId: null });
      assert.equal(job.batch.jobQueue.name, 'hpc-only');
    }
  });
});

describe('HPC jobs in a container image', () => {
  let w: JobWorld;
  before(async () => {
    // A configured runtime makes docker workflows container jobs; nothing runs it here, so a script that fails stands in.
    const bin = mkdtempSync(path.join(os.tmpdir(), 'runyard-runtime-'));
    writeFileSync(path.join(bin, 'docker'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    w = await jobWorld({ RUNYARD_CONTAINER_RUNTIME: 'docker', RUNYARD_TASK_PATH: `${bin}:${process.env.PATH}` });
  });
  after(() => w.close());

  it('are refused at submission with a message, and leave nothing behind', async () => {
    const shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-shared-'));
    const r = await call(w.s, 'POST', '/api/runyard/admin/hpc', { name: 'only', partitions: ['main'], sharedDirectory: shared });
    assert.equal(r.statusCode, 201, r.body);
    const body: Record<string, unknown> = { ...bashBody(w, { executionPlatform: 'hpc', hpc: r.json().id }) };
    delete body.masterInstance;
    delete body.batch;
    const count = await jobCount(w);
    const message = assertError(await submit(w, body), 400, 'VALIDATION_FAILED');
    assert.match(message, /container image "library\/ubuntu:22\.04", and container jobs do not run on HPC clusters yet/);
    assert.equal(await jobCount(w), count);
    const queues = await w.s.store.db.selectFrom('queues').select('id').where('backend', '=', 'slurm').execute();
    assert.deepEqual(queues, []);
    // The same job on a local queue is accepted.
    assert.equal((await submit(w, bashBody(w))).statusCode, 200);
  });
});
