import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;
const WAIT = ['--wait-completion', '--request-interval', '0.1', '--wait-time', '30'];

/** abort, archive, unarchive, clone and resume. */
describe('runyard job abort|archive|unarchive|clone|resume', { timeout: 300_000 }, () => {
  let w: JobWorld;
  let dora: Tenant;
  const done: string[] = [];
  before(async () => {
    w = await jobWorld();
    dora = await w.s.newTenant('dora');
    for (const name of ['one', 'two', 'three']) {
      const id = await w.client.sendJob({
        workspaceId: w.ws,
        projectName: 'demo',
        workflowName: 'ubuntu',
        workflowType: 'docker',
        jobName: name,
        command: 'true',
      });
      await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 30 });
      done.push(id);
    }
  });
  after(async () => {
    await w.close();
  });

  const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli([...args, ...w.conn], options);

  /** A bash job running `sleep 30`, once it runs. */
  async function sleeper(): Promise<string> {
    const r = await run([
      'bash',
      'job',
      '--project-name',
      'demo',
      '--workflow-name',
      'ubuntu',
      '--command',
      'sleep 30',
      '--job-name',
      'sleeper',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    for (let i = 0; i < 200 && (await w.client.getJobStatus(id, w.ws)).status !== 'running'; i++) await sleep(50);
    return id;
  }

  async function statusSoon(id: string, wanted: string): Promise<string> {
    let status = '';
    for (let i = 0; i < 200; i++) {
      status = (await w.client.getJobStatus(id, w.ws)).status;
      if (status === wanted) break;
      await sleep(50);
    }
    return status;
  }

  it('abort stops a running job (sleep 30): it ends aborted within the grace time', async () => {
    const id = await sleeper();
    const started = Date.now();
    const r = await run(['job', 'abort', '--job-ids', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${id}\n`);
    assert.equal(r.stderr, `Job '${id}' is being aborted; "runyard job status --job-id ${id}" shows when it is.\n`);
    assert.equal(await statusSoon(id, 'aborted'), 'aborted');
    assert.ok(Date.now() - started < 25_000, 'ended before its sleep 30 would have');
    const status = await run(['job', 'status', '--job-id', id]);
    assert.equal(status.stdout, 'aborted\n');
  });

  it('abort --force with several ids: active ones are aborted, finished ones skipped with a message', async () => {
    const id = await sleeper();
    const r = await run(['job', 'abort', '--job-ids', `${id},${done[0]}`, '--force']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${id}\n`);
    assert.equal(
      r.stderr,
      `Job '${id}' is being aborted (forced); "runyard job status --job-id ${id}" shows when it is.\n` +
        `Job '${done[0]}' is completed; only queued, scheduled, initializing and running jobs can be aborted. Skipped.\n`,
    );
    assert.equal(await statusSoon(id, 'aborted'), 'aborted');
  });

  it("abort: an unknown or another workspace's id is reported and exits 1, after the others are done", async () => {
    const other = connectionArgs(w.s.url, dora.apikey, dora.workspaceId);
    const r = await runCli(['job', 'abort', '--job-ids', done[1], ...other]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      new RegExp(`^Failed to abort job ${done[1]}: [^\\n]+ \\(HTTP 404\\)\\nError: 1 of 1 job could not be aborted: ${done[1]}\\.\\n$`),
    );
    assert.equal((await w.client.getJobStatus(done[1], w.ws)).status, 'completed');
    const mixed = await run(['job', 'abort', '--job-ids', `0123456789abcdef01234567,${done[1]}`]);
    assert.equal(mixed.code, 1);
    assert.match(mixed.stderr, /^Failed to abort job 0123456789abcdef01234567: [^\n]+\n/);
    assert.match(mixed.stderr, /is completed; [^\n]+ Skipped\.\n/);
    const empty = await run(['job', 'abort', '--job-ids', ' , ']);
    assert.equal(empty.code, 2);
    assert.equal(empty.stderr, 'Error: No job IDs provided. Give them as --job-ids ID1,ID2.\n');
  });

  it('archive and unarchive print the cloudos-cli messages; already archived needs no action', async () => {
    const [a, b, c] = done;
    const one = await run(['job', 'archive', '--job-ids', a]);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, `${a}\n`);
    assert.equal(one.stderr, `Job '${a}' archived successfully.\n`);
    const again = await run(['job', 'archive', '--job-ids', a]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, '');
    assert.equal(again.stderr, `Job '${a}' is already archived. No action needed.\n`);

    const three = await run(['job', 'archive', '--job-ids', `${a},${b},${c}`]);
    assert.equal(three.code, 0, three.stderr);
    assert.equal(three.stdout, `${b}\n${c}\n`);
    assert.equal(three.stderr, `Job '${a}' is already archived. No action needed.\n2 jobs archived successfully: ${b}, ${c}\n`);
    const all = await run(['job', 'archive', '--job-ids', `${a},${b},${c}`]);
    assert.equal(all.stderr, 'All 3 jobs are already archived. No action needed.\n');

    const listed = await run(['job', 'list', '--archived', '--output-format', 'json']);
    assert.deepEqual((JSON.parse(listed.stdout) as Array<{ _id: string }>).map((j) => j._id).sort(), [a, b, c].sort());

    const back = await run(['job', 'unarchive', '--job-ids', `${a},${b},${c}`]);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(back.stderr, `3 jobs unarchived successfully: ${a}, ${b}, ${c}\n`);
    const backAgain = await run(['job', 'unarchive', '--job-ids', a]);
    assert.equal(backAgain.stderr, `Job '${a}' is already unarchived. No action needed.\n`);
  });

  it("archive: an invalid or another workspace's id gets a warning and exit 0 (as cloudos-cli); none is a usage error", async () => {
    const r = await run(['job', 'archive', '--job-ids', `invalid_job,${done[2]}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${done[2]}\n`);
    assert.match(r.stderr, /^Warning: Failed to get status for job invalid_job: A job id is 24 hexadecimal characters[^\n]*\n/);
    assert.match(r.stderr, new RegExp(`\\nJob '${done[2]}' archived successfully\\.\\n$`));
    const other = connectionArgs(w.s.url, dora.apikey, dora.workspaceId);
    const foreign = await runCli(['job', 'unarchive', '--job-ids', done[2], ...other]);
    assert.equal(foreign.code, 0, foreign.stderr);
    assert.equal(foreign.stdout, '');
    assert.match(
      foreign.stderr,
      new RegExp(`^Warning: Failed to get status for job ${done[2]}: Job not found\\nNo job to unarchive\\.\\n$`),
    );
    assert.equal((await w.client.getJobList(w.ws, { archived: true })).jobs.length, 1, "dora's unarchive changed nothing");
    await run(['job', 'unarchive', '--job-ids', done[2]]);
    const empty = await run(['job', 'archive', '--job-ids', '']);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /No job IDs provided/);
  });

  it('clone runs a copy with the changes given; resume continues a resumable job', async () => {
    const original = await run([
      'job',
      'run',
      '--project-name',
      'demo',
      '--workflow-name',
      'rnatoy',
      '-p',
      'reads=a.fq',
      '-p',
      'threads=2',
      '--resumable',
      ...WAIT,
    ]);
    assert.equal(original.code, 0, original.stderr);
    const id = original.stdout.trim();
    const clone = await run(['job', 'clone', '--job-id', id, '--job-name', 'cloned', '-p', 'threads=8', ...WAIT]);
    assert.equal(clone.code, 0, clone.stderr);
    const cloneId = clone.stdout.trim();
    assert.match(cloneId, ID);
    assert.notEqual(cloneId, id);
    assert.match(clone.stderr, new RegExp(`^Job ${id} cloned as ${cloneId}: ${w.s.url}/app/advanced-analytics/analyses/${cloneId}\\n`));
    const cloned = await w.client.getJobStatus(cloneId, w.ws);
    assert.equal(cloned.status, 'completed');
    assert.equal(cloned.name, 'cloned');
    assert.deepEqual(
      (cloned.parameters as Array<{ name: string; textValue: string }>).map((p) => `${p.name}=${p.textValue}`),
      ['reads=a.fq', 'threads=8'],
    );

    const resume = await run(['job', 'resume', '--job-id', id, ...WAIT]);
    assert.equal(resume.code, 0, resume.stderr);
    const resumedId = resume.stdout.trim();
    assert.match(resume.stderr, new RegExp(`^Job ${id} resumed as ${resumedId}: `));
    const resumed = await w.client.getJobStatus(resumedId, w.ws);
    assert.equal(resumed.status, 'completed');
    assert.equal(resumed.resumeWorkDir, (await w.client.getJobStatus(id, w.ws)).resumeWorkDir);

    const notResumable = await run(['job', 'resume', '--job-id', done[0]]);
    assert.equal(notResumable.code, 1);
    assert.equal(notResumable.stderr, 'Error: The job was not set as resumable when originally run\n');
  });
});
