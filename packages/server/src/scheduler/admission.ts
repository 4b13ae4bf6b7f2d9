import type { Capacity } from '../instance-types/capacity.js';

/** A queued job the claim may take. */
export interface Candidate {
  id: string;
  queueId: string;
  backend: string;
  cpus: number;
  memoryGiB: number;
}

export interface Usage {
  cpus: number;
  memoryGiB: number;
}

// Sums of fractional CPUs and GiB: a job that fits exactly must not miss by a rounding error.
const EPSILON = 1e-9;

const fits = (need: Usage, used: Usage, capacity: Capacity) =>
  used.cpus + need.cpus <= capacity.cpus + EPSILON && used.memoryGiB + need.memoryGiB <= capacity.memoryGiB + EPSILON;

/**
 * Which candidates (oldest first) to claim now, in order. A job is passed over while its queue has
 * no free slot (queue concurrency), and, on a backend with a capacity, also when it is larger than
 * the whole capacity (refused at submission, so only after the capacity was lowered: it waits for
 * an operator, and blocks nobody). Otherwise jobs start oldest first across all the backend's
 * queues and workspaces: the first one whose CPUs or memory are not free now stops the backend's
 * admissions until they are. Smaller jobs behind it wait too, so a big job is never starved by a
 * stream of small ones. Mutates the queues' free slots and the backends' use as it admits.
 */
export function admit(
  candidates: readonly Candidate[],
  queues: ReadonlyMap<string, { free: number }>,
  backends: ReadonlyMap<string, { capacity: Capacity; used: Usage }>,
  limit: number,
): Candidate[] {
  const chosen: Candidate[] = [];
  const blocked = new Set<string>();
  for (const c of candidates) {
    if (chosen.length >= limit) break;
    const queue = queues.get(c.queueId);
    if (!queue || queue.free <= 0 || blocked.has(c.backend)) continue;
    const room = backends.get(c.backend);
    if (room) {
      if (!fits(c, { cpus: 0, memoryGiB: 0 }, room.capacity)) continue;
      if (!fits(c, room.used, room.capacity)) {
        blocked.add(c.backend);
        continue;
      }
      room.used.cpus += c.cpus;
      room.used.memoryGiB += c.memoryGiB;
    }
    queue.free -= 1;
    chosen.push(c);
  }
  return chosen;
}
