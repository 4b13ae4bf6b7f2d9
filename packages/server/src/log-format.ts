import { createRequire } from 'node:module';
import type Pretty from 'pino-pretty';
import type { Config } from './config.js';

export type LogFormat = 'json' | 'pretty';

// Loaded only for pretty logs (a person at a terminal): a server that logs JSON does without its memory.
const requireModule = createRequire(import.meta.url);

/** `auto` (the setting's default) means: a person at a terminal reads pretty lines, a pipe gets JSON. */
export function chooseLogFormat(setting: Config['logFormat'], isTTY: boolean): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting;
  return isTTY ? 'pretty' : 'json';
}

/**
 * Where the server's log lines go: for `pretty`, one readable line each (time, level, message) on
 * stdout; for `json`, undefined, which is pino's JSON lines on stdout. Written synchronously, so
 * they stay in order with the start and shutdown lines printed beside them.
 */
export function logStreamFor(format: LogFormat): NodeJS.WritableStream | undefined {
  if (format === 'json') return undefined;
  const pretty = requireModule('pino-pretty') as typeof Pretty;
  return pretty({ translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true, sync: true });
}
