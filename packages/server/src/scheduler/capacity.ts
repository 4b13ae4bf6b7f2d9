import os from 'node:os';
import type { Config } from '../config.js';

/** What an executor can give its running tasks at once, all its queues and workspaces together. */
export interface Capacity {
  cpus: number;
  memoryGiB: number;
  /** The settings that raise it, for messages. */
  cpusSetting: string;
  memorySetting: string;
}

const GIB = 1024 ** 3;

/** The local executor's capacity: the settings, or (0) the host's CPUs and memory. */
export function localCapacity(config: Config): Capacity {
  const hostCpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return {
    cpus: config.localCpus || hostCpus,
    memoryGiB: config.localMemoryGiB || Math.floor((os.totalmem() / GIB) * 100) / 100,
    cpusSetting: 'RUNYARD_LOCAL_CPUS',
    memorySetting: 'RUNYARD_LOCAL_MEMORY_GIB',
  };
}

/** The capacity of a queue backend, or null for one whose jobs are not admitted by size here. */
export function capacityOf(config: Config, backend: string): Capacity | null {
  return backend === 'local' ? localCapacity(config) : null;
}
