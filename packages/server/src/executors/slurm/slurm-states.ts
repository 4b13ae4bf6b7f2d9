/** States of a job that Slurm holds before it runs. */
const WAITING = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'RESV_DEL_HOLD']);

/** States in which Slurm still holds the job (waiting, running, or finishing). */
const ACTIVE = new Set([...WAITING, 'RUNNING', 'COMPLETING', 'SUSPENDED', 'STOPPED', 'SIGNALING', 'STAGE_OUT', 'RESIZING']);

export const isWaiting = (state: string) => WAITING.has(state);
export const isActive = (state: string) => ACTIVE.has(state);

/** A finished job as `scontrol show job -o` tells it. */
export interface SlurmEnd {
  state: string;
  reason: string;
  /** The batch script's exit status, and the signal that ended it (0: none). */
  exitCode: number;
  signal: number;
}

/** `Key=Value` fields of one `scontrol show job -o` line (values without spaces are all this reads). */
export function parseScontrolJob(line: string): SlurmEnd | null {
  const field = (name: string) => new RegExp(`(?:^| )${name}=(\\S*)`).exec(line)?.[1];
  const state = field('JobState');
  if (!state) return null;
  const [code, signal] = (field('ExitCode') ?? '0:0').split(':').map(Number);
  return { state, reason: field('Reason') ?? 'None', exitCode: code || 0, signal: signal || 0 };
}

/**
 * One end for the records of one Slurm job: a job has one, a job array one per element (and one for
 * its elements still pending). Still active while any record is (running when any runs); else
 * completed when all completed, else the first that tells most: an end other than FAILED (a time
 * limit, a cancel, a node failure), then FAILED (its rows' own exit codes say the rest).
 */
export function combineEnds(ends: SlurmEnd[]): SlurmEnd | null {
  if (!ends.length) return null;
  const active = ends.filter((e) => isActive(e.state));
  if (active.length) return active.find((e) => !isWaiting(e.state)) ?? active[0];
  return ends.find((e) => e.state !== 'COMPLETED' && e.state !== 'FAILED') ?? ends.find((e) => e.state === 'FAILED') ?? ends[0];
}

/** The job a `scontrol show job -o` line belongs to: its array's id for an element of an array, else its own. */
export function jobKeyOf(line: string): string | null {
  return / ArrayJobId=(\d+)(?: |$)/.exec(line)?.[1] ?? /^JobId=(\d+)(?: |$)/.exec(line)?.[1] ?? null;
}

export type EndKind = 'exited' | 'lost';

/**
 * What an end state means for Runyard: the task ended (its exit code counts) or was lost (the
 * scheduler runs it again), and a message saying what Slurm did, when it did more than run it.
 */
export function meaningOf(jobId: string, end: SlurmEnd): { kind: EndKind; message?: string; outOfMemory?: true } {
  switch (end.state) {
    case 'COMPLETED':
    case 'FAILED':
      return { kind: 'exited' };
    case 'OUT_OF_MEMORY':
      return { kind: 'exited', outOfMemory: true };
    case 'TIMEOUT':
    case 'DEADLINE':
      return { kind: 'exited', message: `The task passed its time limit: Slurm ended job ${jobId} (${end.state}).` };
    case 'CANCELLED':
      return { kind: 'exited', message: `Slurm job ${jobId} was cancelled in Slurm (scancel, or by an administrator).` };
    case 'NODE_FAIL':
    case 'BOOT_FAIL':
    case 'PREEMPTED':
      return { kind: 'lost', message: `Slurm job ${jobId} ended with ${end.state} (reason: ${end.reason}).` };
    default:
      return { kind: 'exited', message: `Slurm job ${jobId} ended with ${end.state} (reason: ${end.reason}).` };
  }
}
