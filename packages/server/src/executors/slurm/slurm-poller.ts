import { runSlurm, slurmError } from './slurm-commands.js';
import { combineEnds, isActive, isWaiting, jobKeyOf, parseScontrolJob, type SlurmEnd } from './slurm-states.js';

/** The first poll after a job is submitted; later polls back off to the poller's interval. */
const FIRST_POLL_MS = 50;
/**
 * While a job submitted less than START_WATCH_MS ago waits to start, polls stay this close: a job
 * Slurm starts within a second or two is reported running within a tenth of a second of it.
 */
const START_POLL_MS = 100;
const START_WATCH_MS = 10_000;

/** What the poller learned of a job: still held by Slurm (in a state), ended, or unknown to Slurm. */
export type SlurmStatus = { kind: 'active'; state: string } | { kind: 'ended'; end: SlurmEnd } | { kind: 'unknown' };

interface Watch {
  /** When the first wait for this job began. */
  since: number;
  started: Array<() => void>;
  ended: Array<(status: SlurmStatus) => void>;
}

/**
 * The jobs of one cluster that someone waits for, polled together: one `squeue -j id,id,...` per
 * poll for all of them, then `scontrol show job -o` for those that left the queue (finished jobs are
 * not listed by squeue), to read how they ended: by id for one, one listing of all jobs for several. Polls only while there are waiters.
 */
export class SlurmPoller {
  private readonly watches = new Map<string, Watch>();
  private running = false;
  /** The wait before the next poll: FIRST_POLL_MS after a new job, doubling up to pollMs. */
  private delay = FIRST_POLL_MS;
  private nextPollAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private endSleep: (() => void) | undefined;

  constructor(
    private readonly prefix: readonly string[],
    private readonly pollMs: number,
  ) {}

  /** Resolves once the job runs (leaves Slurm's waiting states), or has ended. */
  started(jobId: string, signal?: AbortSignal): Promise<void> {
    return this.watch(jobId, signal, (w, resolve) => w.started.push(() => resolve(undefined)));
  }

  /** Resolves with how the job ended (or that Slurm no longer knows it). */
  ended(jobId: string, signal?: AbortSignal): Promise<SlurmStatus> {
    return this.watch(jobId, signal, (w, resolve) => w.ended.push(resolve));
  }

  /** One job now, outside the poll (a reattach, a kill). */
  async status(jobId: string): Promise<SlurmStatus> {
    return (await this.query([jobId])).get(jobId)!;
  }

  private watch<T>(jobId: string, signal: AbortSignal | undefined, add: (w: Watch, resolve: (v: T) => void) => void): Promise<T> {
    signal?.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      let w = this.watches.get(jobId);
      if (!w) {
        this.watches.set(jobId, (w = { since: Date.now(), started: [], ended: [] }));
        this.pollSoon();
      }
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      add(w, (v) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      });
      this.loop();
    });
  }

  private loop(): void {
    if (this.running) return;
    this.running = true;
    void (async () => {
      try {
        // Waits that start together (a scheduler following many jobs) join the same first poll.
        await new Promise((resolve) => setImmediate(resolve));
        while (this.watches.size) {
          await this.poll().catch(() => undefined);
          this.nextPollAt = Date.now() + this.delay;
          this.delay = Math.min(this.pollMs, this.delay * 2, this.newJobWaitsToStart() ? START_POLL_MS : Infinity);
          if (this.watches.size) await this.sleepUntilNextPoll();
        }
      } finally {
        this.running = false;
        if (this.watches.size) this.loop();
      }
    })();
  }

  /**
   * A new job: polled within FIRST_POLL_MS (a job Slurm starts at once is seen running at once), then
   * less and less often. Jobs that keep coming keep the polls close, never closer than FIRST_POLL_MS.
   */
  private pollSoon(): void {
    this.delay = FIRST_POLL_MS;
    const at = Date.now() + FIRST_POLL_MS;
    if (at >= this.nextPollAt) return;
    this.nextPollAt = at;
    if (this.endSleep) {
      clearTimeout(this.timer);
      this.timer = setTimeout(this.endSleep, FIRST_POLL_MS);
    }
  }

  private newJobWaitsToStart(): boolean {
    const recent = Date.now() - START_WATCH_MS;
    for (const w of this.watches.values()) if (w.started.length && w.since > recent) return true;
    return false;
  }

  private sleepUntilNextPoll(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.endSleep = () => {
        this.endSleep = undefined;
        resolve();
      };
      this.timer = setTimeout(this.endSleep, Math.max(0, this.nextPollAt - Date.now()));
    });
  }

  private async poll(): Promise<void> {
    const ids = [...this.watches.keys()];
    const statuses = await this.query(ids);
    for (const [id, status] of statuses) {
      const w = this.watches.get(id);
      if (!w) continue;
      if (status.kind !== 'active' || !isWaiting(status.state)) for (const f of w.started.splice(0)) f();
      if (status.kind !== 'active') {
        this.watches.delete(id);
        for (const f of w.ended) f(status);
      } else if (!w.ended.length && !w.started.length) this.watches.delete(id);
    }
  }

  /**
   * The status of each id: one squeue for all, and one scontrol for those that left the queue. A job
   * array's id stands for all its elements (squeue's %F, scontrol's ArrayJobId): active while any is,
   * running once any runs.
   */
  private async query(ids: string[]): Promise<Map<string, SlurmStatus>> {
    const out = new Map<string, SlurmStatus>();
    const listed = await runSlurm(this.prefix, 'squeue', ['-h', '-j', ids.join(','), '-o', '%F|%T']);
    // squeue fails for a single unknown id ("Invalid job id specified"); several ids list the known ones.
    if (listed.code !== 0 && !/Invalid job id/i.test(listed.stderr)) throw new Error(`squeue: ${slurmError(listed)}`);
    for (const line of listed.stdout.split('\n')) {
      const [id, state] = line.trim().split('|');
      if (!id || !state || !ids.includes(id) || !isActive(state)) continue;
      const seen = out.get(id);
      if (!seen || (seen.kind === 'active' && isWaiting(seen.state) && !isWaiting(state))) out.set(id, { kind: 'active', state });
    }
    const left = ids.filter((id) => !out.has(id));
    // One job: asked about by id. Several: one listing of every job the controller still holds.
    const shown = left.length > 1 ? await this.showAll() : null;
    for (const id of left) {
      const lines = shown ? (shown.get(id) ?? null) : await this.showOne(id);
      const ends = (lines ?? []).map(parseScontrolJob);
      const bad = (lines ?? []).find((_, i) => !ends[i]);
      if (bad !== undefined) throw new Error(`scontrol show job ${id}: no JobState in ${JSON.stringify(bad.slice(0, 200))}`);
      const end = combineEnds(ends as SlurmEnd[]);
      if (end && isActive(end.state)) out.set(id, { kind: 'active', state: end.state });
      else if (end) out.set(id, { kind: 'ended', end });
      else out.set(id, { kind: 'unknown' });
    }
    return out;
  }

  /** The `scontrol show job -o` lines of one job (one per element of an array); null when Slurm no longer knows it. */
  private async showOne(id: string): Promise<string[] | null> {
    const shown = await runSlurm(this.prefix, 'scontrol', ['show', 'job', '-o', id]);
    if (shown.code === 0) return shown.stdout.split('\n').filter((l) => l.trim());
    if (/Invalid job id/i.test(shown.stderr + shown.stdout)) return null;
    throw new Error(`scontrol show job ${id}: ${slurmError(shown)}`);
  }

  /** Every job the controller holds (finished ones for MinJobAge), by id (an array's elements under the array's): its lines. */
  private async showAll(): Promise<Map<string, string[]>> {
    const shown = await runSlurm(this.prefix, 'scontrol', ['show', 'job', '-o']);
    if (shown.code !== 0) throw new Error(`scontrol show job: ${slurmError(shown)}`);
    const lines = new Map<string, string[]>();
    for (const line of shown.stdout.split('\n')) {
      const key = jobKeyOf(line);
      if (!key) continue;
      const list = lines.get(key);
      if (list) list.push(line);
      else lines.set(key, [line]);
    }
    return lines;
  }
}
