// B7 for issue 10 (../shared/design/performance.md): does the scheduler keep dispatching while the
// API is loaded? Trivial bash jobs (`true`) completed per second while 50 concurrent clients (25
// listing jobs, 25 submitting jobs, from child processes) load the same server, against the same
// throughput on the idle server; target ratio >= 0.8. Every window starts with a backlog of queued
// jobs, so the scheduler always has work; completions are counted from the jobs' end times.
import { setTimeout as sleep } from 'node:timers/promises';
import { startJobServer } from './lib/jobs.mjs';
import { measure } from './lib/load.mjs';
import { endedBetween, queuedNow, topUpQueue } from './lib/queue.mjs';

const WINDOW_MS = Number(process.env.BENCH_B7_WINDOW_MS ?? 10_000);
// Queued jobs at the start of every window: more than an idle window completes (70-200 jobs/s on the hosts seen), or it
// runs dry before its end and understates the idle rate (with 800, the first idle window did: 68-71 jobs/s
// against 113-124 in the later ones, which start behind the thousands the loaded windows submitted).
const BACKLOG = Number(process.env.BENCH_B7_BACKLOG ?? 2500);
const CONCURRENCY = 4;
const ROUNDS = Number(process.env.BENCH_B7_ROUNDS ?? 3);

export async function run() {
  const s = await startJobServer({ queueConcurrency: CONCURRENCY, env: { RUNYARD_LOCAL_CPUS: String(CONCURRENCY) } });
  try {
    console.log(
      `# B7 bash jobs \`true\`, a queue of concurrency ${CONCURRENCY}; ${ROUNDS} rounds of an idle and a loaded ${WINDOW_MS / 1000} s window; load: 25 clients listing and 25 submitting`,
    );
    // Idle and loaded windows take turns, ROUNDS times: the machine is shared, and its speed drifts
    // within a run (ratios of single windows ranged 0.57-0.90 for the same code); the figure is the
    // sum of the loaded windows' completions over the sum of the idle windows'.
    let idleDone = 0;
    let loadedDone = 0;
    const served = [];
    const rounds = [];
    const slots = [];
    const dry = [];
    for (let round = 0; round < ROUNDS; round++) {
      await topUpQueue(s, BACKLOG);
      const idleFrom = Date.now();
      await sleep(WINDOW_MS);
      const idleTo = Date.now();
      const { count: idle, meanRunMs: idleRun } = await endedBetween(s.server.config, idleFrom, idleTo);
      // A queue that ran dry before the window's end understates the rate (and flatters the ratio when it is the idle one's).
      if ((await queuedNow(s.server.config)) === 0) dry.push(`round ${round + 1} idle`);
      await topUpQueue(s, BACKLOG);
      const headers = { apikey: s.apikey };
      const warmupMs = 1000;
      const loadedFrom = Date.now() + warmupMs;
      const [list, submit] = await Promise.all([
        measure({ url: `${s.url}/api/v2/jobs?teamId=${s.ws}&limit=10`, headers, concurrency: 25, warmupMs, durationMs: WINDOW_MS }),
        measure({
          url: `${s.url}/api/v2/jobs?teamId=${s.ws}`,
          method: 'POST',
          headers,
          body: s.body('true'),
          concurrency: 25,
          warmupMs,
          durationMs: WINDOW_MS,
        }),
      ]);
      const { count: loaded, meanRunMs: loadedRun } = await endedBetween(s.server.config, loadedFrom, loadedFrom + WINDOW_MS);
      if ((await queuedNow(s.server.config)) === 0) dry.push(`round ${round + 1} loaded`);
      const slot = (n) => (CONCURRENCY * WINDOW_MS) / Math.max(1, n);
      slots.push(
        `idle ${idleRun.toFixed(0)} + ${(slot(idle) - idleRun).toFixed(0)}, loaded ${loadedRun.toFixed(0)} + ${(slot(loaded) - loadedRun).toFixed(0)}`,
      );
      idleDone += idle;
      loadedDone += loaded;
      served.push({ list, submit });
      rounds.push(`${(idle / (WINDOW_MS / 1000)).toFixed(0)}->${(loaded / (WINDOW_MS / 1000)).toFixed(0)}`);
    }
    const rate = (n) => n / ((ROUNDS * WINDOW_MS) / 1000);
    const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const summary = (key) => ({
      rps: mean(served.map((x) => x[key].rps)),
      p99: Math.max(...served.map((x) => x[key].p99)),
      errors: served.reduce((n, x) => n + x[key].errors, 0),
    });
    const list = summary('list');
    const submit = summary('submit');
    console.log(
      `# B7 load served: listing ${list.rps.toFixed(0)} req/s (p99 ${list.p99.toFixed(0)} ms, ${list.errors} errors), ` +
        `submitting ${submit.rps.toFixed(0)} req/s (p99 ${submit.p99.toFixed(0)} ms, ${submit.errors} errors); jobs/s idle->loaded by round: ${rounds.join(', ')}`,
    );
    if (dry.length)
      console.log(`# B7 WARNING: the queue ran dry in ${dry.join(', ')}: raise BENCH_B7_BACKLOG, that window's rate is understated`);
    console.log(`# B7 where a slot's time goes by round, ms per job (start to end + end to the next start): ${slots.join('; ')}`);
    console.log(
      `B7 job throughput under API load: ${rate(loadedDone).toFixed(1)} jobs/s (baseline idle: ${rate(idleDone).toFixed(1)} jobs/s, ratio ${(loadedDone / idleDone).toFixed(2)})`,
    );
  } finally {
    await s.close();
  }
}
