import type { Config } from '../config.js';
import { findOnPath } from '../executors/find-executable.js';

/** A container runtime was configured but cannot be run: the server does not start, a job does not fall back to the host. */
export class ContainerRuntimeError extends Error {}

/**
 * The path of the configured container runtime (RUNYARD_CONTAINER_RUNTIME), or null when none is
 * configured. A configured one that is not on the task PATH is an error: running the job on the
 * host instead would silently drop the image and the limits the operator asked for.
 */
export function containerRuntimeOf(config: Pick<Config, 'containerRuntime' | 'taskPath'>): string | null {
  if (!config.containerRuntime) return null;
  const found = findOnPath(config.containerRuntime, config.taskPath);
  if (!found) {
    throw new ContainerRuntimeError(
      `RUNYARD_CONTAINER_RUNTIME=${config.containerRuntime}, but ${config.containerRuntime} is not on the task PATH (RUNYARD_TASK_PATH): ` +
        'install it, or unset RUNYARD_CONTAINER_RUNTIME to run bash jobs on the host (in the sandbox).',
    );
  }
  return found;
}
