import { readdirSync, readFileSync } from 'node:fs';

/** The command line of every process on the machine, by pid (a process that ends meanwhile is left out). */
export function allCmdlines(): Map<number, string> {
  const found = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      found.set(Number(name), readFileSync(`/proc/${name}/cmdline`, 'utf8'));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Command lines (arguments joined by spaces) of every process that holds text: what any local user could read. */
export function cmdlinesHolding(text: string): string[] {
  return [...allCmdlines().values()].filter((c) => c.includes(text)).map((c) => c.replace(/\0/g, ' '));
}

/** The processes (pid and command line) whose environment says they are the job's: its task and all they started. */
export function processesOfJob(jobId: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const [pid, cmdline] of allCmdlines()) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`RUNYARD_JOB_ID=${jobId}`))
        found.push({ pid, cmdline: cmdline.replace(/\0/g, ' ').trim() });
    } catch {
      // ended meanwhile
    }
  }
  return found;
}
