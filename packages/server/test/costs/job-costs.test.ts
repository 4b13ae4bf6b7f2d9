import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, call } from '../wire.js';
import { bashBody, jobWorld, submit, type JobWorld } from '../jobs/fixtures.js';

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

  it('a finished job: its times, and its cost in dollars (the job document has it in cents)', async () => {
    const start = '2025-01-01T10:00:00.000Z';
    const end = '2025-01-01T10:30:00.000Z';
    // Half an hour of c5.2xlarge: 17 cents, as the scheduler records it when the job settles.
    await w.s.store.db
      .updateTable('jobs')
      .set({ status: 'completed', start_time: start, end_time: end, compute_cost_cents: 17 })
      .where('id', '=', id)
      .execute();
    const body = (await costs()).json();
    assert.equal(body.master.startTime, start);
    assert.equal(body.master.endTime, end);
    assert.deepEqual(body.master.totalPrice, { amount: 0.17, currencyCode: 'USD' });
    const doc = (await call(w.s, 'GET', `/api/v1/jobs/${id}?teamId=${w.ws}`)).json();
    assert.equal(doc.computeCostSpent, 17);
    assert.equal(doc.realInstancesExecutionCost, 17);
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
