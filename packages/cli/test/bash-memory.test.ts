import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { detectCgroups } from '../../server/src/executors/sandbox/cgroup.js';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli } from './support/run-cli.js';

const host = detectCgroups('auto');
const skip = host.unavailable ? `no cgroups on this host: ${host.unavailable}` : false;

describe('runyard bash job --memory', { timeout: 300_000, skip }, () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(async () => {
    await w.close();
  });

  it('a job given --memory 1 that allocates 2 GiB fails, and the command says it exceeded its memory limit', async () => {
    const r = await runCli([
      ...['bash', 'job', '--project-name', 'demo', '--workflow-name', 'ubuntu', '--cpus', '1', '--memory', '1'],
      // tail holds a line until its end: here 2 GiB without a newline.
      ...['--command', 'set -o pipefail; head -c 2G /dev/zero | tail | wc -c'],
      ...['--wait-completion', '--request-interval', '0.2', '--wait-time', '240'],
      ...w.conn,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\nError: Job [0-9a-f]{24} failed after \d+s: The task exceeded its memory limit of 1 GiB\.\n$/);
  });
});
