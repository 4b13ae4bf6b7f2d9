import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import { createGitMirror, type GitMirror } from '../../../test/support/git-repos.js';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';
import { HELLO_WDL } from '../../../test/support/wdl-workflows.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';

/** `runyard job run` of a WDL workflow on toil-wdl-runner (Debian's toil, installed by .ci/run). */
describe('runyard job run of a WDL workflow', { timeout: 600_000 }, () => {
  let s: RunningServer;
  let mirror: GitMirror;
  let client: RunyardClient;
  let conn: string[];
  let ws: string;
  before(async () => {
    mirror = createGitMirror();
    const repo = mirror.create('acme/hello-wdl', { files: { 'hello.wdl': HELLO_WDL } });
    s = await startRunningServer({ RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites), RUNYARD_WDL_ENGINE: 'toil' });
    ws = s.admin.workspaceId;
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    conn = connectionArgs(s.url, s.admin.apikey, ws);
    await client.createProject(ws, 'demo');
    await client.importWorkflow(ws, {
      workflowUrl: repo.url,
      workflowName: 'hello-wdl',
      repositoryPlatform: 'github',
      mainFile: 'hello.wdl',
    });
  });
  after(async () => {
    client.close();
    await s.close();
    mirror.remove();
  });

  it('starts the stopped engine server, runs the workflow to completion and leaves its File outputs in the results', async () => {
    assert.equal((await client.getCromwellStatus(ws)).status, 'Stopped');
    const r = await runCli(
      [
        ...['job', 'run', '--project-name', 'demo', '--workflow-name', 'hello-wdl', '--wdl-mainfile', 'hello.wdl'],
        ...['-p', 'hello.name="Ada"', '-p', 'hello.times=2', '--job-name', 'wdl-run'],
        ...['--wait-completion', '--request-interval', '0.5', '--wait-time', '300'],
        ...conn,
        // toil-wdl-runner takes tens of seconds on a busy machine: the CLI waits up to --wait-time, so does the test.
      ],
      { timeoutMs: 330_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Starting the workspace's WDL engine server\.\n/);
    const id = r.stdout.trim();
    const job = await client.getJobStatus(id, ws);
    assert.equal(job.status, 'completed');
    assert.equal(job.jobType, 'cromwellAWS');
    assert.equal((await client.getCromwellStatus(ws)).status, 'Running');
    // Quotes are kept on the wire for WDL (seed §2.8 rule 4); the engine takes the string without them.
    assert.deepEqual(
      (job.parameters as Array<{ prefix: string; name: string; textValue: string }>).map((p) => `${p.prefix}${p.name}=${p.textValue}`),
      ['hello.name="Ada"', 'hello.times=2'],
    );
    const results = path.join(s.config.dataDir, 'storage', `runyard-${ws}`, ws, 'jobs', id, 'results', 'results');
    assert.equal(readFileSync(path.join(results, 'greeting.txt'), 'utf8'), 'hello Ada\nhello Ada\n');
  });

  it('without --wdl-mainfile: the main file recorded at import runs', async () => {
    const r = await runCli(
      [
        ...['job', 'run', '--project-name', 'demo', '--workflow-name', 'hello-wdl', '-p', 'hello.name="Bo"', '-p', 'hello.times=1'],
        ...['--job-name', 'wdl-recorded-main', '--wait-completion', '--request-interval', '0.5', '--wait-time', '300'],
        ...conn,
      ],
      { timeoutMs: 330_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.equal((await client.getJobStatus(id, ws)).status, 'completed');
    const results = path.join(s.config.dataDir, 'storage', `runyard-${ws}`, ws, 'jobs', id, 'results', 'results');
    assert.equal(readFileSync(path.join(results, 'greeting.txt'), 'utf8'), 'hello Bo\n');
  });

  it('a wrong engine token is refused before anything is launched', async () => {
    const r = await runCli([
      ...['job', 'run', '--project-name', 'demo', '--workflow-name', 'hello-wdl', '--wdl-mainfile', 'hello.wdl', '-p', 'hello.name=x'],
      ...['--cromwell-token', 'ryc_not-the-token'],
      ...conn,
    ]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /401|not valid|invalid|token/i);
    assert.equal((await client.getJobList(ws, { lastNJobs: 'all' })).jobs.length, 2);
  });
});
