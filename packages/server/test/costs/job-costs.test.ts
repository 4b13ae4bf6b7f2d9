import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { bashBody, jobWorld, submit, type JobWorld } from '../jobs/fixtures.js';
import { startBashJobServer, type BashJobServer } from '../scheduler/bash-job-server.js';
import { waitFor } from '../scheduler/helpers.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';

const PRICE_KEYS = ['amount', 'currencyCode'];
const INSTANCE_KEYS = [
  'endTime',
  'id',
  'instancePricePerHour',
  'isCostSaving',
  'machineType',
  'startTime',
  'storage',
  'storagePricePerHour',
  'totalPrice',
];

describe('job costs (GET /api/v1/jobs/{id}/costs/compute)', () => {
  let w: JobWorld;
  let id: string;
  before(async () => {
    w = await jobWorld();
    const r = await submit(w, bashBody(w, { instanceType: 'c5.2xlarge', masterInstance: { requestedInstance: { type: 'c5.2xlarge' } } }));
    assert.equal(r.statusCode, 200, r.body);
    id = r.json().jobId;
  });
  after(() => w.close());

  const costs = (query = '') => call(w.s, 'GET', `/api/v1/jobs/${id}/costs/compute?teamId=${w.ws}${query}`);

  it('a queued job: its master instance with the type, its hourly price and nothing spent; no workers', async () => {
    const r = await costs();
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json();
    assert.deepEqual(Object.keys(body).sort(), ['master', 'paginationMetadata', 'workers']);
    assert.deepEqual(Object.keys(body.master).sort(), INSTANCE_KEYS);
    for (const k of ['instancePricePerHour', 'storagePricePerHour', 'totalPrice'])
      assert.deepEqual(Object.keys(body.master[k]).sort(), PRICE_KEYS);
    assert.equal(body.master.id, id);
    assert.equal(body.master.machineType, 'c5.2xlarge');
    assert.equal(body.master.isCostSaving, false);
    assert.deepEqual(body.master.instancePricePerHour, { amount: 0.34, currencyCode: 'USD' });
    assert.deepEqual(body.master.storage, { usageQuantity: 500, usageUnit: 'Gb' });
    assert.deepEqual(body.master.totalPrice, { amount: 0, currencyCode: 'USD' });
    assert.equal(body.master.startTime, null);
    assert.deepEqual(body.workers, []);
    assert.deepEqual(body.paginationMetadata, { 'Pagination-Count': 1, 'Pagination-Page': 1, 'Pagination-Limit': 100 });
    assert.deepEqual((await costs('&page=2&limit=20')).json().paginationMetadata, {
      'Pagination-Count': 1,
      'Pagination-Page': 2,
      'Pagination-Limit': 20,
    });
  });

  it('an unknown job, or one of another workspace, is 404; a bad page is 400 naming it', async () => {
    assertError(await call(w.s, 'GET', `/api/v1/jobs/${'0'.repeat(24)}/costs/compute?teamId=${w.ws}`), 404, 'JOB_NOT_FOUND');
    const other = await w.s.newTenant('otto');
    assertError(
      await call(w.s, 'GET', `/api/v1/jobs/${id}/costs/compute?teamId=${other.workspaceId}`, undefined, other.apikey),
      404,
      'JOB_NOT_FOUND',
    );
    assert.match(assertError(await costs('&page=0'), 400, 'VALIDATION_FAILED'), /page/);
    assert.match(assertError(await costs('&limit=lots'), 400, 'VALIDATION_FAILED'), /limit/);
    assert.match(assertError(await call(w.s, 'GET', `/api/v1/jobs/${id}/costs/compute`), 400, 'VALIDATION_FAILED'), /teamId/);
  });
});

describe('job costs of a job that ran', { timeout: 300_000 }, () => {
  let r: BashJobServer;
  before(async () => {
    r = await startBashJobServer();
  });
  after(() => r.close());

  it('a finished job: its times, and its cost in dollars, bounded by the clock of the test (the job document has it in cents)', async () => {
    // c5.2xlarge is $0.34 an hour (AWS on-demand). The job runs until the test opens its gate, two seconds after the
    // test saw it running: it is billed for at least those, and for no more than all the time the test saw go by.
    const before = Date.now();
    const id = await r.submit('while [ ! -e go ]; do sleep 0.05; done', {
      instanceType: 'c5.2xlarge',
      masterInstance: { requestedInstance: { type: 'c5.2xlarge' } },
    });
    await waitFor(
      'the job to run',
      async () => ((await r.ok('GET', `/api/v1/jobs/${id}?teamId=${r.ws}`)).status === 'running' ? true : undefined),
      120_000,
    );
    await sleep(2000);
    // Its working directory is its work folder.
    writeFileSync(path.join(jobPaths(r.s.config.dataDir, r.ws, id).work, 'go'), '');
    const doc = await r.ended(id);
    const after = Date.now();
    assert.equal(doc.status, 'completed', doc.statusMessage);
    const body = await r.ok('GET', `/api/v1/jobs/${id}/costs/compute?teamId=${r.ws}`);
    const [start, end] = [Date.parse(body.master.startTime), Date.parse(body.master.endTime)];
    assert.ok(before <= start && start + 2000 <= end && end <= after, `${body.master.startTime} .. ${body.master.endTime}`);
    const dollars = body.master.totalPrice.amount as number;
    assert.ok(dollars >= (0.34 * 2) / 3600, `${dollars} for at least 2 s`);
    assert.ok(dollars <= (0.34 * (after - before)) / 3_600_000, `${dollars} for at most ${after - before} ms`);
    assert.ok(Math.abs(dollars - (0.34 * (end - start)) / 3_600_000) < 1e-6, `${dollars} for ${end - start} ms`);
    // The job document has it in cents.
    assert.ok(Math.abs(doc.computeCostSpent - dollars * 100) < 1e-4, `${doc.computeCostSpent} cents, ${dollars} dollars`);
    assert.equal(doc.realInstancesExecutionCost, doc.computeCostSpent);
  });
});
