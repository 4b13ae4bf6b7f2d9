// The world of the hostile-tenant tests: a real server process (SQLite, or PostgreSQL in the
// PostgreSQL run) whose admin owns a victim workspace (an uploaded file, a finished job with a
// secret in its log, a running job), and mallory, a plain member of a second workspace, who runs
// the attacks as bash jobs, on the local executor or (slurm) on the machine's Slurm cluster.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { groupMembers } from '../../src/executors/proc.js';
import { TaskLimits } from '../../src/executors/sandbox/limits.js';
import { freshDatabaseUrl, usingPostgres } from '../../../../test/support/database.js';
import { startMain, type ServerProcess } from '../../../../test/support/server-process.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Path and content hash of every file of the data directory outside `except` (the attacker's own job). */
export function snapshot(dir: string, except: string[]): Map<string, string> {
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

export interface World {
  server: ServerProcess;
  /** The server's environment: a test restarts it with the same. */
  env: Record<string, string>;
  dataDir: string;
  port: number;
  api(method: string, url: string, key: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** project, workflow: the victim's own, for jobs of the victim's workspace. */
  admin: { key: string; ws: string; project: string; workflow: string };
  /** placement: what mallory's job bodies add to run where the world's attacks run (the Slurm cluster, or nothing). */
  mallory: { key: string; ws: string; project: string; workflow: string; placement: Record<string, unknown> };
  victimJob: string;
  sleeperJob: string;
  /** Submits a bash job; answers its id. */
  submit(
    key: string,
    ws: string,
    project: string,
    workflow: string,
    command: string,
    params?: Record<string, string>,
    extra?: Record<string, unknown>,
  ): Promise<string>;
}

export async function world(
  sandbox: 'bwrap' | 'none',
  extraEnv: Record<string, string> = {},
  options: { slurm?: boolean } = {},
): Promise<World> {
  if (options.slurm) slurmClusterUp();
  // On Slurm the data directory is in the cluster's shared directory (one node: any local directory).
  const dir = mkdtempSync(path.join(options.slurm ? sharedDirectory() : os.tmpdir(), 'runyard-t13-'));
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const env: Record<string, string> = {
    RUNYARD_DATA_DIR: dataDir,
    RUNYARD_PORT: String(port),
    RUNYARD_LOG_LEVEL: 'warn',
    RUNYARD_SCHEDULER_POLL_MS: '100',
    RUNYARD_SANDBOX: sandbox,
    ...(options.slurm && { RUNYARD_SLURM_POLL_MS: '300' }),
    ...extraEnv,
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
    extra: Record<string, unknown> = {},
  ): Promise<string> =>
    ok('POST', `/api/v2/jobs?teamId=${teamId}`, apikey, {
      project: projectId,
      workflow,
      name: 'job',
      command,
      parameters: Object.entries(params).map(([name, textValue]) => ({ prefix: '--', name, parameterKind: 'textValue', textValue })),
      executionPlatform: 'aws',
      // A placement of extra's (executionPlatform hpc and its cluster) wins.
      ...extra,
    }).then((r) => r.jobId as string);
  const victimJob = await job(key, ws, project, victimWorkflow, 'echo VICTIM-LOG-SECRET');
  const sleeperJob = await job(key, ws, project, victimWorkflow, 'sleep 300 && echo VICTIM-PROC-MARK');
  // The attacker: a member (not an administrator) of a second workspace.
  const mws = (await ok('POST', '/api/runyard/admin/workspaces', key, { name: 'mallory' })).id;
  const user = (await ok('POST', '/api/runyard/admin/users', key, { username: 'mallory', email: 'mallory@example.org' })).id;
  await ok('POST', '/api/runyard/admin/members', key, { workspaceId: mws, userId: user, role: 'member' });
  const mkey = (await ok('POST', '/api/runyard/admin/apikeys', key, { userId: user })).apikey;
  const mproject = (await ok('POST', `/api/v1/projects?teamId=${mws}`, mkey, { name: 'mine' }))._id;
  const placement = options.slurm
    ? {
        executionPlatform: 'hpc',
        hpc: (
          await ok('POST', '/api/runyard/admin/hpc', key, {
            name: 'dev',
            partitions: ['debug', 'batch'],
            sharedDirectory: path.dirname(dir),
          })
        ).id,
      }
    : {};
  const w: World = {
    server,
    env,
    dataDir,
    port,
    api,
    admin: { key, ws, project, workflow: victimWorkflow },
    mallory: { key: mkey, ws: mws, project: mproject, workflow: await sh(mws), placement },
    victimJob,
    sleeperJob,
    submit: job,
  };
  await finished(w, key, ws, victimJob);
  for (let i = 0; i < 300 && (await status(w, key, ws, sleeperJob)) !== 'running'; i++) await sleep(100);
  assert.equal(await status(w, key, ws, sleeperJob), 'running', 'the victim job whose process the attacker looks for');
  return w;
}

export async function status(w: World, key: string, ws: string, id: string): Promise<string> {
  return (await w.api('GET', `/api/v1/jobs/${id}?teamId=${ws}`, key)).json.status;
}

export async function finished(w: World, key: string, ws: string, id: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const s = await status(w, key, ws, id);
    if (['completed', 'failed', 'aborted'].includes(s)) return s;
    await sleep(100);
  }
  throw new Error(`job ${id} did not finish`);
}

/**
 * The tasks of a server that was killed (nothing settles them now): their process groups are
 * killed and their cgroups removed, so that the test leaves nothing running on the machine.
 */
export async function endOrphanedTasks(dataDir: string): Promise<void> {
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
