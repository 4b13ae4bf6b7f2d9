// Bench clients stand for users on other machines: they run at the bench's CPU priority as it
// started, not at the lowered one of the API thread of a server in the bench process
// (RUNYARD_API_THREAD_NICE), which a child forked from that thread inherits.
import { readdirSync } from 'node:fs';
import os from 'node:os';

// Read when the bench loads this module, before any server in it lowers its API thread.
const BENCH_NICE = os.getPriority();

/** The env of a client child: the bench's priority, for atBenchPriority() in the child. */
export function benchPriorityEnv() {
  return { ...process.env, RUNYARD_BENCH_NICE: String(BENCH_NICE) };
}

/**
 * In a client child: every thread of it back at the bench's priority (Linux: a priority is per
 * thread, and those started from now on take the main thread's). Raising one needs CAP_SYS_NICE;
 * without it the child says so.
 */
export function atBenchPriority() {
  const nice = Number(process.env.RUNYARD_BENCH_NICE ?? os.getPriority());
  if (os.getPriority() === nice) return;
  try {
    for (const tid of readdirSync('/proc/self/task')) os.setPriority(Number(tid), nice);
  } catch (e) {
    console.log(`# note: a client process runs at nice ${os.getPriority()}, not the bench's ${nice}: ${e.message}`);
  }
}
