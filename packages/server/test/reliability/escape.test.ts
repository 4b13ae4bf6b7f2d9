import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { groupMembers } from '../../src/executors/proc.js';
import { TaskLimits } from '../../src/executors/sandbox/limits.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { freshDatabaseUrl, usingPostgres } from '../../../../test/support/database.js';
import { running, startMain, stop, type ServerProcess } from '../../../../test/support/server-process.js';

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

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Path and content hash of every file of the data directory outside `except` (the attacker's own job). */
function snapshot(dir: string, except: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile() || except.some((e) => file.startsWith(e + path.sep))) continue;
    // SQLite's own files change as the server works; the rows are checked through the API.
    if (/runyard\.db(-wal|-shm|-journal)?$/.test(file)) continue;
    out.set(file, `${statSync(file).size}:${createHash('sha256').update(readFileSync(file)).digest('hex')}`);
  }
  return out;
}

interface World {
  server: ServerProcess;
  dataDir: string;
  api(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; json: any }>;
  admin: { key: string; ws: string };
  mallory: { key: string; ws: string; project: string; workflow: string };
  victimJob: string;
  sleeperJob: string;
  /** Submits a bash job; answers its id. */
  submit(key: string, ws: string, project: string, workflow: string, command: string, params?: Record<string, string>): Promise<string>;
}

async function world(sandbox: 'bwrap' | 'none'): Promise<World> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-t13-'));
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const env: Record<string, string> = {
    RUNYARD_DATA_DIR: dataDir,
    RUNYARD_PORT: String(port),
    RUNYARD_LOG_LEVEL: 'warn',
    RUNYARD_SCHEDULER_POLL_MS: '100',
    RUNYARD_SANDBOX: sandbox,
  };
  if (usingPostgres()) env.RUNYARD_DATABASE_URL = await freshDatabaseUrl();
  const server = startMain(env);
  const key = (await server.waitFor(/API key: +(\S+)/))[1];
  const ws = (await server.waitFor(/Workspace id: +([0-9a-f]{24})/))[1];
  const base = `http://127.0.0.1:${port}`;
  const api = async (method: string, url: string, apikey: string, body?: unknown) => {
    const r = await fetch(`${base}${url}`, {
      method,
      headers: { apikey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null };
  };
  const ok = async (method: string, url: string, apikey: string, body?: unknown) => {
    const r = await api(method, url, apikey, body);
    assert.ok(r.status < 300, `${method} ${url}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  // The victim (the admin's workspace): an uploaded file, a finished job with a secret in its log, a running job.
  const project = (await ok('POST', `/api/v1/projects?teamId=${ws}`, key, { name: 'victim' }))._id;
  const upload = await fetch(`${base}/api/runyard/datasets/upload?teamId=${ws}&projectId=${project}&name=secret.csv`, {
    method: 'POST',
    headers: { apikey: key, 'content-type': 'application/octet-stream' },
    body: 'VICTIM-UPLOAD-SECRET\n',
  });
  assert.equal(upload.status, 201);
  const sh = async (teamId: string) =>
    (await ok('POST', '/api/runyard/admin/workflows/docker', key, { workspaceId: teamId, name: 'sh', containerName: 'library/ubuntu' }))
      ._id;
  const victimWorkflow = await sh(ws);
  const job = (
    apikey: string,
    teamId: string,
    projectId: string,
    workflow: string,
    command: string,
    params: Record<string, string> = {},
  ): Promise<string> =>
    ok('POST', `/api/v2/jobs?teamId=${teamId}`, apikey, {
      project: projectId,
      workflow,
      name: 'job',
      command,
      parameters: Object.entries(params).map(([name, textValue]) => ({ prefix: '--', name, parameterKind: 'textValue', textValue })),
      executionPlatform: 'aws',
    }).then((r) => r.jobId as string);
  const victimJob = await job(key, ws, project, victimWorkflow, 'echo VICTIM-LOG-SECRET');
  const sleeperJob = await job(key, ws, project, victimWorkflow, 'sleep 300 && echo VICTIM-PROC-MARK');
  // The attacker: a member (not an administrator) of a second workspace.
  const mws = (await ok('POST', '/api/runyard/admin/workspaces', key, { name: 'mallory' })).id;
  const user = (await ok('POST', '/api/runyard/admin/users', key, { username: 'mallory', email: 'mallory@example.org' })).id;
  await ok('POST', '/api/runyard/admin/members', key, { workspaceId: mws, userId: user, role: 'member' });
  const mkey = (await ok('POST', '/api/runyard/admin/apikeys', key, { userId: user })).apikey;
  const mproject = (await ok('POST', `/api/v1/projects?teamId=${mws}`, mkey, { name: 'mine' }))._id;
  const w: World = {
    server,
    dataDir,
    api,
    admin: { key, ws },
    mallory: { key: mkey, ws: mws, project: mproject, workflow: await sh(mws) },
    victimJob,
    sleeperJob,
    submit: job,
  };
  await finished(w, key, ws, victimJob);
  for (let i = 0; i < 300 && (await status(w, key, ws, sleeperJob)) !== 'running'; i++) await sleep(100);
  assert.equal(await status(w, key, ws, sleeperJob), 'running', 'the victim job whose process the attacker looks for');
  return w;
}

async function status(w: World, key: string, ws: string, id: string): Promise<string> {
  return (await w.api('GET', `/api/v1/jobs/${id}?teamId=${ws}`, key)).json.status;
}

async function finished(w: World, key: string, ws: string, id: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const s = await status(w, key, ws, id);
    if (['completed', 'failed', 'aborted'].includes(s)) return s;
    await sleep(100);
  }
  throw new Error(`job ${id} did not finish`);
}

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

/**
 * The tasks of a server that was killed (nothing settles them now): their process groups are
 * killed and their cgroups removed, so that the test leaves nothing running on the machine.
 */
async function endOrphanedTasks(dataDir: string): Promise<void> {
  const runDir = path.join(dataDir, 'run');
  const limits = new TaskLimits();
  for (const job of existsSync(runDir) ? readdirSync(runDir) : []) {
    const control = { dir: path.join(runDir, job), attempt: 1 };
    const pidFile = path.join(control.dir, 'attempt-1.pid');
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split(' ')[0]) : 0;
    try {
      if (pid > 0) process.kill(-pid, 'SIGKILL');
    } catch {
      // Ended already.
    }
    for (let i = 0; i < 100 && pid > 0 && groupMembers(pid).length; i++) await sleep(50);
    await limits.discard(control);
  }
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
