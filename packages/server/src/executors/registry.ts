import type { Executor } from './executor.js';
import { LocalExecutor } from './local.js';

/** The executors of this server, by the backend name a queue gives (queues.backend). */
export function createExecutors(): Record<string, Executor> {
  return { local: new LocalExecutor() };
}
