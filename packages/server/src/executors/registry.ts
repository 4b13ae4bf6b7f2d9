import os from 'node:os';
import path from 'node:path';
import type { Executor } from './executor.js';
import type { Config } from '../config.js';
import { LocalExecutor } from './local.js';
import { detectCgroups, readHostView } from './sandbox/cgroup.js';
import { TaskLimits } from './sandbox/limits.js';
import { createSandbox, type SandboxSettings } from './sandbox/sandbox.js';
import { SlurmExecutor } from './slurm/slurm-executor.js';
import { defaultSpawner } from './spawner/spawner.js';
import type { HpcClusterRecord } from '../store/hpc-cluster-lookup.js';

export interface ExecutorOptions {
  /** The registered HPC clusters by id: with it, the Slurm executor runs the jobs of their queues. */
  slurmClusters?: (id: string) => Promise<HpcClusterRecord | null>;
  slurmPollMs?: number;
}

/** The executors of this server, by the backend name a queue gives (queues.backend). */
export function createExecutors(
  settings: SandboxSettings & Pick<Config, 'cgroups' | 'localCpus'> & Partial<Pick<Config, 'nativeSpawn' | 'dataDir'>>,
  options: ExecutorOptions = {},
): Record<string, Executor> & { local: LocalExecutor } {
  // The tasks' folder weighs as many processes as the CPUs they may use together (the local capacity).
  const tasksCpus = settings.localCpus || os.availableParallelism();
  const limits = new TaskLimits(() => detectCgroups(settings.cgroups, readHostView, tasksCpus));
  // Local tasks' /etc: one copy of its entries, bound in one mount (etc-snapshot.ts).
  const sandbox = createSandbox(
    settings,
    settings.dataDir ? path.join(settings.dataDir, 'sandbox-etc') : undefined,
    settings.dataDir ? path.join(settings.dataDir, 'sandbox-net') : '',
    limits,
  );
  const executors: Record<string, Executor> & { local: LocalExecutor } = {
    local: new LocalExecutor(undefined, sandbox, limits, defaultSpawner(settings.nativeSpawn)),
  };
  if (options.slurmClusters) executors.slurm = new SlurmExecutor({ clusters: options.slurmClusters, sandbox, pollMs: options.slurmPollMs });
  return executors;
}
