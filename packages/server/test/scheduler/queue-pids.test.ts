import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startBashJobServer, type BashJobServer } from './bash-job-server.js';

/** Where the kernel can hold a task to a number of processes: a v1 pids hierarchy, or v2 with the pids controller. */
const PIDS_CONTROLLER =
  existsSync('/sys/fs/cgroup/pids/tasks') ||
  (existsSync('/sys/fs/cgroup/cgroup.controllers') && /\bpids\b/.test(readFileSync('/sys/fs/cgroup/cgroup.controllers', 'utf8')));

/** Forks up to n children that sleep, and prints how many it made. */
const forks = (n: number) =>
  `/usr/bin/python3 -c 'import os, time\nok = 0\nfor i in range(${n}):\n    try:\n        p = os.fork()\n    except OSError:\n        continue\n    if p == 0:\n        time.sleep(120)\n        os._exit(0)\n    ok += 1\nprint("FORKED", ok)'`;

/**
 * A queue's process limit (pidsLimit): the tasks of its jobs are held to it by the pids controller,
 * and the job's status names that limit; the default queue's tasks get 256 per CPU, at least 512.
 */
describe(
  "a queue's process limit, through the server",
  { skip: !PIDS_CONTROLLER && 'no pids controller on this host', timeout: 300_000 },
  () => {
    let w: BashJobServer;
    before(async () => {
      w = await startBashJobServer();
    });
    after(() => w.close());

    const run = async (command: string, queueId?: string) => {
      const id = await w.submit(command, {
        name: 'forks',
        resourceRequirements: { cpu: 1, ram: 1 },
        ...(queueId && { batch: { enabled: true, jobQueue: queueId } }),
      });
      const job = await w.ended(id);
      return { job, log: w.logOf(id) };
    };

    it('300 forks stop at a queue limit of 100, and the status names it; on the default queue they all succeed', async () => {
      const queue = await w.ok('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'few', pidsLimit: 100 });
      assert.equal(queue.pidsLimit, 100);
      const limited = await run(forks(300), queue.id);
      const made = Number(/FORKED (\d+)/.exec(limited.log)?.[1] ?? NaN);
      assert.ok(made > 0 && made < 100, `forked ${made} of 300 under a limit of 100:\n${limited.log}`);
      assert.match(limited.job.statusMessage ?? '', /new processes were refused at the limit of 100 processes/);
      const free = await run(forks(300));
      assert.match(free.log, /^FORKED 300$/m);
      assert.equal(free.job.status, 'completed');
    });
  },
);
