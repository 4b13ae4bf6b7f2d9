// The entry of the background thread (background-thread-handle.ts starts it): the scheduler and the
// deletion worker on an event loop of their own, so request handling never starves them.
import { parentPort, workerData } from 'node:worker_threads';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { withUsableTaskPath } from '../executors/sandbox/task-path.js';
import { logStreamFor } from '../log-format.js';
import { startBackgroundWork } from './background-work.js';
import type { BackgroundThreadData, ToBackground, FromBackground } from './background-messages.js';

const port = parentPort!;
const { env, logFormat, threadTurns } = workerData as BackgroundThreadData;
// As the server's own start does (main.ts): the task PATH without what cannot work in the sandbox.
const { config } = withUsableTaskPath(loadConfig(env));
const log = pino({ level: config.logLevel }, logStreamFor(logFormat));
const work = startBackgroundWork(config, log, { threadTurns }, true);
const send = (message: FromBackground) => port.postMessage(message);

port.on('message', (message: ToBackground) => {
  if (message.type === 'wake-scheduler') work.wakeScheduler();
  else if (message.type === 'wake-deletion') work.wakeDeletion();
  else if (message.type === 'stop') {
    void work.stop({ releaseLeases: message.releaseLeases }).then(
      () => {
        send({ type: 'stopped' });
        port.close();
      },
      (e: Error) => {
        send({ type: 'stopped', error: e.message });
        port.close();
      },
    );
  }
});
send({ type: 'started', schedulerId: work.schedulerId });
