import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

const WAIT = ['--wait-completion', '--request-interval', '0.1', '--wait-time', '30'];

/** The options a clone changes reach the new job: its instance type, and file staging reported as sent. */
describe('runyard job clone --instance-type --accelerate-file-staging', { timeout: 120_000 }, () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(async () => {
    await w.close();
  });

  const stdoutOf = (id: string) =>
    readFileSync(path.join(w.s.config.dataDir, 'storage', `runyard-${w.ws}`, w.ws, 'jobs', id, 'logs', 'stdout.txt'), 'utf8');
  const NOTE = /^Runyard: usesFusionFileSystem has no effect on this executor/gm;

  it('honours the requested instance and reports usesFusionFileSystem, noting once that it has no effect', async () => {
    const id = await w.client.sendJob({
      workspaceId: w.ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      jobName: 'parent',
      command: 'echo hi',
    });
    await w.client.waitJobCompletion(id, w.ws, { requestInterval: 0.1, waitTime: 30 });
    const parent = await w.client.getJobStatus(id, w.ws);
    assert.equal(parent.instanceType, 'c5.xlarge');
    assert.equal(parent.usesFusionFileSystem, false);
    assert.doesNotMatch(stdoutOf(id), NOTE);

    const clone = await runCli(
      ['job', 'clone', '--job-id', id, '--instance-type', 'c5.2xlarge', '--accelerate-file-staging', ...WAIT, ...w.conn],
      {},
    );
    assert.equal(clone.code, 0, clone.stderr);
    const cloneId = clone.stdout.trim();
    const cloned = await w.client.getJobStatus(cloneId, w.ws);
    assert.equal(cloned.status, 'completed');
    assert.equal(cloned.instanceType, 'c5.2xlarge');
    assert.equal((cloned.masterInstance as { requestedInstance: { type: string } }).requestedInstance.type, 'c5.2xlarge');
    assert.equal(cloned.usesFusionFileSystem, true);
    assert.equal(stdoutOf(cloneId).match(NOTE)?.length, 1);
  });
});
