import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Tenant, type TestServer } from '../../../../test/support/server.js';
import { assertError, assertIsoTime, call } from '../wire.js';

// POST/GET /api/runyard/admin/hpc, and queues of a cluster through POST /api/runyard/admin/queues.
describe('HPC clusters: the admin routes', () => {
  let s: TestServer;
  let plain: Tenant;
  let shared = '';
  before(async () => {
    s = await startTestServer();
    plain = await s.newTenant('plain');
    shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-shared-'));
  });
  after(() => s.close());

  const create = (body: unknown, apikey?: string) => call(s, 'POST', '/api/runyard/admin/hpc', body, apikey);
  const list = async () => {
    const r = await call(s, 'GET', '/api/runyard/admin/hpc');
    assert.equal(r.statusCode, 200, r.body);
    return r.json().clusters as Array<Record<string, unknown>>;
  };
  const queues = async () => {
    const r = await call(s, 'GET', `/api/runyard/admin/queues?workspaceId=${s.admin.workspaceId}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().queues as Array<Record<string, unknown>>;
  };
  const clusterRows = async () => JSON.stringify(await s.store.db.selectFrom('hpc_clusters').selectAll().orderBy('id').execute());
  const queueRows = async () => JSON.stringify(await s.store.db.selectFrom('queues').selectAll().orderBy('id').execute());

  let hpc1 = '';

  it('registers a cluster: 201 with its id, the partitions (the first the default), the normalised shared directory and the prefix', async () => {
    const r = await create({
      name: 'hpc1',
      partitions: ['short', 'long'],
      sharedDirectory: `${shared}/./sub/../`,
      submitPrefix: ['sudo', '-u', 'runner'],
    });
    assert.equal(r.statusCode, 201, r.body);
    const c = r.json();
    assert.match(c.id, /^[0-9a-f]{24}$/);
    hpc1 = c.id;
    assertIsoTime(c.createdAt);
    assertIsoTime(c.updatedAt);
    assert.deepEqual(
      { ...c, id: 0, createdAt: 0, updatedAt: 0 },
      {
        id: 0,
        name: 'hpc1',
        submitPrefix: ['sudo', '-u', 'runner'],
        partitions: ['short', 'long'],
        defaultPartition: 'short',
        sharedDirectory: shared,
        createdAt: 0,
        updatedAt: 0,
      },
    );
    // Stored as the executor reads it: JSON lists, the normalised path.
    const row = await s.store.db.selectFrom('hpc_clusters').selectAll().where('id', '=', hpc1).executeTakeFirstOrThrow();
    assert.deepEqual([row.submit_prefix, row.partitions, row.shared_dir], ['["sudo","-u","runner"]', '["short","long"]', shared]);
    const plainCluster = await create({ name: 'hpc2', partitions: ['batch'], sharedDirectory: shared });
    assert.equal(plainCluster.statusCode, 201, plainCluster.body);
    assert.deepEqual(plainCluster.json().submitPrefix, [], 'no prefix: Slurm commands run on the server host');
    assert.deepEqual(
      (await list()).map((x) => [x.name, x.defaultPartition]),
      [
        ['hpc1', 'short'],
        ['hpc2', 'batch'],
      ],
    );
  });

  it('refuses bad input with 400 naming the problem, a taken name with 409, and changes nothing', async () => {
    const file = path.join(shared, 'a-file');
    writeFileSync(file, 'x');
    const before = await clusterRows();
    const ok = { name: 'hpc3', partitions: ['p1'], sharedDirectory: shared };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...ok, sharedDirectory: 'relative/dir' }, /sharedDirectory "relative\/dir" must be an absolute path/],
      [{ ...ok, sharedDirectory: path.join(shared, 'missing') }, /is not a directory on the server host/],
      [{ ...ok, sharedDirectory: file }, /is not a directory on the server host/],
      [{ ...ok, submitPrefix: ['ssh login1'] }, /argv run without a shell[^]*\["ssh", "login1"\]/],
      [{ ...ok, submitPrefix: ['ssh', ''] }, /submitPrefix/],
      [{ ...ok, submitPrefix: 'ssh login1' }, /submitPrefix/],
      [{ ...ok, partitions: [] }, /partitions/],
      [{ ...ok, partitions: ['p1', 'p1'] }, /partitions: "p1" is given twice/],
      [{ ...ok, partitions: ['bad name'] }, /partitions/],
      [{ ...ok, partitions: ['p;rm'] }, /partitions/],
      [{ ...ok, name: 'bad name' }, /name/],
      [{ ...ok, name: 'x'.repeat(97) }, /name/],
      [{ ...ok, extra: 1 }, /extra/],
      [{ name: 'hpc3', partitions: ['p1'] }, /sharedDirectory/],
    ];
    for (const [body, message] of cases) {
      const r = await create(body);
      assert.match(assertError(r, 400, 'VALIDATION_FAILED'), message, JSON.stringify(body));
    }
    assert.match(assertError(await create({ ...ok, name: 'hpc1' }), 409, 'HPC_CLUSTER_NAME_TAKEN'), /"hpc1"/);
    assert.equal(await clusterRows(), before);
  });

  it('answers 403 ADMIN_REQUIRED to a non-admin on both routes, and registers nothing', async () => {
    const before = await clusterRows();
    assertError(await create({ name: 'sneaky', partitions: ['p'], sharedDirectory: shared }, plain.apikey), 403, 'ADMIN_REQUIRED');
    const r = await call(s, 'GET', '/api/runyard/admin/hpc', undefined, plain.apikey);
    assertError(r, 403, 'ADMIN_REQUIRED');
    assert.doesNotMatch(r.body, /hpc1/);
    assert.equal(await clusterRows(), before);
  });

  it('a queue of a cluster: backend slurm, its partition (null: the default), Slurm-sized concurrency; local queues show null', async () => {
    const ws = s.admin.workspaceId;
    const r = await call(s, 'POST', '/api/runyard/admin/queues', { workspaceId: ws, name: 'long-jobs', hpcId: hpc1, partition: 'long' });
    assert.equal(r.statusCode, 201, r.body);
    const q = r.json();
    assert.deepEqual(
      [q.backend, q.hpcId, q.partition, q.concurrency, q.computeEnvironments[0].environment.backend],
      ['slurm', hpc1, 'long', 100, 'slurm'],
    );
    const d = await call(s, 'POST', '/api/runyard/admin/queues', { workspaceId: ws, name: 'hpc-default', hpcId: hpc1, concurrency: 8 });
    assert.equal(d.statusCode, 201, d.body);
    assert.deepEqual([d.json().backend, d.json().partition, d.json().concurrency], ['slurm', null, 8]);
    const all = await queues();
    const byName = (n: string) => all.find((x) => x.name === n)!;
    assert.deepEqual([byName('long-jobs').hpcId, byName('long-jobs').partition], [hpc1, 'long']);
    assert.deepEqual([byName('default').hpcId, byName('default').partition, byName('default').backend], [null, null, 'local']);
    // The wire list (what the public client reads) shows them too.
    const wire = await call(s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${ws}`);
    assert.equal(wire.json().find((x: { name: string }) => x.name === 'long-jobs').hpcId, hpc1);
  });

  it('refuses a queue with an unknown cluster (404), a partition the cluster lacks or without a cluster, a backend that contradicts it, or a process limit on a cluster or out of range (400); nothing is created', async () => {
    const ws = s.admin.workspaceId;
    await queues(); // the starter queues exist before the snapshot
    const before = await queueRows();
    const post = (body: Record<string, unknown>) => call(s, 'POST', '/api/runyard/admin/queues', { workspaceId: ws, name: 'q-x', ...body });
    assert.match(
      assertError(await post({ hpcId: '660fae20f93358ad61e0104b' }), 404, 'HPC_NOT_FOUND'),
      /"660fae20f93358ad61e0104b" is not registered[^]*runyard admin hpc list/,
    );
    assert.match(
      assertError(await post({ hpcId: hpc1, partition: 'gpu' }), 400, 'VALIDATION_FAILED'),
      /"gpu" is not one of[^]*short, long/,
    );
    assert.match(assertError(await post({ partition: 'long' }), 400, 'VALIDATION_FAILED'), /give hpcId too/);
    assert.match(assertError(await post({ backend: 'slurm' }), 400, 'VALIDATION_FAILED'), /needs hpcId/);
    assert.match(assertError(await post({ backend: 'local', hpcId: hpc1 }), 400, 'VALIDATION_FAILED'), /backend slurm/);
    assert.match(assertError(await post({ hpcId: hpc1, pidsLimit: 1000 }), 400, 'VALIDATION_FAILED'), /pidsLimit is for local queues/);
    assertError(await post({ pidsLimit: 10 }), 400, 'VALIDATION_FAILED');
    assertError(await post({ hpcId: 'not-an-id' }), 400, 'VALIDATION_FAILED');
    assertError(await post({ backend: 'kubernetes' }), 400, 'VALIDATION_FAILED');
    assert.equal(await queueRows(), before);
  });
});
