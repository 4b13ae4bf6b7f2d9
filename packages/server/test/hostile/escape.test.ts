import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { usingPostgres } from '../../../../test/support/database.js';
import { running, stop } from '../../../../test/support/server-process.js';
import { endOrphanedTasks, finished, snapshot, status, world, type World } from './world.js';

// T13: a non-admin member of a second workspace runs jobs that try to escape their sandbox. Each
// attempt is a row: a bash command (it gets the server's pid and the victim's ids as parameters,
// and finds the data directory from its own path, as an attacker would) and what its log must not
// show. With the sandbox (the default) every attempt fails and the server's data is unchanged; with
// RUNYARD_SANDBOX=none the same attempts succeed, so the test can fail.

/** The attacker's script starts with D, the data directory computed from its own work directory, and ends with ":", which takes the job's arguments. */
const FIND_DATA = 'D=${PWD%%/storage/*}';

interface Attempt {
  name: string;
  command: string;
  /** What must not appear in the job's log (it does when the attempt succeeds). */
  leak?: RegExp;
  /**
   * A file (relative to the data directory) that must not exist on the host afterwards. Writes are
   * judged on the host: in the sandbox the folders that lead to the task's own are a skeleton
   * (on its private /tmp when the data directory is there, as in this test), not the data directory.
   */
  written?: (victim: { ws: string; job: string }) => string;
}

const ATTEMPTS: Attempt[] = [
  { name: 'read initial-admin.json', command: 'cat "$D/initial-admin.json"', leak: /ADMINKEY/ },
  { name: 'list the data directory', command: 'ls -R "$D"', leak: /initial-admin\.json/ },
  { name: 'read the SQLite database file', command: 'ls "$D"/runyard.db* && echo DBFILE-SEEN', leak: /DBFILE-SEEN/ },
  {
    name: "read another workspace's uploaded file",
    command: 'find "$D/storage" -type f -name "*.csv" -exec cat {} +',
    leak: /VICTIM-UPLOAD-SECRET/,
  },
  {
    name: "read another workspace's job logs",
    command: 'cat "$D/storage/runyard-$RUNYARD_PARAM_VICTIM_WS/$RUNYARD_PARAM_VICTIM_WS/jobs/$RUNYARD_PARAM_VICTIM_JOB/logs/stdout.txt"',
    leak: /VICTIM-LOG-SECRET/,
  },
  {
    name: "read the server's environment and command line",
    command: 'tr "\\0" "\\n" < /proc/$RUNYARD_PARAM_SERVER_PID/environ; tr "\\0" " " < /proc/$RUNYARD_PARAM_SERVER_PID/cmdline',
    leak: /RUNYARD_DATA_DIR|main\.js/,
  },
  { name: 'write into the data directory', command: 'echo x > "$D/PWNED"', written: () => 'PWNED' },
  {
    name: "write into another job's work directory",
    command: 'echo x > "$D/storage/runyard-$RUNYARD_PARAM_VICTIM_WS/$RUNYARD_PARAM_VICTIM_WS/jobs/$RUNYARD_PARAM_VICTIM_JOB/work/PWNED"',
    written: (v) => `storage/runyard-${v.ws}/${v.ws}/jobs/${v.job}/work/PWNED`,
  },
  {
    name: "list other jobs' processes",
    command: 'ps -eo args; cat /proc/[0-9]*/cmdline | tr "\\0" " "',
    leak: /VICTIM-PROC-MARK|main\.js/,
  },
  {
    name: 'follow a symlink planted in its own results',
    command: 'ln -s "$D/initial-admin.json" "$RUNYARD_RESULTS_DIR/leak.json"; cat "$RUNYARD_RESULTS_DIR/leak.json"',
    leak: /ADMINKEY/,
  },
  // Last: with the sandbox off it succeeds, and the server is gone.
  { name: 'kill the server', command: 'kill -9 "$RUNYARD_PARAM_SERVER_PID" && echo KILLED', leak: /KILLED/ },
];

/** Runs one attempt as the attacker; answers its log. */
async function attempt(w: World, a: Attempt): Promise<string> {
  const id = await w.submit(w.mallory.key, w.mallory.ws, w.mallory.project, w.mallory.workflow, `${FIND_DATA}; ${a.command}; :`, {
    server_pid: String(w.server.child.pid),
    victim_ws: w.admin.ws,
    victim_job: w.victimJob,
  });
  await finished(w, w.mallory.key, w.mallory.ws, id);
  return readFileSync(path.join(jobPaths(w.dataDir, w.mallory.ws, id).logs, 'stdout.txt'), 'utf8');
}

/** Whether the attempt got through: its log shows what it was after, or its file exists on the host. */
function succeeded(w: World, a: Attempt, log: string): boolean {
  const leak = a.leak?.source === 'ADMINKEY' ? new RegExp(w.admin.key) : a.leak;
  const written = a.written && path.join(w.dataDir, a.written({ ws: w.admin.ws, job: w.victimJob }));
  return Boolean(leak?.test(log) || (written && existsSync(written)));
}

describe('T13: sandbox escape', { timeout: 600_000 }, () => {
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it('every attempt of a member of another workspace fails, and the server and its data are unchanged', async () => {
    const w = await world('bwrap');
    const own = path.join(w.dataDir, 'storage', `runyard-${w.mallory.ws}`);
    const before = snapshot(w.dataDir, [own, path.join(w.dataDir, 'run')]);
    for (const a of ATTEMPTS) {
      const log = await attempt(w, a);
      assert.ok(!succeeded(w, a, log), `attempt "${a.name}" succeeded:\n${log}`);
    }
    assert.equal(w.server.child.exitCode, null, 'the server was killed');
    assert.equal(await status(w, w.admin.key, w.admin.ws, w.sleeperJob), 'running');
    assert.deepEqual(snapshot(w.dataDir, [own, path.join(w.dataDir, 'run')]), before);
    await w.api('PUT', `/api/v2/jobs/${w.sleeperJob}/abort?teamId=${w.admin.ws}&forceAbort=true`, w.admin.key);
    await finished(w, w.admin.key, w.admin.ws, w.sleeperJob);
    await stop(w.server);
  });

  it('with RUNYARD_SANDBOX=none the same attempts succeed (the test above can fail)', async () => {
    const w = await world('none');
    assert.match(w.server.stdout(), /RUNYARD_SANDBOX=none/);
    for (const a of ATTEMPTS) {
      // The database is not a file on PostgreSQL.
      if (a.name.includes('SQLite') && usingPostgres()) continue;
      if (a.name === 'kill the server') {
        void attempt(w, a).catch(() => undefined);
        assert.equal(await Promise.race([w.server.exited.then(() => 'killed'), sleep(60_000).then(() => 'alive')]), 'killed');
        continue;
      }
      const log = await attempt(w, a);
      assert.ok(succeeded(w, a, log), `attempt "${a.name}" failed without a sandbox:\n${log}`);
    }
    for (const child of running) child.kill('SIGKILL');
    await endOrphanedTasks(w.dataDir);
  });
});
