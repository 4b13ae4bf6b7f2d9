import type { Logger } from 'pino';
import { databaseUrlOf, type Config } from '../config.js';
import { createExecutors } from '../executors/registry.js';
import { EngineServerSweep } from './engine-server-sweep.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { SessionRunner } from '../scheduler/session-runner.js';
import { DeletionWorker } from '../services/deletion-worker.js';
import { createBlobStore } from '../storage/registry.js';
import { openStore, type StoreOptions } from '../store/database.js';
import { hpcClusterLookup } from '../store/hpc-cluster-lookup.js';

/** What runs besides the API: the job scheduler, the interactive sessions' runner, the deletion worker and the engine servers' sweep, on a store of their own. */
export interface BackgroundWork {
  schedulerId: string;
  databaseKind: string;
  wakeScheduler(): void;
  wakeDeletion(): void;
  /** Stops both (running tasks keep running; with releaseLeases false their leases are kept, as after a crash) and closes the store. */
  stop(options?: { releaseLeases?: boolean }): Promise<void>;
}

/**
 * Starts the scheduler (local executor, and Slurm for the registered clusters) and the deletion worker. The database is migrated already.
 * besideApi: this thread is the background thread of a process that also serves the API (role all).
 */
export function startBackgroundWork(config: Config, log: Logger, storeOptions: StoreOptions = {}, besideApi = false): BackgroundWork {
  const store = openStore(databaseUrlOf(config), storeOptions);
  const blobs = createBlobStore(config);
  const executors = createExecutors(config, { slurmClusters: hpcClusterLookup(store.db), slurmPollMs: config.slurmPollMs });
  // This thread launches and follows the local tasks: with the spawner, it leaves the group where the API's thread
  // (and on a shared host, its clients) would take most of the CPU. A process of its own (role scheduler) has no API
  // to compete with, and its main thread stays where /proc/self/cgroup, which finds the tasks' folder, says it is.
  if (besideApi) {
    const unplaced = executors.local.placeDispatchers();
    if (unplaced) log.debug(`the scheduler's thread keeps the server's CPU weight: ${unplaced}`);
  }
  const scheduler = new Scheduler({ store, config, blobs, executors });
  const deletionWorker = new DeletionWorker({ db: store.db, blobs, pollMs: config.deletionPollMs });
  const engineSweep = new EngineServerSweep(store.db, config);
  const sessions = new SessionRunner({ db: store.db, config, blobs, executor: executors.local! });
  scheduler.start(log);
  sessions.start(log);
  deletionWorker.start(log);
  engineSweep.start(log);
  let stopping: Promise<void> | undefined;
  return {
    schedulerId: scheduler.id,
    databaseKind: store.kind,
    // Jobs and interactive sessions alike.
    wakeScheduler: () => {
      scheduler.wake();
      sessions.wake();
    },
    wakeDeletion: () => deletionWorker.wake(),
    stop: (options) =>
      (stopping ??= Promise.all([scheduler.stop(options), deletionWorker.stop(), engineSweep.stop(), sessions.stop()]).then(() =>
        store.close(),
      )),
  };
}
