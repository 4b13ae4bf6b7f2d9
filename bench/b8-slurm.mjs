// B8 for issue 10 (../shared/design/performance.md): jobs through Runyard on the machine's Slurm
// cluster (scripts/slurm-dev-cluster.sh) against the same jobs submitted with plain sbatch.
//  - 1,000 trivial bash jobs (`true`, 1 CPU, 1 GiB), submit to all completed, against a plain
//    sbatch loop of the same sandboxed command (bubblewrap with the argv the server's sandbox builds);
//    target <= 1.5x.
//  - Submit-to-running p50 of one job at a time: until the API says `running` (Runyard reports a
//    Slurm job running once Slurm runs it), against until squeue says RUNNING; both polled every 20 ms,
//    each job submitted to an idle cluster (the previous one cancelled and gone, and a second more).
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { inChild } from './lib/child.mjs';
import { percentile, startJobServer } from './lib/jobs.mjs';
import { sandboxedTrue } from './lib/sandboxed.mjs';
import { clusterIdle, sbatchLoop, sbatchToRunning } from './lib/slurm-baseline.mjs';
import { figure } from './lib/report.mjs';

const JOBS = Number(process.env.BENCH_B8_JOBS ?? 1000);
const LATENCY_JOBS = Number(process.env.BENCH_B8_LATENCY_JOBS ?? 20);
const TIMEOUT_MS = Number(process.env.BENCH_B8_TIMEOUT_MS ?? 900_000);
const clients = new URL('./lib/job-clients.mjs', import.meta.url).href;
const script = new URL('../scripts/slurm-dev-cluster.sh', import.meta.url).pathname;

/** Milliseconds from each POST to the job's `running` status, one job after the other (`sleep 5`, without parameters: they would be its arguments). */
async function runyardToRunning(s, body, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const { jobId } = await s.call('POST', `/api/v2/jobs?teamId=${s.ws}`, { ...body, command: 'sleep 5', parameters: [] });
    for (;;) {
      const { status } = await s.call('GET', `/api/v1/jobs/${jobId}?teamId=${s.ws}`);
      if (status !== 'queued' && status !== 'scheduled' && status !== 'initializing') break;
      await sleep(20);
    }
    samples.push(performance.now() - t0);
    await s.call('PUT', `/api/v2/jobs/${jobId}/abort?teamId=${s.ws}&force=true`);
    await clusterIdle();
  }
  return samples.sort((a, b) => a - b);
}

export async function run() {
  execFileSync('bash', [script, 'up'], { stdio: 'inherit' });
  const s = await startJobServer({ env: { RUNYARD_SLURM_POLL_MS: '500' } });
  // A Slurm task makes its namespace on its node: no pool.
  const task = await sandboxedTrue({ members: 0 });
  try {
    // The data directory is under the temporary directory: that is the cluster's shared directory here.
    const cluster = await s.call('POST', '/api/runyard/admin/hpc', {
      name: 'bench',
      partitions: ['debug'],
      sharedDirectory: realpathSync(os.tmpdir()),
    });
    const body = { ...s.body('true'), executionPlatform: 'hpc', hpc: cluster.id, resourceRequirements: { cpu: 1, ram: 1 } };
    console.log(
      `# B8 ${JOBS} bash jobs \`true\` on Slurm (partition debug, 1 CPU, 1 GiB); baseline: a plain sbatch loop of the same command in bwrap (${task.kind})`,
    );
    const baseline = await sbatchLoop(JOBS, task, { timeoutMs: TIMEOUT_MS });
    const result = await inChild(
      clients,
      'submitAndWait',
      { url: s.url, apikey: s.apikey, ws: s.ws, body, count: JOBS, pollMs: 200, timeoutMs: TIMEOUT_MS },
      TIMEOUT_MS + 30_000,
    );
    if (result.total !== JOBS || result.completed !== JOBS) {
      throw new Error(`of ${result.total} jobs, ${result.completed} completed and ${result.failed} failed (within ${TIMEOUT_MS / 1000} s)`);
    }
    const seconds = (result.doneAt - result.startedAt) / 1000;
    console.log(figure(`B8 ${JOBS.toLocaleString('en')} bash jobs on Slurm, submit to all completed`, seconds, baseline, 's'));
    const direct = (await sbatchToRunning(LATENCY_JOBS, task)).sort((a, b) => a - b);
    const through = await runyardToRunning(s, body, LATENCY_JOBS);
    console.log(figure('B8 Slurm submit-to-running p50', percentile(through, 0.5), percentile(direct, 0.5), 'ms'));
  } finally {
    task.dispose();
    await s.close();
  }
}
