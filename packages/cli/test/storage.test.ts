import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobDataWorld, type JobDataWorld } from '../../client/test/job-data-world.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';

/** `runyard storage ls` through a recording proxy in front of a real server whose job wrote real data. */
describe('runyard storage ls', { timeout: 300_000 }, () => {
  let w: JobDataWorld;
  let ws: string;
  let jobId: string;
  before(async () => {
    w = await jobDataWorld();
    ws = w.ws;
    jobId = await w.runJob();
  });
  after(() => w?.close());

  async function wire(args: string[]) {
    const n = w.proxy.requests.length;
    const r = await runCli([...args, ...connectionArgs(w.proxy.url, w.s.admin.apikey, ws)]);
    return { r, seq: w.since(n) };
  }

  it("lists one level of the workspace's bucket: one bucket-contents request; a table, or json", async () => {
    const prefix = `${ws}/jobs/${jobId}`;
    const { r, seq } = await wire(['storage', 'ls', `s3://${w.bucket}/${prefix}/`]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [`GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${jobId}&teamId=W`]);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.deepEqual(
      rows.map((c) => [c[0], c[1], c[2], c[4]]),
      ['logs', 'results', 'work'].map((d) => [`${d}/`, 'folder', '-', `s3://${w.bucket}/${prefix}/${d}/`]),
    );
    const json = await wire(['storage', 'ls', `s3://${w.bucket}/${prefix}/results`, '--output-format', 'json']);
    assert.equal(json.r.code, 0, json.r.stderr);
    const items = JSON.parse(json.r.stdout) as Array<{ name: string; path: string; isDir: boolean; size: number }>;
    assert.deepEqual(
      items.map((i) => [i.name, i.path, i.isDir]),
      [
        ['results', `${prefix}/results/results`, true],
        ['summary.txt', `${prefix}/results/summary.txt`, false],
      ],
    );
    assert.equal(items[1].size, 8);
    const top = await wire(['storage', 'ls', `s3://${w.bucket}`]);
    assert.equal(top.r.code, 0, top.r.stderr);
    assert.deepEqual(top.seq, ['GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=&teamId=W']);
    assert.match(top.r.stdout, new RegExp(`^${ws}/\tfolder`));
  });

  it('refuses bad URLs and traversal before sending anything (exit 2)', async () => {
    for (const url of [
      `s3://${w.bucket}/${ws}/../x`,
      `s3://${w.bucket}/${ws}/%2E%2E/x`,
      `s3://${w.bucket}/..`,
      'http://example.org/x',
      's3://',
      'az://nothost/container',
      'az://acct.blob.core.windows.net/',
      'az://acct.blob.core.windows.net/c/../../x',
    ]) {
      const { r, seq } = await wire(['storage', 'ls', url]);
      assert.equal(r.code, 2, `${url}: ${r.stderr}`);
      assert.match(r.stderr, /^Error: Invalid/, url);
      assert.deepEqual(seq, [], url);
    }
  });

  it("another workspace's bucket, and Azure on a server without Azure storage, are not found (exit 1)", async () => {
    const other = await w.s.newTenant('other');
    const r = await wire(['storage', 'ls', `s3://runyard-${other.workspaceId}/${other.workspaceId}`]);
    assert.equal(r.r.code, 1);
    assert.match(r.r.stderr, /\(HTTP 404\)\n$/);
    const az = await wire(['storage', 'ls', `az://acct.blob.core.windows.net/runyard-${ws}/${ws}`]);
    assert.equal(az.r.code, 1);
    assert.deepEqual(az.seq, [
      `GET /api/v1/data-access/azure/container-contents?containerName=runyard-W&path=W/&storageAccountName=acct&teamId=W`,
    ]);
    assert.match(az.r.stderr, /does not keep data in Azure Blob Storage.*\(HTTP 404\)\n$/);
  });
});
