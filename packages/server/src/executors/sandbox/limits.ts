import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AttemptControl, TaskSpec } from '../executor.js';
import { detectCgroups, type Cgroups, type DispatchMember, type LimitEvents, type TaskResources } from './cgroup.js';

/** The line of a job's log whose task runs without its CPU and memory limits. */
export function unenforcedNote(reason: string): string {
  return `Runyard: CPU and memory limits are not enforced on this host: ${reason}.`;
}

/** The groups of pooled network namespaces (placeNetwork) are named so. */
export const NETWORK_GROUP_PREFIX = 'net-';

/** What the slirp4netns of a pooled namespace may use: one CPU (it is one thread), 256 MiB, a few processes. */
export const NETWORK_RESOURCES: TaskResources = { cpus: 1, memoryGiB: 0.25, pids: 16 };

/**
 * The attempt's group: the job (its control directory's name) and the attempt, so a restarted
 * server derives the same; with a digest of the directory's path, so two servers of one host
 * (other data directories) never share a group.
 */
export function groupNameOf(control: AttemptControl): string {
  const dir = path.resolve(control.dir);
  const digest = createHash('sha256').update(dir).digest('hex').slice(0, 8);
  return `${path.basename(dir)}-a${control.attempt}-${digest}`;
}

/** Written when the kernel killed the task for its memory: the group that told it is removed, the verdict stays. */
function oomFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.oom`);
}

/** What the kernel counted against the attempt's limits, kept after its group is removed. */
function eventsFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.limits`);
}

function readEvents(control: AttemptControl): LimitEvents | null {
  try {
    const { oomKills, forksRefused, pidsLimit } = JSON.parse(readFileSync(eventsFileOf(control), 'utf8')) as LimitEvents;
    if (!Number.isInteger(oomKills) || !Number.isInteger(forksRefused)) return null;
    return { oomKills, forksRefused, ...(Number.isInteger(pidsLimit) && { pidsLimit }) };
  } catch {
    return null;
  }
}

/**
 * The local executor's resource limits (a task's `resources`), through per-task cgroups: the
 * group is made before launch and joined by the task's wrapper before the task runs; after the
 * end, whether the kernel killed it for passing its memory limit, then the group goes. Hosts are
 * detected on first use (detection may create folders, or on v2 move the server into a leaf).
 */
export class TaskLimits {
  private detected: Cgroups | null = null;
  private swept = false;
  /** Groups whose removal settle() began, by name, until it is done (failed ones until removed() tells it). */
  private readonly removals = new Map<string, Promise<void>>();

  constructor(private readonly detect: () => Cgroups = () => detectCgroups('auto')) {}

  private get cgroups(): Cgroups {
    this.detected ??= this.detect();
    return this.detected;
  }

  /**
   * The files the task's wrapper joins, and a line for its log when its limits cannot be enforced.
   * A task that asks for no resources joins the tasks' unlimited group: it has no limits, and it
   * does not stay in the spawner's group (placeDispatcher).
   */
  async prepare(task: TaskSpec, control: AttemptControl): Promise<{ procsFiles: string[]; note: string | null }> {
    const { cgroups } = this;
    if (!task.resources) return { procsFiles: cgroups.unavailable ? [] : cgroups.unlimited(), note: null };
    if (cgroups.unavailable) return { procsFiles: [], note: unenforcedNote(cgroups.unavailable) };
    try {
      return { procsFiles: await cgroups.create(groupNameOf(control), task.resources), note: null };
    } catch (e) {
      return { procsFiles: [], note: unenforcedNote(`the task's cgroup could not be set up (${(e as Error).message})`) };
    }
  }

  /**
   * After the task ended (nothing of its process group left): whether it was killed for passing
   * its memory limit. killedBySigkill: it died of SIGKILL or without an exit code; oomElsewhere:
   * something outside the group (a container's runtime) says it was, which is recorded too. What is
   * left in the group (anything that left the process group but not the cgroup) is killed now; the
   * group is removed now, or, while the kernel still holds it (the sandbox's init is still exiting
   * when the task's end is reported: bwrap's outer process reports the status the init sends it and
   * does not wait for its exit), soon after, without holding up the task's end: see removed().
   */
  async settle(control: AttemptControl, killedBySigkill: boolean, oomElsewhere = false): Promise<boolean> {
    const { cgroups } = this;
    const recorded = () => existsSync(oomFileOf(control));
    if (oomElsewhere) writeFileSync(oomFileOf(control), 'oom\n');
    if (cgroups.unavailable) return recorded();
    const name = groupNameOf(control);
    // Read again after the group: another caller may have recorded and removed it meanwhile.
    const oom = recorded() || cgroups.oomKilled(name, killedBySigkill) || recorded();
    if (oom) writeFileSync(oomFileOf(control), 'oom\n');
    this.removeSoon(name);
    return oom;
  }

  /**
   * What the kernel counted against the attempt's limits (processes killed for memory, forks
   * refused at the process limit), read before settle() removes the group; null when none was made.
   */
  events(control: AttemptControl): LimitEvents | null {
    const { cgroups } = this;
    if (cgroups.unavailable) return null;
    const name = groupNameOf(control);
    // Kept beside the control files: a server that looks again after the group went is told the same.
    if (!cgroups.exists(name)) return readEvents(control);
    const events = cgroups.events(name);
    if (events.oomKills > 0 || events.forksRefused > 0) writeFileSync(eventsFileOf(control), JSON.stringify(events));
    return events;
  }

  /** Resolves when the removal of the attempt's group that settle() began is done (at once when none is under way); rejects with why it failed. */
  removed(control: AttemptControl): Promise<void> {
    const name = groupNameOf(control);
    const removal = this.removals.get(name);
    if (!removal) return Promise.resolve();
    return removal.finally(() => this.removals.get(name) === removal && this.removals.delete(name));
  }

  /** Resolves when every removal that settle() began has ended, however it ended. */
  async drain(): Promise<void> {
    await Promise.allSettled(this.removals.values());
  }

  /** Kills what is left in the group and tries to remove it at once (remove() does both before it first waits); retries meanwhile. */
  private removeSoon(name: string): void {
    const removal = this.cgroups.remove(name);
    this.removals.set(name, removal);
    // Done: forgotten. Failed: kept for removed(), which reports it.
    removal.then(
      () => this.removals.get(name) === removal && this.removals.delete(name),
      () => undefined,
    );
  }

  /**
   * Whether the attempt's task ran in its cgroups (they exist until settle): then every process it
   * started is in them, and settle kills what is left there, whatever its process group.
   */
  confines(control: AttemptControl): boolean {
    return !this.cgroups.unavailable && this.cgroups.exists(groupNameOf(control));
  }

  /** Moves the spawner, or the thread that launches the tasks, into the dispatch group (cgroup.ts). Null when moved, else why not. */
  placeDispatcher(member: DispatchMember): string | null {
    return this.cgroups.placeDispatcher(member);
  }

  /**
   * A group of its own for the slirp4netns of a pooled network namespace (network-pool.ts), with
   * limits of its own (NETWORK_RESOURCES: it is one thread), outside every task's groups: moving it
   * into each task's groups and out again would cost the kernel an RCU grace period per hierarchy
   * at every start and end. Nothing where limits are not enforced. Throws where it cannot be placed.
   */
  async placeNetwork(name: string, pid: number): Promise<void> {
    const { cgroups } = this;
    if (cgroups.unavailable) return;
    if (!this.swept) {
      this.swept = true;
      // Left by a server that ended while tasks still used its namespaces (empty once they ended).
      cgroups.removeEmpty(NETWORK_GROUP_PREFIX);
    }
    const files = await cgroups.create(name, NETWORK_RESOURCES);
    for (const file of files) await writeFile(file, String(pid));
  }

  /** Removes a pooled namespace's group, and kills what is left in it. */
  async removeNetwork(name: string): Promise<void> {
    if (!this.cgroups.unavailable) await this.cgroups.remove(name);
  }

  /** A task that never started: its group, if any, is removed. */
  async discard(control: AttemptControl): Promise<void> {
    if (!this.cgroups.unavailable) await this.cgroups.remove(groupNameOf(control));
  }
}
