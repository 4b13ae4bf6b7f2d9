import type { Executor } from './executor.js';
import { LocalExecutor } from './local.js';
import { createSandbox, type SandboxSettings } from './sandbox/sandbox.js';

/** The executors of this server, by the backend name a queue gives (queues.backend). */
export function createExecutors(settings: SandboxSettings): Record<string, Executor> {
  return { local: new LocalExecutor(undefined, createSandbox(settings)) };
}
