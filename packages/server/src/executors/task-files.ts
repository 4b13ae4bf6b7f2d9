import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { appendBeneath, lstatBeneathSync, removeBeneath } from '../storage/beneath.js';
import type { AttemptControl, TaskSpec } from './executor.js';

/**
 * Before a launch: the attempt's control directory, the log's directory, the task's working and
 * writable directories. A log that an earlier attempt's task replaced with a link (symbolic or
 * hard), a FIFO or a directory is removed (the link itself, never what it names), so the new attempt gets a file.
 */
export async function makeTaskDirectories(task: TaskSpec, control: AttemptControl): Promise<void> {
  mkdirSync(control.dir, { recursive: true });
  const logDir = path.dirname(task.logFile);
  const logName = path.basename(task.logFile);
  mkdirSync(logDir, { recursive: true });
  // Looked at and removed from the log directory's handle, following no link: a link is removed, a
  // directory with all in it (its links too, never what they name); a hard link loses this name only.
  // Looked at at once (a metadata call, on the launch path); removed, rarely, through the thread pool.
  const log = lstatBeneathSync(logDir, logName);
  if (log && (!log.isFile() || log.nlink > 1)) await removeBeneath(logDir, logName);
  // A writable file (a WDL task's failure file) exists already: only directories are made.
  for (const dir of [task.cwd, ...(task.writable ?? [])]) if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
}

/** Lines the server writes at the head of the task's log (notes, the preamble), as one text; null lines are skipped. */
export function logLinesText(lines: readonly (string | null)[]): string {
  return lines
    .filter((line) => line !== null)
    .map((line) => `${line}\n`)
    .join('');
}

/**
 * Appends those lines to the task's log, before the task's own output. One write, in the thread
 * pool (creating the file is the slow part, off the scheduler's thread); never through a link.
 */
export async function appendLogLines(logFile: string, lines: readonly (string | null)[]): Promise<void> {
  await appendBeneath(path.dirname(logFile), path.basename(logFile), logLinesText(lines));
}
