import type { LogFormat } from '../log-format.js';
import type { ThreadTurnsHandle } from '../store/thread-turns.js';

/** What the background thread is started with: the server's environment (it loads the same configuration) and its log format. */
export interface BackgroundThreadData {
  env: Record<string, string>;
  logFormat: LogFormat;
  /** SQLite: the thread's turns at the database file, shared with the API's thread. */
  threadTurns?: ThreadTurnsHandle;
}

/** From the API's thread to the background thread. */
export type ToBackground = { type: 'wake-scheduler' } | { type: 'wake-deletion' } | { type: 'stop'; releaseLeases: boolean };

/** From the background thread to the API's thread. */
export type FromBackground = { type: 'started'; schedulerId: string } | { type: 'stopped'; error?: string };
