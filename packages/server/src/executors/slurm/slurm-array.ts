import { appendFile, open, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { arraySummaryLine, readArrayMarkers, type ArrayRun } from '../array-run.js';
import type { AttemptControl } from '../executor.js';
import { claimFileOf } from '../wrapper.js';
import { ARRAY_ELEMENT_NAME, ARRAY_ELEMENT_SCRIPT } from './array-element.js';

/**
 * An array task on Slurm: one Slurm array, an element per row (array-element.ts). What the executor
 * needs to tell how it ended is kept beside the attempt's other control files, so that a restarted
 * server, which has only the Slurm job id, still reads the rows' markers and finishes the log.
 */
export interface SlurmArrayRecord extends ArrayRun {
  logFile: string;
}

function recordFileOf(control: AttemptControl): string {
  return path.join(control.dir, `attempt-${control.attempt}.array`);
}

export async function writeArrayRecord(control: AttemptControl, record: SlurmArrayRecord): Promise<void> {
  await writeFile(recordFileOf(control), `${JSON.stringify(record)}\n`);
}

/** The attempt's array, or null for an attempt that is not one. */
export async function readArrayRecord(control: AttemptControl): Promise<SlurmArrayRecord | null> {
  const text = await readFile(recordFileOf(control), 'utf8').catch(() => null);
  return text === null ? null : (JSON.parse(text) as SlurmArrayRecord);
}

/** sbatch's --array: every row, at most `limit` at once. */
export function arrayOption(array: ArrayRun): string {
  return `--array=0-${array.size - 1}%${array.limit}`;
}

/** The argv every element runs (under the batch script): the element script around the row's sandboxed argv. */
export function arrayElementArgv(control: AttemptControl, record: SlurmArrayRecord, rowArgv: string[]): string[] {
  return [
    'bash',
    '-c',
    ARRAY_ELEMENT_SCRIPT,
    ARRAY_ELEMENT_NAME,
    claimFileOf(control),
    record.dir,
    record.taskLogsDir,
    record.logFile,
    ...rowArgv,
  ];
}

/** How the rows of an ended array went: the task's exit code (0 only when every row's was), and whether every row ran. */
export interface ArrayEnd {
  exitCode: number;
  allRan: boolean;
}

/**
 * Once Slurm holds none of the array's elements: rows that started but recorded no end (killed
 * with their element) are recorded as ended with 255 and their sections written, as the local
 * driver does; then the log's last line says how many rows failed. Done once (a `done` marker),
 * however many times the end is read.
 */
export async function concludeArray(record: SlurmArrayRecord): Promise<ArrayEnd> {
  const { started, exits } = await readArrayMarkers(record.dir);
  const first = await open(path.join(record.dir, 'done'), 'wx').then(
    (f) => f.close().then(() => true),
    () => false,
  );
  if (first) {
    for (const i of [...started].filter((i) => !exits.has(i)).sort((a, b) => a - b)) {
      await writeFile(path.join(record.dir, `exit-${i}-255`), '');
      exits.set(i, 255);
      const rowLog = path.join(record.taskLogsDir, `task-${i}.log`);
      await appendFile(rowLog, `Runyard: task ${i} ended without recording its exit code.\n`);
      const text = await readFile(rowLog);
      await appendFile(record.logFile, Buffer.concat([Buffer.from(`=== task ${i}: exit code 255 ===\n`), text]));
    }
    const failed = [...exits.values()].filter((c) => c !== 0).length;
    await appendFile(record.logFile, `${arraySummaryLine(failed, record.size)}\n`);
  }
  const allRan = exits.size === record.size;
  const failed = [...exits.values()].some((c) => c !== 0);
  return { exitCode: allRan && !failed ? 0 : 1, allRan };
}
