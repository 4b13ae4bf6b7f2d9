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
