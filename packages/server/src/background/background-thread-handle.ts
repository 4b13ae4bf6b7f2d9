import { Worker } from 'node:worker_threads';
import type { LogFormat } from '../log-format.js';
import { atMostEveryMs } from './at-most-every.js';
import { clearThreadTurn, type ThreadTurnsHandle } from '../store/thread-turns.js';
import type { BackgroundThreadData, FromBackground, ToBackground } from './background-messages.js';

export interface BackgroundThread {
  /** The id of the scheduler running now (a restarted thread runs a new one). */
  readonly schedulerId: string;
  wakeScheduler(): void;
  wakeDeletion(): void;
  /** Stops the thread's work (running tasks keep running) and ends the thread. */
  stop(options?: { releaseLeases?: boolean }): Promise<void>;
}

interface ThreadLog {
  error(obj: object, msg: string): void;
}

/** Seconds between a failed thread and its replacement. */
const RESTART_DELAY_MS = 1000;
/**
 * Wakes sent to the thread (at-most-every.ts: the first after a quiet spell at once). The scheduler's
 * at most every 20 ms: under load every submission asked for a pass (claims, aborts; ~1.3 ms of the
 * thread each), 200 a second, most of them finding every slot taken while the jobs' own steps waited
 * behind them. B7, alternated pairs on one host: 0.74/0.67/0.70 at 1 ms against 0.76/0.72/0.75 at
 * 20 ms, the API serving more requests too. A freed slot still wakes it at once (from its own thread).
 */
const SCHEDULER_WAKE_EVERY_MS = 20;
/** Deletion requests: at most one wake per millisecond. */
const DELETION_WAKE_EVERY_MS = 1;

// The compiled entry beside this file: the server runs from its build (dist/), tests too.
const ENTRY = new URL('./background-thread.js', import.meta.url);

/**
 * Runs the scheduler and the deletion worker (background-thread.ts) in a worker thread, for the
 * `all` role: on the API's event loop a busy API delayed every step of every job. The thread opens
 * its own connection to the database. Should it fail, it is logged and a new one starts a second
 * later; its jobs are adopted as after a crash (their leases run out).
 */
export async function startBackgroundThread(
  env: NodeJS.ProcessEnv,
  logFormat: LogFormat,
  log: ThreadLog,
  threadTurns?: ThreadTurnsHandle,
): Promise<BackgroundThread> {
  const data: BackgroundThreadData = {
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string')),
    logFormat,
    threadTurns,
  };
  let current = await spawnThread(data);
  let stopping = false;
  let stopped: Promise<void> | undefined;
  let restart: NodeJS.Timeout | undefined;
  const restartLater = () => {
    restart = setTimeout(() => {
      spawnThread(data).then(
        (next) => {
          if (stopping) return void next.stop(true);
          current = next;
          watch(next);
        },
        (e: Error) => {
          log.error({ err: e.message }, `the scheduler thread could not start; trying again in ${RESTART_DELAY_MS / 1000} s`);
          restartLater();
        },
      );
    }, RESTART_DELAY_MS);
  };
  const watch = (thread: Thread) =>
    void thread.ended.then((reason) => {
      // A thread that died holding (or waiting for) its turn at the database must not keep the API waiting.
      if (threadTurns) clearThreadTurn(threadTurns);
      if (stopping || thread !== current) return;
      log.error({ err: reason }, `the scheduler thread ended (${reason}); a new one starts in ${RESTART_DELAY_MS / 1000} s`);
      restartLater();
    });
  watch(current);
  return {
    get schedulerId() {
      return current.schedulerId;
    },
    wakeScheduler: atMostEveryMs(SCHEDULER_WAKE_EVERY_MS, () => current.send({ type: 'wake-scheduler' })),
    wakeDeletion: atMostEveryMs(DELETION_WAKE_EVERY_MS, () => current.send({ type: 'wake-deletion' })),
    stop: (options = {}) => {
      stopping = true;
      clearTimeout(restart);
      return (stopped ??= current.stop(options.releaseLeases !== false));
    },
  };
}

interface Thread {
  schedulerId: string;
  /** Resolves with why the thread ended (it ends only when stopped, or on a failure). */
  ended: Promise<string>;
  send(message: ToBackground): void;
  stop(releaseLeases: boolean): Promise<void>;
}

/** Starts one thread and waits for its work to have started (a failure to start rejects). */
function spawnThread(data: BackgroundThreadData): Promise<Thread> {
  const worker = new Worker(ENTRY, { workerData: data });
  let onStopped: ((error?: string) => void) | undefined;
  const ended = new Promise<string>((resolve) => {
    worker.once('error', (e) => resolve(e.message));
    worker.once('exit', (code) => resolve(`exit code ${code}`));
  });
  return new Promise((resolve, reject) => {
    void ended.then((reason) => reject(new Error(`the scheduler thread ended before it started: ${reason}`)));
    worker.on('message', (message: FromBackground) => {
      if (message.type === 'stopped') onStopped?.(message.error);
      else if (message.type === 'started') {
        resolve({
          schedulerId: message.schedulerId,
          ended,
          send: (m) => worker.postMessage(m),
          stop: (releaseLeases) =>
            new Promise<void>((done, fail) => {
              onStopped = (error) => {
                void worker.terminate();
                if (error) fail(new Error(error));
                else done();
              };
              // A thread that has ended already has nothing left to stop.
              void ended.then(() => done());
              worker.postMessage({ type: 'stop', releaseLeases } satisfies ToBackground);
            }),
        });
      }
    });
  });
}
