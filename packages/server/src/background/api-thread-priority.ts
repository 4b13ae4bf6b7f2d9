import os from 'node:os';

/**
 * Lowers the calling thread's CPU priority by `nice` (Linux: setpriority on a thread id changes
 * that thread only; the main thread's id is the pid). Called on the API's thread once the
 * background thread runs, so the scheduler (and the tasks it starts) keep their share of the CPU
 * when requests would take it all. Returns what puts the priority back. Where the system refuses
 * or changes the whole process instead (not Linux), it is left as it is.
 */
export function lowerApiThreadPriority(nice: number): () => void {
  if (nice <= 0 || process.platform !== 'linux') return () => undefined;
  const before = os.getPriority(process.pid);
  try {
    os.setPriority(process.pid, Math.min(19, before + nice));
  } catch {
    return () => undefined;
  }
  return () => {
    try {
      // Raising a priority back needs CAP_SYS_NICE (root, or the RLIMIT_NICE allowance): without it the thread stays lower.
      os.setPriority(process.pid, before);
    } catch {
      /* stays lowered */
    }
  };
}
