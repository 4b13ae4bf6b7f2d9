import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import { startRunningServer, type RunningServer } from '../../../test/support/running-server.js';
import { s3BackendEnv, startS3Server, type S3TestServer } from '../../../test/support/s3-server.js';

const CLI = fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url));

// On the S3 backend a job runs on a local copy and its logs, results and work directory land in
// the workspace's bucket; the SDK and the CLI then show them as s3:// URLs.
describe('job data on the S3 backend (s3rver): SDK and CLI', () => {
  let s3: S3TestServer;
  let s: RunningServer;
  let client: RunyardClient;
  let ws: string;
  let jobId: string;
  before(async () => {
    s3 = await startS3Server();
    s = await startRunningServer({
      ...s3BackendEnv(s3),
    });
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    ws = s.admin.workspaceId;
    await client.createProject(ws, 'demo');
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
    jobId = await client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      jobName: 's3-job',
      command: 'mkdir -p "$RUNYARD_RESULTS_DIR/results" && echo hello > "$RUNYARD_RESULTS_DIR/results/out.txt" && echo done',
    });
    assert.equal((await client.waitJobCompletion(jobId, ws, { waitTime: 60, requestInterval: 0.1 })).status, 'completed');
  });
  after(async () => {
    client?.close();
    await s?.close();
    await s3?.stop();
  });

  const prefix = () => `${ws}/jobs/${jobId}`;

  it('the SDK shows logs, results and the work directory as s3:// URLs in the workspace bucket', async () => {
    const logs = await client.getJobLogs(jobId, ws);
    assert.equal(logs['Nextflow standard output'], `s3://runyard-${ws}/${prefix()}/logs/stdout.txt`);
    assert.equal(await client.getJobResults(jobId, ws), `s3://runyard-${ws}/${prefix()}/results/results`);
    assert.equal(await client.getJobWorkdir(jobId, ws), `s3://runyard-${ws}/${prefix()}/work`);
    const contents = await client.getStorageContents('aws', null, `runyard-${ws}`, `${prefix()}/results/results`, ws);
    assert.deepEqual(
      contents.map((c) => [c.name, c.isDir]),
      [['out.txt', false]],
    );
  });

  it('the CLI lists them too', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'job', 'logs', '--job-id', jobId, '--apikey', s.admin.apikey, '--platform-url', s.url, '--workspace-id', ws],
      { env: { PATH: process.env.PATH, HOME: s.config.dataDir } },
    );
    assert.match(stdout, new RegExp(`s3://runyard-${ws}/${prefix()}/logs/stdout.txt`));
  });
});
