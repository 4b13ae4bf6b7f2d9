// Where the CPU of B4's jobs goes: a profiling aid, not a B line (`node bench/cpu-per-job.mjs`, after
// a build). Runs BENCH_CPU_JOBS trivial bash jobs (`true`, default 500) through a queue of
// BENCH_CPU_CONCURRENCY slots (default 4), as B4 does, and prints the CPU milliseconds per job of
// the whole machine (/proc/stat: with the kernel's own threads), of each thread of this process (the
// server: its API thread first, the background thread, V8's and libuv's helpers), of the spawner, of
// the spawner's reaped children (the wrapper and bwrap's outer process), of the client, and the rest of
// the machine: the processes inside each sandbox's PID namespace (bwrap's init, the command) are
// never reaped into the spawner's children's times (measured: a bash loop of 1.3 s in bwrap added
// 0.08 s to its parent's), so their CPU is what the machine spent beyond all of the above (with
// the kernel's own threads).
import { readdirSync, readFileSync } from 'node:fs';
import { inChild } from './lib/child.mjs';
import { startJobServer } from './lib/jobs.mjs';

const JOBS = Number(process.env.BENCH_CPU_JOBS ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CPU_CONCURRENCY ?? 4);
const CLOCK_TICKS = 100; // USER_HZ: the unit of /proc's CPU times
const clients = new URL('./lib/job-clients.mjs', import.meta.url).href;

/** utime, stime, cutime, cstime of a /proc/<path>/stat (fields 14-17), in ticks. */
function times(procPath) {
  const text = readFileSync(`/proc/${procPath}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]), sys: Number(f[12]), childUser: Number(f[13]), childSys: Number(f[14]) };
}

/** Busy ticks of the whole machine: user, nice, system, irq, softirq, steal. */
function machineBusy() {
  const n = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return n[0] + n[1] + n[2] + n[5] + n[6] + n[7];
}

/** This process's spawner: its child running spawner-process.js. */
function spawnerPid() {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('spawner-process.js')) return Number(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  throw new Error('no spawner process found');
}

function threads() {
  return new Map(readdirSync(`/proc/${process.pid}/task`).map((tid) => [tid, times(`${process.pid}/task/${tid}`)]));
}

const perJob = (ticks) => ((ticks * 1000) / CLOCK_TICKS / JOBS).toFixed(2);

const s = await startJobServer({ queueConcurrency: CONCURRENCY, env: { RUNYARD_LOCAL_CPUS: String(CONCURRENCY) } });
try {
  const submit = (count) =>
    inChild(
      clients,
      'submitAndWait',
      { url: s.url, apikey: s.apikey, ws: s.ws, body: s.body('true'), count, pollMs: 200, timeoutMs: 300_000 },
      330_000,
    );
  await submit(1); // starts the spawner, warms the paths
  const spawner = spawnerPid();
  const [machine0, threads0, spawner0] = [machineBusy(), threads(), times(spawner)];
  const t0 = performance.now();
  const result = await submit(JOBS);
  const seconds = (performance.now() - t0) / 1000;
  const [machine1, threads1, spawner1] = [machineBusy(), threads(), times(spawner)];
  console.log(`${JOBS} jobs (${result.completed} completed) in ${seconds.toFixed(1)} s; CPU ms per job:`);
  console.log(`  machine: ${perJob(machine1 - machine0)}`);
  // Ticks of every figure below, so that the last line is what none of them holds.
  let accounted = (result.cpuMs * CLOCK_TICKS) / 1000;
  for (const [tid, after] of threads1) {
    const before = threads0.get(tid) ?? { user: 0, sys: 0 };
    const spent = after.user + after.sys - before.user - before.sys;
    accounted += spent;
    if (spent > 0) console.log(`  server thread ${tid}: user ${perJob(after.user - before.user)}, sys ${perJob(after.sys - before.sys)}`);
  }
  const withChildren = (t) => t.user + t.sys + t.childUser + t.childSys;
  accounted += withChildren(spawner1) - withChildren(spawner0);
  console.log(`  spawner: user ${perJob(spawner1.user - spawner0.user)}, sys ${perJob(spawner1.sys - spawner0.sys)}`);
  console.log(
    `  spawner's children (wrapper, bwrap's outer process): user ${perJob(spawner1.childUser - spawner0.childUser)}, sys ${perJob(spawner1.childSys - spawner0.childSys)}`,
  );
  console.log(`  client: ${(result.cpuMs / JOBS).toFixed(2)} (its whole process)`);
  console.log(
    `  the rest (inside the sandboxes: bwrap's init, the command; the kernel's threads): ${perJob(machine1 - machine0 - accounted)}`,
  );
} finally {
  await s.close();
}
