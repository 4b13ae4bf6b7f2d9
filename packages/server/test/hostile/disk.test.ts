// T21: a job that fills the disk. Its work, results and logs directories are measured every
// RUNYARD_DISK_CHECK_SECONDS (1 s here) without following links; past its storageSizeInGb it is
// stopped and fails with a message that says so, in its status and as the last line of its log.
// A link to a large file outside its directories does not count, nor does a hard link twice.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stop } from '../../../../test/support/server-process.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { finished, world, type World } from './world.js';

describe('T21: disk filling', { timeout: 300_000 }, () => {
  let w: World;
  before(async () => {
    w = await world('bwrap', { RUNYARD_DISK_CHECK_SECONDS: '1' });
  });
  after(async () => {
    await w?.api('PUT', `/api/v2/jobs/${w.sleeperJob}/abort?teamId=${w.admin.ws}&forceAbort=true`, w.admin.key);
    if (w) await stop(w.server);
    // Gigabytes of allocated files: not left behind in the machine's temporary directory.
    if (w) rmSync(path.dirname(w.dataDir), { recursive: true, force: true });
  });

  const run = async (command: string, storageSizeInGb: number) => {
    const { mallory: m } = w;
    const id = await w.submit(m.key, m.ws, m.project, m.workflow, command, {}, { storageSizeInGb });
    const status = await finished(w, m.key, m.ws, id);
    const job = (await w.api('GET', `/api/v1/jobs/${id}?teamId=${m.ws}`, m.key)).json;
    const log = readFileSync(path.join(jobPaths(w.dataDir, m.ws, id).logs, 'stdout.txt'), 'utf8');
    return { status, job, log };
  };

  it('a job that writes past its disk limit is stopped and fails with the disk message', async () => {
    const { status, job, log } = await run('fallocate -l 1536M "$RUNYARD_RESULTS_DIR/fill" && echo FILLED && sleep 300; :', 1);
    assert.equal(status, 'failed');
    assert.match(
      job.statusMessage ?? job.status_message ?? JSON.stringify(job),
      /past its disk limit of 1 GiB \(storageSizeInGb, --instance-disk\)/,
    );
    assert.match(log, /^FILLED$/m);
    assert.match(log.trimEnd().split('\n').at(-1)!, /^Runyard: the job was stopped: it wrote 1\.\d\d GiB .* past its disk limit of 1 GiB/);
  });

  it('what lies outside its directories (through a link) and a second hard link do not count', async () => {
    const command = [
      'fallocate -l 700M "$RUNYARD_RESULTS_DIR/once"',
      'ln "$RUNYARD_RESULTS_DIR/once" "$RUNYARD_RESULTS_DIR/twice"',
      'ln -s /usr "$RUNYARD_RESULTS_DIR/usr"',
      'sleep 4',
      'echo DONE',
    ].join(' && ');
    const { status, log } = await run(`${command}; :`, 1);
    assert.equal(status, 'completed', log);
    assert.match(log, /^DONE$/m);
  });
});
