import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { azureWorld, type AzureWorld } from '../../client/test/job-data-world.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';

/** The CLI on a server keeping its data in Azure Blob Storage (Azurite): az:// URLs and the Azure routes. */
describe('runyard storage ls, job logs and datasets ls on Azure Blob Storage', { timeout: 300_000 }, () => {
  let w: AzureWorld;
  let ws: string;
  let id: string;
  before(async () => {
    w = await azureWorld();
    ws = w.ws;
    id = await w.finishedJob('az-job');
  });
  after(() => w?.close());

  async function wire(args: string[]) {
    const n = w.proxy.requests.length;
    const r = await runCli([...args, ...connectionArgs(w.proxy.url, w.s.admin.apikey, ws)]);
    return { r, seq: w.since(n) };
  }

  it('storage ls az://<account>.blob.core.windows.net/<container>/<prefix>: one container listing', async () => {
    const { r, seq } = await wire(['storage', 'ls', `${w.base}${ws}/jobs/${id}/results`]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/data-access/azure/container-contents?containerName=runyard-W&path=W/jobs/${id}/results/&storageAccountName=${w.azurite.accountName}&teamId=W`,
    ]);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.deepEqual(
      rows.map((c) => [c[0], c[1], c[4]]),
      [
        ['results/', 'folder', `${w.base}${ws}/jobs/${id}/results/results/`],
        ['summary.txt', 'file', `${w.base}${ws}/jobs/${id}/results/summary.txt`],
      ],
    );
  });

  it('job logs, job results and job workdir print az:// URLs', async () => {
    const logs = await wire(['job', 'logs', '--job-id', id]);
    assert.equal(logs.r.code, 0, logs.r.stderr);
    assert.deepEqual(logs.seq.slice(0, 3), [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/jobs/${id}?teamId=W`,
      'GET /api/v1/cloud/azure?teamId=W',
    ]);
    const prefix = `${w.base}${ws}/jobs/${id}`;
    assert.equal(
      logs.r.stdout,
      `Nextflow log: ${prefix}/logs/.nextflow.log\nJob output (standard output): ${prefix}/logs/stdout.txt\nTrace file: ${prefix}/logs/trace.txt\n`,
    );
    assert.equal((await wire(['job', 'results', '--job-id', id])).r.stdout, `results: ${prefix}/results/results\n`);
    assert.equal((await wire(['job', 'workdir', '--job-id', id])).r.stdout, `Working directory for job ${id}: ${prefix}/work\n`);
  });

  it('datasets ls --details shows the az:// storage path of Azure folders and files', async () => {
    const { r } = await wire(['datasets', 'ls', `AnalysesResults/az-job-${id}`, '--details', '--project-name', 'demo']);
    assert.equal(r.code, 0, r.stderr);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.deepEqual(
      rows.map((c) => [c[0], c[2], c[4], c[5]]),
      [
        ['file (virtual copy)', '8 B', 'summary.txt', `${w.base}${ws}/jobs/${id}/results/summary.txt`],
        ['azure folder', '-', 'results', `${w.base}${ws}/jobs/${id}/results/results`],
      ],
    );
  });
});
