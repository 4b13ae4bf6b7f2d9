// T22: the tasks of a server that runs as root run as an unprivileged host user (RUNYARD_TASK_UID,
// RUNYARD_TASK_GID; 65534 by default), never as root outside their sandbox: what they write belongs
// to it on the host, their processes are its, and the rest of the data directory stays root's.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stop } from '../../../../test/support/server-process.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { finished, world, type World } from './world.js';

/** The host uid of every process whose command line is exactly this argv (the task's own, not the sandbox's that names it). */
function uidsOf(argv: string[]): number[] {
  const uids: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== `${argv.join('\0')}\0`) continue;
      const line = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (line) uids.push(Number(line[1]));
    } catch {
      // Ended meanwhile.
    }
  }
  return uids;
}

describe(
  'T22: the host uid of a root server’s tasks',
  { timeout: 300_000, skip: process.getuid?.() === 0 ? false : 'the server is not root here' },
  () => {
    let w: World;
    before(async () => {
      w = await world('bwrap', { RUNYARD_TASK_UID: '64000', RUNYARD_TASK_GID: '64001' });
    });
    after(async () => {
      await w?.api('PUT', `/api/v2/jobs/${w.sleeperJob}/abort?teamId=${w.admin.ws}&forceAbort=true`, w.admin.key);
      if (w) await stop(w.server);
    });

    it('a task runs as the configured host uid and gid, its files are theirs, and the data directory stays root’s', async () => {
      const { mallory: m } = w;
      const sleeper = ['sleep', `3.${process.pid}`];
      const id = await w.submit(m.key, m.ws, m.project, m.workflow, `echo made > "$RUNYARD_RESULTS_DIR/made.txt"; ${sleeper.join(' ')}; :`);
      let seen: number[] = [];
      for (let i = 0; i < 200 && !seen.length; i++) {
        seen = uidsOf(sleeper);
        if (!seen.length) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(seen.length, 'the task was seen running');
      assert.ok(
        seen.every((uid) => uid === 64000),
        `the task's processes run as ${seen.join(', ')}`,
      );
      assert.equal(await finished(w, m.key, m.ws, id), 'completed');
      const made = statSync(path.join(jobPaths(w.dataDir, m.ws, id).results, 'made.txt'));
      assert.deepEqual([made.uid, made.gid], [64000, 64001]);
      const data = statSync(w.dataDir);
      assert.deepEqual([data.uid, data.mode & 0o777], [0, 0o700]);
      const key = statSync(path.join(w.dataDir, 'secret.key'));
      assert.equal(key.uid, 0);
    });
  },
);
