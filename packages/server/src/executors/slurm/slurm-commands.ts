import { defaultSpawner } from '../spawner/spawner.js';

/** What a Slurm command answered. */
export interface SlurmReply {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a Slurm command (sbatch, squeue, scontrol, scancel) through the cluster's submit prefix (an
 * argv such as ["ssh", "login1"]), without a shell, with only PATH and SLURM_CONF of the server's
 * environment: nothing of the server (keys, settings) reaches the cluster. Run by the spawner
 * process (a fork from the server would stall its thread in proportion to the server's memory).
 */
export function runSlurm(prefix: readonly string[], command: string, args: readonly string[]): Promise<SlurmReply> {
  const [program, ...rest] = [...prefix, command, ...args];
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  if (process.env.SLURM_CONF) env.SLURM_CONF = process.env.SLURM_CONF;
  return defaultSpawner()
    .capture(program, rest, { env, maxBuffer: 64 * 1024 * 1024, timeoutMs: 120_000 })
    .catch((e: Error) => ({ code: 1, stdout: '', stderr: `${command} could not be run: ${e.message}` }));
}

/** The first line Slurm wrote to stderr, for messages ("sbatch: error: Invalid partition name specified"). */
export function slurmError(reply: SlurmReply): string {
  return (reply.stderr.trim().split('\n').filter(Boolean).pop() ?? `exit code ${reply.code}`).trim();
}
