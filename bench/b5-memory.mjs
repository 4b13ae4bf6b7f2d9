// B5 for issue 15 (../shared/design/performance.md): the server's memory (RSS of its process,
// threads included) with 100,000 jobs stored and listed, and while one job writes 1 GB to its
// stdout, against the same server empty and idle. Target: < 200 MB, and flat while streaming.
// Each server is its own process (packages/server/dist/main.js, as `npm start` runs it), so the
// figures are its own; RSS is read from /proc.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseUrlOf, loadConfig } from '@runyard/server';
import { api, bashBody, untilEnded } from './lib/jobs.mjs';
import { storeJobCopies } from './lib/stored-jobs.mjs';
import { figure } from './lib/report.mjs';
import { scratchDir } from './lib/scratch.mjs';

const JOBS = Number(process.env.BENCH_B5_JOBS ?? 100_000);
const STREAM_BYTES = 1024 ** 3;
const mainJs = new URL('../packages/server/dist/main.js', import.meta.url).pathname;

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** The server in a process of its own on a new data directory (or the given one); resolves once it serves. */
async function startServerProcess(dataDir) {
  const child = spawn(process.execPath, [mainJs], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      RUNYARD_DATA_DIR: dataDir,
      RUNYARD_HOST: '127.0.0.1',
      RUNYARD_PORT: '0',
      RUNYARD_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /is listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it served: ${out.slice(0, 500)}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let admin;
  try {
    // On the first start the admin's file is written just after the URL is printed.
    const adminFile = path.join(dataDir, 'initial-admin.json');
    for (let i = 0; i < 200 && !existsSync(adminFile); i++) await sleep(50);
    admin = JSON.parse(readFileSync(adminFile, 'utf8'));
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    pid: child.pid,
    url,
    admin,
    call: (method, route, body) => api(url, admin.apikey, method, route, body),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What a user does with a server: list projects and pages of jobs (newest, a middle page, filtered), a few rounds. */
async function exercise(s) {
  const ws = s.admin.workspaceId;
  for (let round = 0; round < 5; round++) {
    await s.call('GET', `/api/v2/projects?teamId=${ws}&page=1&pageSize=100`);
    await s.call('GET', `/api/v2/jobs?teamId=${ws}&limit=100`);
    await s.call('GET', `/api/v2/jobs?teamId=${ws}&limit=100&page=${50 + round}`);
    await s.call('GET', `/api/v2/jobs?teamId=${ws}&limit=100&status=completed`);
  }
}

/** A project, a bash workflow and a queue of one slot; answers the job body. */
async function setUp(s) {
  const ws = s.admin.workspaceId;
  const project = await s.call('POST', `/api/v1/projects?teamId=${ws}`, { name: 'bench' });
  const workflow = await s.call('POST', '/api/runyard/admin/workflows/docker', {
    workspaceId: ws,
    name: 'bench-bash',
    containerName: 'library/ubuntu:22.04',
  });
  return (command) => bashBody({ projectId: project._id, workflowId: workflow._id }, command);
}

export async function run() {
  const dataDir = scratchDir('runyard-bench-');
  let s;
  try {
    s = await startServerProcess(dataDir);
    const body = await setUp(s);
    const first = await s.call('POST', `/api/v2/jobs?teamId=${s.admin.workspaceId}`, body('true'));
    await untilEnded(s.call, s.admin.workspaceId, first.jobId);
    await exercise(s);
    await sleep(1000);
    const idle = rssMiB(s.pid);
    await s.stop();
    s = undefined;

    console.log(`# B5 storing ${JOBS} jobs`);
    await storeJobCopies(databaseUrlOf(loadConfig({ RUNYARD_DATA_DIR: dataDir })), first.jobId, JOBS);
    s = await startServerProcess(dataDir);
    await exercise(s);
    await sleep(1000);
    const stored = rssMiB(s.pid);
    console.log(figure(`B5 RSS with ${JOBS} jobs stored and listed`, stored, idle, 'MB'));

    // One job writes 1 GB to its stdout; the log goes through the server to its store.
    const streamer = await s.call(
      'POST',
      `/api/v2/jobs?teamId=${s.admin.workspaceId}`,
      body(`head -c ${STREAM_BYTES} /dev/zero | tr '\\0' 'x' | fold -w 1023; true`),
    );
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, rssMiB(s.pid))), 100);
    const ended = await untilEnded(s.call, s.admin.workspaceId, streamer.jobId).finally(() => clearInterval(watch));
    if (ended.status !== 'completed') throw new Error(`the 1 GB job ended ${ended.status}: ${ended.statusMessage ?? ''}`);
    console.log(figure('B5 RSS peak while a job writes 1 GB to stdout', peak, stored, 'MB'));
  } finally {
    await s?.stop();
  }
}
