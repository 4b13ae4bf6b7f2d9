import { readFileSync } from 'node:fs';
import { groupMembers } from '../../src/executors/proc.js';

/**
 * How many live processes of a group run the program `name`. Tests wait for their task's own
 * processes by name, not by a count of the group: a sandbox adds processes of its own to it.
 */
export function groupRunning(pgid: number, name: string): number {
  return groupMembers(pgid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  }).length;
}
