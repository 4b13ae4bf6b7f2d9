import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../scripts/slurm-dev-cluster.sh', import.meta.url));
let up = false;

/**
 * The machine's single-node Slurm cluster (scripts/slurm-dev-cluster.sh up: idempotent, installs and
 * starts it where it is missing). Tests use the real sbatch, squeue, scontrol and scancel.
 */
export function slurmClusterUp(): void {
  if (up) return;
  execFileSync('bash', [SCRIPT, 'up'], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 600_000 });
  up = true;
}

/** A fresh directory that stands for the cluster's shared filesystem (one node: any local directory). */
export function sharedDirectory(): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), 'runyard-slurm-')));
}
