// B3 for issue 4 (../shared/design/performance.md): submit-to-running latency of a trivial bash
// job (`true`) on an idle server, p50 and p99 over sequential jobs, against spawning the same
// sandboxed command directly from Node (bubblewrap running `bash -c true`, with the argv the
// server's sandbox builds, until its 'spawn' event).
//
// What is measured: the job's own startTime (stamped by the server when the executor has spawned
// the task, just before the job is reported running) minus the client's wall clock just before it
// sent the POST. Both clocks are the same machine's. The client runs in a child process and
// polls the job only after it has had time to start, so polling does not slow the launch.
import { spawn } from 'node:child_process';
import { inChild } from './lib/child.mjs';
import { percentile, startJobServer } from './lib/jobs.mjs';
import { sandboxedTrue } from './lib/sandboxed.mjs';
import { figure } from './lib/report.mjs';

const JOBS = Number(process.env.BENCH_B3_JOBS ?? 50);
const clients = new URL('./lib/job-clients.mjs', import.meta.url).href;

/** Milliseconds from spawn() to the 'spawn' event of the sandboxed `bash -c true`, one after the other; each child is waited for. */
async function directSpawns(count, task) {
  const times = [];
  const [program, ...args] = task.argv;
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const child = spawn(program, args, { stdio: 'ignore', cwd: task.cwd, env: task.env });
    const exited = new Promise((resolve, reject) => {
      child.once('exit', resolve);
      child.once('error', reject);
    });
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    times.push(performance.now() - t0);
    await exited;
  }
  return times.sort((a, b) => a - b);
}

const ms = (v) => `${v.toFixed(1)} ms`;

export async function run() {
  const s = await startJobServer();
  const task = await sandboxedTrue();
  try {
    console.log(
      `# B3 submit-to-running of a bash job \`true\` on an idle server, ${JOBS} jobs one after the other (startTime - client's submit time)`,
    );
    // One job first, not counted: the first launch loads engine and executor code.
    await inChild(clients, 'sequentialJobs', { url: s.url, apikey: s.apikey, ws: s.ws, body: s.body('true'), count: 1 }, 30_000);
    const records = await inChild(
      clients,
      'sequentialJobs',
      { url: s.url, apikey: s.apikey, ws: s.ws, body: s.body('true'), count: JOBS },
      JOBS * 5000 + 10_000,
    );
    const bad = records.filter((r) => r.status !== 'completed' || !r.startTime);
    if (bad.length) throw new Error(`${bad.length} of ${records.length} jobs did not complete: ${JSON.stringify(bad[0])}`);
    const sorted = (f) => records.map(f).sort((a, b) => a - b);
    const latency = sorted((r) => Date.parse(r.startTime) - r.submittedAt);
    const reply = sorted((r) => r.acceptedAt - r.submittedAt);
    const createdToStart = sorted((r) => Date.parse(r.startTime) - Date.parse(r.createdAt));
    const startToEnd = sorted((r) => Date.parse(r.endTime) - Date.parse(r.startTime));
    const direct = await directSpawns(JOBS, task);
    console.log(
      `# B3 baseline: the ${task.kind === 'bwrap' ? `sandboxed (bwrap${task.pooled ? ', in a ready namespace of a pool' : ''})` : 'unconfined'} command spawned directly`,
    );

    const [p50, p99] = [percentile(latency, 0.5), percentile(latency, 0.99)];
    const [b50, b99] = [percentile(direct, 0.5), percentile(direct, 0.99)];
    console.log(
      `# B3 where it goes (p50): POST reply ${ms(percentile(reply, 0.5))}; createdAt to startTime ${ms(percentile(createdToStart, 0.5))} ` +
        `(p99 ${ms(percentile(createdToStart, 0.99))}); startTime to endTime ${ms(percentile(startToEnd, 0.5))}`,
    );
    console.log(figure('B3 submit-to-running p50', p50, b50, 'ms'));
    console.log(figure('B3 submit-to-running p99', p99, b99, 'ms'));
    console.log(`B3 submit-to-running p50 over the direct spawn: ${ms(p50 - b50)} (target: < 10 ms; and p99 < 50 ms)`);
  } finally {
    task.dispose();
    await s.close();
  }
}
