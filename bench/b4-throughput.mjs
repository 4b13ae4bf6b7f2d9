// B4 for issue 4 (../shared/design/performance.md): 1,000 trivial bash jobs (`true`), from the
// first submission to all completed, through an admin-created default queue of concurrency C,
// against `xargs -P C` running the same 1,000 commands, each confined as a task is (bubblewrap
// with the argv the server's sandbox builds).
//
// The client (in a child process) submits from 8 keep-alive connections and polls the job list;
// the figure is the last job's endTime minus the client's wall clock at its first submission (so the
// poll interval does not count).
import { spawn } from 'node:child_process';
import os from 'node:os';
import { databaseUrlOf, openStore } from '@runyard/server';
import { inChild } from './lib/child.mjs';
import { percentile, startJobServer } from './lib/jobs.mjs';
import { sandboxedTrue, shellQuote } from './lib/sandboxed.mjs';
import { figure } from './lib/report.mjs';

const JOBS = Number(process.env.BENCH_B4_JOBS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_B4_CONCURRENCY ?? Math.max(4, os.availableParallelism()));
const TIMEOUT_MS = Number(process.env.BENCH_B4_TIMEOUT_MS ?? 300_000);
const clients = new URL('./lib/job-clients.mjs', import.meta.url).href;

/**
 * Seconds for `xargs -P concurrency` to run the sandboxed `bash -c true` count times. Where the
 * tasks join ready namespaces (task.slots of them), one xargs for each, together `concurrency` at
 * a time: a namespace serves one task at a time, as on the server.
 */
function xargs(count, concurrency, task) {
  const lines = [];
  if (task.slots > 1) {
    const per = Math.ceil(count / task.slots);
    for (let slot = 0; slot < task.slots; slot++) {
      const n = Math.min(per, count - slot * per);
      const p = Math.ceil(concurrency / task.slots);
      if (n > 0) lines.push(`seq ${n} | xargs -P ${p} -I{} ${task.argvOf(slot).map(shellQuote).join(' ')} & pids="$pids $!"`);
    }
    lines.push('for j in $pids; do wait $j || exit 1; done');
  } else lines.push(`seq ${count} | xargs -P ${concurrency} -I{} ${task.argv.map(shellQuote).join(' ')}`);
  const script = lines.join('\n');
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    // In a process group of its own, so that a timeout stops xargs and its commands too.
    const child = spawn('bash', ['-c', script], { stdio: 'ignore', detached: true, cwd: task.cwd, env: task.env });
    const limit = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      if (code === 0) resolve((performance.now() - t0) / 1000);
      else reject(new Error(`xargs baseline ended with ${code ?? signal}`));
    });
  });
}

/** From the job rows: the last end and creation, and the p50 and mean of each job's run (startTime to endTime), in ms. */
async function phases(config) {
  const store = openStore(databaseUrlOf(config));
  try {
    const rows = await store.db.selectFrom('jobs').select(['created_at', 'start_time', 'end_time']).execute();
    const run = rows.map((r) => Date.parse(r.end_time) - Date.parse(r.start_time)).sort((x, y) => x - y);
    return {
      lastEnd: Math.max(...rows.map((r) => Date.parse(r.end_time))),
      lastCreated: Math.max(...rows.map((r) => Date.parse(r.created_at))),
      runP50: percentile(run, 0.5),
      runMean: run.reduce((a, b) => a + b, 0) / run.length,
    };
  } finally {
    await store.close();
  }
}

export async function run() {
  // The local executor's capacity is set to the concurrency, so that CONCURRENCY 1-CPU jobs can run at once, as in xargs.
  const s = await startJobServer({ queueConcurrency: CONCURRENCY, env: { RUNYARD_LOCAL_CPUS: String(CONCURRENCY) } });
  const task = await sandboxedTrue({ members: CONCURRENCY });
  try {
    // The baseline runs just before and just after Runyard (the machine is shared); the figure uses their mean.
    const before = await xargs(JOBS, CONCURRENCY, task);
    console.log(
      `# B4 ${JOBS} bash jobs \`true\`, default queue of concurrency ${CONCURRENCY}, submitted from 8 connections; baseline xargs -P ${CONCURRENCY} of the same command in bwrap (${task.kind}${task.pooled ? `, ${task.slots} ready namespaces, one task in each at a time` : ''})`,
    );
    const result = await inChild(
      clients,
      'submitAndWait',
      { url: s.url, apikey: s.apikey, ws: s.ws, body: s.body('true'), count: JOBS, pollMs: 200, timeoutMs: TIMEOUT_MS },
      TIMEOUT_MS + 30_000,
    );
    if (result.total !== JOBS || result.completed !== JOBS) {
      throw new Error(`of ${result.total} jobs, ${result.completed} completed and ${result.failed} failed (within ${TIMEOUT_MS / 1000} s)`);
    }
    const p = await phases(s.server.config);
    const seconds = (p.lastEnd - result.startedAt) / 1000;
    const after = await xargs(JOBS, CONCURRENCY, task);
    const baseline = (before + after) / 2;
    console.log(`# B4 baseline: xargs took ${before.toFixed(2)} s before and ${after.toFixed(2)} s after`);
    const slotMs = (seconds * 1000 * CONCURRENCY) / JOBS;
    console.log(
      `# B4 where it goes: all ${JOBS} submitted after ${((p.lastCreated - result.startedAt) / 1000).toFixed(2)} s; ` +
        `each job's startTime to endTime p50 ${p.runP50} ms (mean ${p.runMean.toFixed(1)}); ` +
        `a slot spent ${slotMs.toFixed(1)} ms per job, so ${(slotMs - p.runMean).toFixed(1)} ms between a job's end and the next start`,
    );
    console.log(figure('B4 1,000 bash jobs, submit to all completed', seconds, baseline, 's'));
  } finally {
    task.dispose();
    await s.close();
  }
}
