import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RunyardClient, type JobDocument } from '@runyard/client';
import type { Tenant } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli, tempDir } from './support/run-cli.js';

/** status, details and list against jobs that really ran. */
describe('runyard job status|details|list', { timeout: 300_000 }, () => {
  let w: JobWorld;
  let dora: Tenant;
  const ids: Record<string, string> = {};
  before(async () => {
    w = await jobWorld();
    // dora is a member of the admin's workspace (and has one of her own).
    dora = await w.s.newTenant('dora');
    await w.client.admin.addMember(w.ws, dora.userId, 'member');
    const doras = new RunyardClient({ platformUrl: w.s.url, apikey: dora.apikey });
    const bash = { workspaceId: w.ws, projectName: 'demo', workflowName: 'ubuntu', workflowType: 'docker' as const };
    ids.alpha = await w.client.sendJob({ ...bash, jobName: 'alpha', command: 'true', parameters: ['--greeting=hello world'] });
    ids.beta = await w.client.sendJob({ ...bash, jobName: 'beta', command: 'exit 1' });
    ids.gamma = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      jobName: 'Gamma-NF',
      parameters: ['reads=s3://bucket/r.fq', 'threads=4'],
    });
    ids.delta = await doras.sendJob({ ...bash, jobName: 'delta', command: 'true' });
    for (const id of Object.values(ids)) await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 30 });
    doras.close();
  });
  after(async () => {
    await w.close();
  });

  const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli([...args, ...w.conn], options);
  const listed = async (args: string[]): Promise<JobDocument[]> => {
    const r = await run(['job', 'list', '--output-format', 'json', ...args]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as JobDocument[];
  };
  const names = (jobs: JobDocument[]) => jobs.map((j) => j.name);

  it('status prints the status word on stdout and the link on stderr', async () => {
    const r = await run(['job', 'status', '--job-id', ids.alpha]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'completed\n');
    assert.equal(r.stderr, `Job "alpha" (${ids.alpha}) is completed: ${w.s.url}/app/advanced-analytics/analyses/${ids.alpha}\n`);
    const failed = await run(['job', 'status', '--job-id', ids.beta]);
    assert.equal(failed.stdout, 'failed\n');
  });

  it('status --output-format json|csv prints the id, name, status and link on stdout', async () => {
    const link = `${w.s.url}/app/advanced-analytics/analyses/${ids.alpha}`;
    const json = await run(['job', 'status', '--job-id', ids.alpha, '--output-format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { id: ids.alpha, name: 'alpha', status: 'completed', link });
    const csv = await run(['job', 'status', '--job-id', ids.alpha, '--output-format', 'csv']);
    assert.equal(csv.stdout, `id,name,status,link\n${ids.alpha},alpha,completed,${link}\n`);
  });

  it('a malformed job id is a usage error that says what a job id looks like, before any request', async () => {
    const r = await run(['job', 'status', '--job-id', 'not-an-id']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^Error: option '--job-id <id>' argument 'not-an-id' is invalid\. A job id is 24 hexadecimal characters/);
    assert.ok(!r.stderr.includes('^[0-9a-f]'), 'not the schema pattern');
    const upper = await run(['job', 'status', '--job-id', ids.alpha.toUpperCase()]);
    assert.equal(upper.stdout, 'completed\n', 'any case is taken');
  });

  it("another workspace's job, or an unknown id, is exit 1 for status and details", async () => {
    const other = connectionArgs(w.s.url, dora.apikey, dora.workspaceId);
    const r = await runCli(['job', 'status', '--job-id', ids.alpha, ...other]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^Error: [^\n]+ \(HTTP 404\)\n$/);
    const d = await runCli(['job', 'details', '--job-id', ids.gamma, ...other]);
    assert.equal(d.code, 1);
    assert.match(d.stderr, /\(HTTP 404\)\n$/);
    const unknown = await run(['job', 'status', '--job-id', '0123456789abcdef01234567']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /0123456789abcdef01234567[^\n]* \(HTTP 404\)\n$/);
    const missing = await run(['job', 'status']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--job-id/);
  });

  it('details: field and value, tab-separated when piped', async () => {
    const r = await run(['job', 'details', '--job-id', ids.gamma]);
    assert.equal(r.code, 0, r.stderr);
    const fields = new Map(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    assert.equal(fields.get('Status'), 'completed');
    assert.equal(fields.get('Name'), 'Gamma-NF');
    assert.equal(fields.get('ID'), ids.gamma);
    assert.equal(fields.get('Link'), `${w.s.url}/app/advanced-analytics/analyses/${ids.gamma}`);
    assert.equal(fields.get('Project'), 'demo');
    assert.equal(fields.get('Pipeline'), 'rnatoy');
    assert.equal(fields.get('Owner'), 'Admin');
    assert.equal(fields.get('Revision'), `branch main, commit ${w.heads.main}`);
    assert.equal(fields.get('Nextflow version'), '24.04.4');
    assert.equal(fields.get('Parameters'), '--reads=s3://bucket/r.fq --threads=4');
    assert.match(fields.get('Submit time')!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.match(fields.get('Run time')!, /^\d+s$/);
    assert.equal(fields.get('Cost limit'), '$30.00');
    assert.equal(fields.get('Job queue'), 'default');
    // A Nextflow job's head task is given its instance type's size.
    assert.equal(fields.get('Instance type'), 'c5.xlarge');
    assert.equal(fields.get('vCPUs'), '4');
    assert.equal(fields.get('Memory'), '8 GiB');
    assert.equal(fields.get('Exit code'), '0');
    const bash = await run(['job', 'details', '--job-id', ids.alpha]);
    assert.match(bash.stdout, /^Command\ttrue$/m);
    assert.match(bash.stdout, /^Parameters\t--greeting=hello world$/m);
    assert.match(bash.stdout, /^Instance type\tc5\.xlarge\nvCPUs\t1\nMemory\t4 GiB$/m);
  });

  it('details --output-format json is the job document; csv is one header row and one row', async () => {
    const j = await run(['job', 'details', '--job-id', ids.gamma, '--output-format', 'json']);
    assert.equal(j.code, 0, j.stderr);
    const doc = JSON.parse(j.stdout) as JobDocument;
    assert.equal(doc._id, ids.gamma);
    assert.equal(doc.status, 'completed');
    assert.equal((doc.workflow as { name: string }).name, 'rnatoy');
    const c = await run(['job', 'details', '--job-id', ids.gamma, '--output-format', 'csv']);
    assert.equal(c.code, 0, c.stderr);
    const [header, row, ...rest] = c.stdout.trimEnd().split('\n');
    assert.deepEqual(rest, []);
    assert.ok(header.startsWith('Status,Name,ID,Link,Project,Owner,Pipeline,Job type,Revision,'), header);
    assert.ok(row.startsWith(`completed,Gamma-NF,${ids.gamma},`), row);
  });

  it('details --output-basename writes a file; --parameters writes a job-config file that job run reads back', async () => {
    const dir = tempDir('runyard-details-');
    const r = await run(
      ['job', 'details', '--job-id', ids.gamma, '--output-format', 'json', '--output-basename', 'gamma', '--parameters'],
      {
        cwd: dir,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal((JSON.parse(readFileSync(path.join(dir, 'gamma.json'), 'utf8')) as JobDocument)._id, ids.gamma);
    const config = path.join(dir, 'gamma.config');
    assert.equal(readFileSync(config, 'utf8'), "params {\n  reads = 's3://bucket/r.fq'\n  threads = 4\n}\n");
    assert.equal(
      r.stderr,
      `Wrote the details of job ${ids.gamma} to ${path.join(dir, 'gamma.json')}\nWrote 2 parameters of job ${ids.gamma} to ${config}\n`,
    );
    const plain = await run(['job', 'details', '--job-id', ids.alpha, '--parameters'], { cwd: dir });
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(readFileSync(path.join(dir, `${ids.alpha}_details.config`), 'utf8'), "params {\n  greeting = 'hello world'\n}\n");

    const again = await run(['job', 'run', '--project-name', 'demo', '--workflow-name', 'rnatoy', '--job-config', config]);
    assert.equal(again.code, 0, again.stderr);
    const job = await w.client.getJobStatus(again.stdout.trim(), w.ws);
    assert.deepEqual(
      (job.parameters as Array<{ name: string; textValue: string }>).map((p) => [p.name, p.textValue]),
      [
        ['reads', 's3://bucket/r.fq'],
        ['threads', '4'],
      ],
    );
    await w.client.waitJobCompletion(job._id, w.ws, { requestInterval: 0.1, waitTime: 30 });
    await w.client.archiveJobs([job._id], w.ws);
  });

  it('list: newest first, a tab-separated table when piped, JSON and CSV', async () => {
    const table = await run(['job', 'list']);
    assert.equal(table.code, 0, table.stderr);
    assert.equal(table.stderr, '');
    const rows = table.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r[2], r[4], r[5]]),
      [
        ['completed', 'delta', 'demo', 'ubuntu', ids.delta],
        ['completed', 'Gamma-NF', 'demo', 'rnatoy', ids.gamma],
        ['failed', 'beta', 'demo', 'ubuntu', ids.beta],
        ['completed', 'alpha', 'demo', 'ubuntu', ids.alpha],
      ],
    );
    assert.equal(rows[0][3], 'dora Tester');
    assert.match(rows[0][6], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.match(rows[0][8], /^\$\d+\.\d{4}$/);

    const cols = await run(['job', 'list', '--table-columns', 'id,status']);
    assert.equal(cols.stdout.split('\n')[0], `${ids.delta}\tcompleted`);
    const badCols = await run(['job', 'list', '--table-columns', 'id,colour']);
    assert.equal(badCols.code, 2);
    assert.match(badCols.stderr, /^Error: Unknown table column colour; choose from status,name,/);

    assert.deepEqual(names(await listed([])), ['delta', 'Gamma-NF', 'beta', 'alpha']);

    const csv = await run(['job', 'list', '--output-format', 'csv']);
    assert.equal(csv.code, 0, csv.stderr);
    const lines = csv.stdout.trimEnd().split('\n');
    assert.ok(lines[0].startsWith('Status,Name,Project,Owner,Pipeline,ID,Submit time,End time,Run time,'), lines[0]);
    assert.equal(lines.length, 5);
    assert.ok(lines[2].startsWith(`completed,Gamma-NF,demo,Admin,rnatoy,${ids.gamma},`), lines[2]);
    const all = await run(['job', 'list', '--output-format', 'csv', '--all-fields']);
    assert.ok(all.stdout.split('\n')[0].split(',').length > 30);
  });

  it('list filters: status, name (any case, part), project, workflow, id, only mine, owner', async () => {
    assert.deepEqual(names(await listed(['--filter-status', 'failed'])), ['beta']);
    assert.deepEqual(names(await listed(['--filter-status', 'COMPLETED'])), ['delta', 'Gamma-NF', 'alpha']);
    assert.deepEqual(names(await listed(['--filter-job-name', 'gamma'])), ['Gamma-NF']);
    assert.deepEqual(names(await listed(['--filter-project', 'demo'])), ['delta', 'Gamma-NF', 'beta', 'alpha']);
    assert.deepEqual(names(await listed(['--filter-workflow', 'rnatoy'])), ['Gamma-NF']);
    assert.deepEqual(names(await listed(['--filter-job-id', ids.beta])), ['beta']);
    assert.deepEqual(names(await listed(['--filter-only-mine'])), ['Gamma-NF', 'beta', 'alpha']);
    assert.deepEqual(names(await listed(['--filter-owner', 'dora'])), ['delta']);
    assert.deepEqual(names(await listed(['--filter-status', 'completed', '--filter-workflow', 'ubuntu'])), ['delta', 'alpha']);
    assert.deepEqual(names(await listed(['--filter-job-name', 'nothing-like-it'])), []);
  });

  it('list filter errors: a bad status or both mine and owner are usage errors; an unknown project is exit 1', async () => {
    const status = await run(['job', 'list', '--filter-status', 'sleeping']);
    assert.equal(status.code, 2);
    assert.match(status.stderr, /^Error: Invalid --filter-status "sleeping"; choose from completed, running, failed, aborted, queued/);
    const both = await run(['job', 'list', '--filter-only-mine', '--filter-owner', 'dora']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /cannot be used with/);
    const project = await run(['job', 'list', '--filter-project', 'nope']);
    assert.equal(project.code, 1);
    assert.match(project.stderr, /'nope'/);
  });

  it('list paging: --page and --page-size with a hint for the next page, --last-n-jobs N|all, page size above 100 is a usage error', async () => {
    const first = await run(['job', 'list', '--output-format', 'json', '--page-size', '3']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(names(JSON.parse(first.stdout) as JobDocument[]), ['delta', 'Gamma-NF', 'beta']);
    assert.equal(first.stderr, 'Page 1 of 2 (4 jobs); the next one: --page 2\n');
    const second = await run(['job', 'list', '--output-format', 'json', '--page-size', '3', '--page', '2']);
    assert.deepEqual(names(JSON.parse(second.stdout) as JobDocument[]), ['alpha']);
    assert.equal(second.stderr, '');
    assert.deepEqual(names(await listed(['--last-n-jobs', '2'])), ['delta', 'Gamma-NF']);
    assert.deepEqual(names(await listed(['--last-n-jobs', 'all'])), ['delta', 'Gamma-NF', 'beta', 'alpha']);
    const ignored = await run(['job', 'list', '--last-n-jobs', '1', '--page', '2']);
    assert.equal(ignored.code, 0, ignored.stderr);
    assert.match(ignored.stderr, /--page and --page-size are ignored/);
    const big = await run(['job', 'list', '--page-size', '101']);
    assert.equal(big.code, 2);
    assert.match(big.stderr, /--page-size/);
    const bad = await run(['job', 'list', '--last-n-jobs', 'some']);
    assert.equal(bad.code, 2);
  });

  it('list --archived lists only archived jobs; an empty list says so on stderr', async () => {
    const archived = await listed(['--archived']);
    assert.equal(archived.length, 1);
    const none = await run(['job', 'list', '--archived', '--filter-job-name', 'nothing-like-it']);
    assert.equal(none.code, 0);
    assert.equal(none.stdout, '');
    assert.equal(none.stderr, 'No jobs found\n');
  });
});
