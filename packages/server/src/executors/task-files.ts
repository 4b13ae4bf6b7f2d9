import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AttemptControl, TaskSpec } from './executor.js';

/** Before a launch: the attempt's control directory, the log's directory, the task's working and writable directories. */
export function makeTaskDirectories(task: TaskSpec, control: AttemptControl): void {
  mkdirSync(control.dir, { recursive: true });
  mkdirSync(path.dirname(task.logFile), { recursive: true });
  // A writable file (a WDL task's failure file) exists already: only directories are made.
  for (const dir of [task.cwd, ...(task.writable ?? [])]) if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
}

/** Lines the server writes at the head of the task's log (notes, the preamble), before the task's own output; null lines are skipped. */
export function appendLogLines(logFile: string, lines: readonly (string | null)[]): void {
  const log = openSync(logFile, 'a', 0o644);
  try {
    for (const line of lines) if (line !== null) writeSync(log, `${line}\n`);
  } finally {
    closeSync(log);
  }
}
