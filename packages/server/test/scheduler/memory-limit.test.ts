import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { detectCgroups } from '../../src/executors/sandbox/cgroup.js';
import { startBashJobServer, type BashJobServer } from './bash-job-server.js';

const host = detectCgroups('auto');
const skip = host.unavailable ? `no cgroups on this host: ${host.unavailable}` : false;

/** The "done when": a bash job given 1 GiB that allocates 2 GiB fails and says why; one within its limit completes. */
describe('memory limits of jobs, through the server', { timeout: 300_000, skip }, () => {
  let w: BashJobServer;
  const submit = (command: string, ram: number) =>
    w.submit(command, {
      name: 'memory',
      resourceRequirements: { cpu: 1, ram },
      execution: { computeCostLimit: -1 },
      batch: { enabled: false },
    });
  const ended = (id: string) => w.ended(id);
  const logOf = (id: string) => w.logOf(id);

  before(async () => {
    w = await startBashJobServer();
  });
  after(async () => {
    await w.close();
  });

  it('a bash job with 1 GiB that allocates 2 GiB fails with "exceeded its memory limit of 1 GiB", in its status and its log', async () => {
    // tail holds a line until its end: here 2 GiB without a newline.
    const id = await submit('set -o pipefail; head -c 2G /dev/zero | tail | wc -c', 1);
    const job = await ended(id);
    assert.equal(job.status, 'failed', logOf(id));
    assert.match(job.statusMessage, /exceeded its memory limit of 1 GiB/);
    assert.match(logOf(id), /^The task exceeded its memory limit of 1 GiB\.\n$/m);
    assert.doesNotMatch(logOf(id), /^2147483648$/m);
  });

  it('a job within its limit completes', async () => {
    const id = await submit('set -o pipefail; head -c 256M /dev/zero | tail | wc -c', 1);
    const job = await ended(id);
    assert.equal(job.status, 'completed', logOf(id));
    assert.match(logOf(id), /^268435456$/m);
    assert.doesNotMatch(logOf(id), /not enforced/);
  });
});
