import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceTypeEntry, JobCostsReply } from '@runyard/client';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

describe('runyard instance-types list, runyard job cost', { timeout: 300_000 }, () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(async () => {
    await w.close();
  });

  const run = (args: string[]) => runCli([...args, ...w.conn]);

  it('instance-types list: the catalogue as a table, json or csv', async () => {
    const json = await run(['instance-types', 'list', '--output-format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const types = JSON.parse(json.stdout) as InstanceTypeEntry[];
    assert.deepEqual(
      types.find((t) => t.name === 'c5.xlarge'),
      { name: 'c5.xlarge', provider: 'aws', vcpus: 4, memoryGiB: 8, pricePerHourUsd: 0.17, priceDate: '2025-06-01' },
    );
    const table = await run(['instance-types', 'list']);
    assert.equal(table.code, 0, table.stderr);
    assert.deepEqual(table.stdout.split('\n')[0].split('\t'), ['c5.large', 'aws', '2', '4', '0.085', '2025-06-01']);
    const csv = await run(['instance-types', 'list', '--output-format', 'csv']);
    const lines = csv.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'name,provider,vcpus,memoryGiB,pricePerHourUsd,priceDate');
    assert.equal(lines.length, types.length + 1);
  });

  it("job cost: a finished job's instance, hourly price and a non-zero total, as json, csv or a table", async () => {
    const submitted = await run([
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'ubuntu',
      '--command',
      'sleep 1',
      '--instance-type',
      'c5.2xlarge',
    ]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const jobId = submitted.stdout.trim();
    const done = await w.client.waitJobCompletion(jobId, w.ws, { requestInterval: 0.1, waitTime: 60 });
    assert.equal(done.status, 'completed');
    const doc = await w.client.getJobStatus(jobId, w.ws);

    const json = await run(['job', 'cost', '--job-id', jobId, '--output-format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const costs = JSON.parse(json.stdout) as JobCostsReply;
    assert.equal(costs.master.id, jobId);
    assert.equal(costs.master.machineType, 'c5.2xlarge');
    assert.deepEqual(costs.master.instancePricePerHour, { amount: 0.34, currencyCode: 'USD' });
    assert.equal(costs.master.startTime, doc.startTime);
    assert.equal(costs.master.endTime, doc.endTime);
    // At least a second of 0.34 USD an hour, and what the recorded times give.
    const hours = (Date.parse(String(doc.endTime)) - Date.parse(String(doc.startTime))) / 3_600_000;
    assert.ok(costs.master.totalPrice.amount >= 0.34 / 3600, JSON.stringify(costs.master.totalPrice));
    assert.ok(Math.abs(costs.master.totalPrice.amount - hours * 0.34) < 0.000002, `${costs.master.totalPrice.amount} != ${hours * 0.34}`);
    assert.ok(Math.abs(costs.master.totalPrice.amount - Number(doc.computeCostSpent) / 100) < 0.000001);
    assert.deepEqual(costs.workers, []);

    const csv = await run(['job', 'cost', '--job-id', jobId, '--output-format', 'csv']);
    const lines = csv.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'role,id,machineType,isCostSaving,startTime,endTime,instancePricePerHour,storage,totalPrice');
    assert.equal(lines.length, 2);
    assert.ok(lines[1].startsWith(`master,${jobId},c5.2xlarge,false,`), lines[1]);

    const table = await run(['job', 'cost', '--job-id', jobId]);
    assert.equal(table.code, 0, table.stderr);
    const cells = table.stdout.split('\n')[0].split('\t');
    assert.deepEqual(cells.slice(0, 4), ['master', jobId, 'c5.2xlarge', 'false']);
    assert.equal(cells[6], '$0.3400');
    assert.match(cells[8], /^\$0\.\d{4}$/);
  });

  it('job cost of an unknown job fails with the server message', async () => {
    const r = await run(['job', 'cost', '--job-id', '0'.repeat(24)]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /not found/i);
  });
});
