import type { Executor } from './executor.js';
import type { Config } from '../config.js';
import { LocalExecutor } from './local.js';
import { detectCgroups } from './sandbox/cgroup.js';
import { TaskLimits } from './sandbox/limits.js';
import { createSandbox, type SandboxSettings } from './sandbox/sandbox.js';

/** The executors of this server, by the backend name a queue gives (queues.backend). */
export function createExecutors(settings: SandboxSettings & Pick<Config, 'cgroups'>): Record<string, Executor> {
  const limits = new TaskLimits(() => detectCgroups(settings.cgroups));
  return { local: new LocalExecutor(undefined, createSandbox(settings), limits) };
}
