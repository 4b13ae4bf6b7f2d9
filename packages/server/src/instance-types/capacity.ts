import os from 'node:os';

/** What an executor can give its running tasks at once, all its queues and workspaces together. */
export interface Capacity {
  cpus: number;
  memoryGiB: number;
  /** The settings that raise it, for messages. */
  cpusSetting: string;
  memorySetting: string;
}

const GIB = 1024 ** 3;

/** The settings of the local executor's size (a Config has them; this folder sits below config.ts, so it names only what it reads). */
export interface CapacitySettings {
  localCpus: number;
  localMemoryGiB: number;
}

let host: { cpus: number; memoryGiB: number } | undefined;

/** The host's CPUs and memory, asked once (every submission is checked against them). */
function hostSize(): { cpus: number; memoryGiB: number } {
  host ??= {
    cpus: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
    memoryGiB: Math.floor((os.totalmem() / GIB) * 100) / 100,
  };
  return host;
}

/** The local executor's capacity: the settings, or (0) the host's CPUs and memory. */
export function localCapacity(config: CapacitySettings): Capacity {
  return {
    cpus: config.localCpus || hostSize().cpus,
    memoryGiB: config.localMemoryGiB || hostSize().memoryGiB,
    cpusSetting: 'RUNYARD_LOCAL_CPUS',
    memorySetting: 'RUNYARD_LOCAL_MEMORY_GIB',
  };
}

/** The capacity of a queue backend, or null for one whose jobs are not admitted by size here. */
export function capacityOf(config: CapacitySettings, backend: string): Capacity | null {
  return backend === 'local' ? localCapacity(config) : null;
}
