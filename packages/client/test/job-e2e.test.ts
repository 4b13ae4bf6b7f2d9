import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import { createGitMirror, type GitMirror } from '../../../test/support/git-repos.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';

// Jobs submitted through the SDK really run: the scheduler claims them, the local executor runs
// bash, and the fixture nextflow (on the tasks' PATH) stands in for the real binary.
describe('SDK: jobs that run to completion', () => {
  let mirror: GitMirror;
  let s: RunningServer;
  let client: RunyardClient;
  let ws: string;
  before(async () => {
    mirror = createGitMirror();
    mirror.create('acme/rnatoy', { files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' } });
    s = await startRunningServer({ RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites) });
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    ws = s.admin.workspaceId;
    await client.createProject(ws, 'demo');
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
    await client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/rnatoy', workflowName: 'rnatoy' });
  });
  after(async () => {
    client.close();
    await s.close();
    mirror.remove();
  });

  /** Waits for the job; a job that did not complete fails the test with its status message and log. */
  const completed = async (jobId: string) => {
    const done = await client.waitJobCompletion(jobId, ws, { waitTime: 30, requestInterval: 0.1 });
    if (done.status !== 'completed') {
      const doc = await client.getJobStatus(jobId, ws);
      const log = existsSync(path.join(logsOf(jobId), 'stdout.txt')) ? readFileSync(path.join(logsOf(jobId), 'stdout.txt'), 'utf8') : '';
      assert.fail(`job ${jobId} is ${done.status}: ${doc.statusMessage}\n${log}`);
    }
  };
  const logsOf = (jobId: string) => path.join(s.config.dataDir, 'storage', `runyard-${ws}`, ws, 'jobs', jobId, 'logs');

  it('a bash job completes and its output is in its log', async () => {
    const id = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'echo "sum is $((2+3))"',
      parameters: ['--who=world'],
    });
    const done = await client.waitJobCompletion(id, ws, { waitTime: 30, requestInterval: 0.1 });
    assert.deepEqual(done, { name: 'new_job', id, status: 'completed' });
    const log = readFileSync(path.join(logsOf(id), 'stdout.txt'), 'utf8');
    assert.match(log, /sum is 5 --who world/);
  });

  it('a failing command ends failed with its exit code', async () => {
    const id = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'exit 3',
      jobName: 'fails',
    });
    assert.equal((await client.waitJobCompletion(id, ws, { waitTime: 30, requestInterval: 0.1 })).status, 'failed');
    const doc = await client.getJobStatus(id, ws);
    assert.equal(doc.exitCode, 3);
  });

  it('a Nextflow job runs the fixture with its parameters, trace and .nextflow.log', async () => {
    const id = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'rnatoy',
      parameters: ['reads=s3://bucket/*.fq'],
      nextflowVersion: '24.04.4',
      jobName: 'nf',
    });
    assert.equal((await client.waitJobCompletion(id, ws, { waitTime: 30, requestInterval: 0.1 })).status, 'completed');
    const logs = readdirSync(logsOf(id));
    for (const f of ['.nextflow.log', 'trace.txt', 'stdout.txt']) assert.ok(logs.includes(f), `${f} in ${logs.join(', ')}`);
    assert.match(readFileSync(path.join(logsOf(id), 'stdout.txt'), 'utf8'), /24\.04\.4/);
    assert.ok(existsSync(path.join(logsOf(id), '..', 'results')));
  });

  it('a file uploaded to Data is a job input by its File Explorer path and by glob', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-upload-'));
    writeFileSync(path.join(dir, 'a.csv'), 'id,v\n1,alpha\n');
    writeFileSync(path.join(dir, 'b.csv'), 'id,v\n2,beta\n');
    const datasets = await client.datasets(ws, 'demo');
    await datasets.uploadFile(path.join(dir, 'a.csv'), 'Data');
    await datasets.uploadFile(path.join(dir, 'b.csv'), 'Data');
    const byPath = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'show() { cat "$2"; }; show',
      parameters: ['--table=Data/a.csv'],
      jobName: 'by-path',
    });
    await completed(byPath);
    assert.match(readFileSync(path.join(logsOf(byPath), 'stdout.txt'), 'utf8'), /1,alpha/);
    const byGlob = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'show() { cat $2; }; show',
      parameters: ['--tables=Data/*.csv'],
      jobName: 'by-glob',
    });
    await completed(byGlob);
    const out = readFileSync(path.join(logsOf(byGlob), 'stdout.txt'), 'utf8');
    assert.match(out, /1,alpha/);
    assert.match(out, /2,beta/);
  });

  it('a running job is aborted', async () => {
    const id = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'sleep 30',
      jobName: 'long',
    });
    for (let i = 0; i < 100 && ((await client.getJobStatus(id, ws)) as { status: string }).status !== 'running'; i++)
      await new Promise((r) => setTimeout(r, 50));
    await client.abortJob(id, ws, true);
    assert.equal((await client.waitJobCompletion(id, ws, { waitTime: 30, requestInterval: 0.1 })).status, 'aborted');
  });
});
