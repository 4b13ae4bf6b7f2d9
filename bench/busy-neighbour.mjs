// What any other CPU load costs the job path on this host: a profiling aid for B7, not a B line
// (`node bench/busy-neighbour.mjs`, after a build). Trivial bash jobs (`true`, a queue of 4 slots,
// as B7) completed per second alone, and beside one shell busy loop at the lowest priorities Linux
// has (SCHED_IDLE: runs only on a CPU that nothing else wants; nice 19) and at nice 0. Windows
// alternate with windows alone; each neighbour's rate is printed as a ratio of the alone windows'.
// When a SCHED_IDLE loop, which by the scheduler's rules takes no CPU time the jobs want, costs as
// much as B7's API load, the loss there is the host's (where the kernel places the tasks' short
// processes next to a busy CPU), not request handling starving the scheduler.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startJobServer } from './lib/jobs.mjs';
import { endedBetween, queuedNow, topUpQueue } from './lib/queue.mjs';

const WINDOW_MS = Number(process.env.BENCH_NEIGHBOUR_WINDOW_MS ?? 5000);
// A loop in user space that ends once this process is gone (checked every 100,000 turns), so that a
// bench stopped with ^C leaves no busy loop behind (chrt and nice exec the shell: its parent is this process).
const BUSY_LOOP = [
  'sh',
  '-c',
  'i=0; while :; do i=$((i + 1)); if [ "$i" -ge 100000 ]; then kill -0 "$PPID" 2>/dev/null || exit 0; i=0; fi; done',
];
const NEIGHBOURS = {
  SCHED_IDLE: ['chrt', '--idle', '0', ...BUSY_LOOP],
  'nice 19': ['nice', '-n', '19', ...BUSY_LOOP],
  'nice 0': BUSY_LOOP,
};

/** Jobs per second over one window, beside `argv` running (none: alone). Tops up the queue first so it never runs dry. */
async function window(s, argv) {
  // A window completes up to ~200 jobs/s here: twice that.
  await topUpQueue(s, (WINDOW_MS / 1000) * 400);
  const child = argv && spawn(argv[0], argv.slice(1), { stdio: 'ignore' });
  try {
    await sleep(500);
    const from = Date.now();
    await sleep(WINDOW_MS);
    const { count: done } = await endedBetween(s.server.config, from, Date.now());
    if ((await queuedNow(s.server.config)) === 0) console.log('# warning: the queue ran dry in a window: its rate is understated');
    return done / (WINDOW_MS / 1000);
  } finally {
    child?.kill('SIGKILL');
  }
}

const s = await startJobServer({ queueConcurrency: 4, env: { RUNYARD_LOCAL_CPUS: '4' } });
try {
  for (const [name, argv] of Object.entries(NEIGHBOURS)) {
    const before = await window(s, null);
    const beside = await window(s, argv);
    const after = await window(s, null);
    const alone = (before + after) / 2;
    console.log(
      `jobs/s alone ${alone.toFixed(0)}, beside a busy loop at ${name} ${beside.toFixed(0)}: ratio ${(beside / alone).toFixed(2)}`,
    );
  }
} finally {
  await s.close();
}
