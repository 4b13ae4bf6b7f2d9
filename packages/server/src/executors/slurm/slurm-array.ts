import { open, readFile, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { appendBeneath, BeneathError, openBeneath, ownDirBeneath, removeBeneath } from '../../storage/beneath.js';
import { arraySummaryLine, listArrayDir, markersOf, type ArrayMarkers, type ArrayRun } from '../array-run.js';
import type { AttemptControl } from '../executor.js';
import { claimFileOf } from '../wrapper.js';
import { ARRAY_ELEMENT_NAME, ARRAY_ELEMENT_SCRIPT } from './array-element.js';

/**
 * An array task on Slurm: one Slurm array, an element per row (array-element.ts). What the executor
 * needs to tell how it ended is kept beside the attempt's other control files, so that a restarted
 * server, which has only the Slurm job id, still reads the rows' markers and finishes the log.
 *
 * The elements run outside the sandbox while other rows run and write the job's logs/: neither
 * they nor Slurm (which opens each element's --output as it starts) name a file there. Everything
 * an element prints, its row's output among it, goes to `output-<i>` in the array directory (in
 * the control directory: made by the server, written by no task). The server copies it into logs/
 * (ArrayLogs): each row's log `tasks/task-<i>.log` while it runs, and when it ends its section of
 * the job's log (`=== task <i>: exit code <c> ===` and that output), then the array's last line;
 * in logs/ it follows nothing a task put there and reads nothing back.
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

/** A path as sbatch's --output reads it (a filename pattern): a `%` of its own is `%%`. */
export function slurmFileName(file: string): string {
  return file.replaceAll('%', '%%');
}

/** The file in the array directory that takes what element i prints. */
function outputName(i: number): string {
  return `output-${i}`;
}

/** sbatch's --output and --error of an array: `output-<index>` in its array directory (Slurm's %a). */
export function arrayOutputPattern(array: ArrayRun): string {
  return `${slurmFileName(array.dir)}/output-%a`;
}

/** The argv every element runs (under the batch script): the element script around the row's sandboxed argv. */
export function arrayElementArgv(control: AttemptControl, record: SlurmArrayRecord, rowArgv: string[]): string[] {
  return ['bash', '-c', ARRAY_ELEMENT_SCRIPT, ARRAY_ELEMENT_NAME, claimFileOf(control), record.dir, ...rowArgv];
}

/** How the rows of an ended array went: the task's exit code (0 only when every row's was), and whether every row ran. */
export interface ArrayEnd {
  exitCode: number;
  allRan: boolean;
}

const CHUNK = 1024 * 1024;
const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** Makes file (in the array directory) unless it exists: true for the one caller that made it. */
async function claim(file: string): Promise<boolean> {
  try {
    await (await open(file, 'wx', 0o600)).close();
    return true;
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') return false;
    throw e;
  }
}

async function writeAll(to: FileHandle, data: Buffer): Promise<void> {
  for (let done = 0; done < data.length;) done += (await to.write(data, done, data.length - done)).bytesWritten;
}

/** Appends what `from` holds from `position` on to `to`, a chunk at a time; the position it reached. */
async function copyFrom(from: FileHandle, position: number, to: FileHandle): Promise<number> {
  const buffer = Buffer.alloc(CHUNK);
  for (;;) {
    const { bytesRead } = await from.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) return position;
    await writeAll(to, buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
}

/** A file of the array directory opened to read; null when it is not there. */
async function openOutput(dir: string, name: string): Promise<FileHandle | null> {
  try {
    return await openBeneath(dir, name, 'read');
  } catch (e) {
    if (e instanceof BeneathError && e.reason === 'missing') return null;
    throw e;
  }
}

/** What a task can put in the server's way in logs/ (a link, a FIFO, a directory, a file with other names, one made in a race). */
function putThere(e: unknown): boolean {
  return e instanceof BeneathError || errnoOf(e) === 'EEXIST' || errnoOf(e) === 'ENOTEMPTY';
}

/**
 * A file the server writes in logs/ (a row's log, the job's log), opened to append with no link
 * followed. `fresh`, or when what is there is not a regular file of this one name (a task put a
 * link, a FIFO, a directory or a hard link in its place), that is removed and a new file made: then
 * `made` is true. Null when a task still races the server after a few tries: nothing is written.
 */
async function openLogFile(root: string, rel: string, fresh: boolean): Promise<{ handle: FileHandle; made: boolean } | null> {
  if (!fresh) {
    try {
      return { handle: await openBeneath(root, rel, 'append'), made: false };
    } catch (e) {
      if (!putThere(e)) throw e;
    }
  }
  for (let tries = 0; tries < 3; tries++) {
    try {
      const parent = path.posix.dirname(rel);
      if (parent !== '.') await ownDirBeneath(root, parent);
      await removeBeneath(root, rel);
      return { handle: await openBeneath(root, rel, 'create'), made: true };
    } catch (e) {
      if (!putThere(e)) throw e;
    }
  }
  return null;
}

/** The markers of an array directory, and the rows whose output the server copied into the job's log. */
interface ArrayState extends ArrayMarkers {
  published: Set<number>;
}

async function readArrayState(dir: string): Promise<ArrayState> {
  const names = await listArrayDir(dir);
  const published = new Set<number>();
  for (const name of names) {
    const m = /^published-(\d+)$/.exec(name);
    if (m) published.add(Number(m[1]));
  }
  return { ...markersOf(names), published };
}

/**
 * Copies what an array's elements print (`output-<i>` in the array directory) into the job's logs:
 * each row's output into `tasks/task-<i>.log` as it comes, and each row that ended into the job's log
 * as its section, once (a `published-<i>` marker, made before the section is written, so that a
 * second server never writes it again). Holds how much of each row's output it copied, so that
 * following a running array copies only what is new; a new one (a restarted server) makes each
 * row's log afresh.
 */
export class ArrayLogs {
  private readonly copied = new Map<number, number>();

  constructor(readonly record: SlurmArrayRecord) {}

  /** The new output of every row that runs into its log; each row that ended, not yet in the job's log, into it, by index. */
  async follow(): Promise<void> {
    const state = await readArrayState(this.record.dir);
    for (const i of [...state.started].sort((a, b) => a - b)) {
      if (state.published.has(i)) continue;
      const code = state.exits.get(i);
      if (code === undefined) await this.copyRow(i);
      else await this.publish(i, code);
    }
  }

  /** Appends text to the job's log (never through what a task put in its place). */
  async appendToJobLog(text: string): Promise<void> {
    const log = await this.openJobLog();
    if (!log) return;
    try {
      await writeAll(log, Buffer.from(text));
    } finally {
      await log.close();
    }
  }

  private openJobLog(): Promise<FileHandle | null> {
    return openLogFile(path.dirname(this.record.logFile), path.basename(this.record.logFile), false).then((f) => f?.handle ?? null);
  }

  /** Row i's output that is not yet in its log (all of it, into a new log, the first time). */
  private async copyRow(i: number): Promise<void> {
    const output = await openOutput(this.record.dir, outputName(i));
    try {
      const from = this.copied.get(i);
      if (from !== undefined && (!output || (await output.stat()).size <= from)) return;
      const logsDir = path.dirname(this.record.taskLogsDir);
      const rel = `${path.basename(this.record.taskLogsDir)}/task-${i}.log`;
      const log = await openLogFile(logsDir, rel, from === undefined);
      if (!log) return;
      try {
        // A log made again (a task removed or replaced it) gets all the row's output.
        const start = log.made ? 0 : (from ?? 0);
        this.copied.set(i, output ? await copyFrom(output, start, log.handle) : 0);
      } finally {
        await log.handle.close();
      }
    } finally {
      await output?.close();
    }
  }

  /** Row i ended with code: the rest of its output into its log, and its section into the job's log, once. */
  private async publish(i: number, code: number): Promise<void> {
    if (!(await claim(path.join(this.record.dir, `published-${i}`)))) return;
    await this.copyRow(i);
    const output = await openOutput(this.record.dir, outputName(i));
    try {
      const log = await this.openJobLog();
      if (!log) return;
      try {
        await writeAll(log, Buffer.from(`=== task ${i}: exit code ${code} ===\n`));
        if (output) await copyFrom(output, 0, log);
      } finally {
        await log.close();
      }
    } finally {
      await output?.close();
    }
  }
}

/**
 * Once Slurm holds none of the array's elements: rows that started but recorded no end (killed
 * with their element) are recorded as ended with 255, as the local driver does; every row that
 * ended and is not yet in the job's log is written there (logs, when given, is what followed the
 * array while it ran); then the log's last line says how many rows failed. Done once (a `done`
 * marker), however many times the end is read.
 */
export async function concludeArray(record: SlurmArrayRecord, logs = new ArrayLogs(record)): Promise<ArrayEnd> {
  const { started, exits } = markersOf(await listArrayDir(record.dir));
  if (await claim(path.join(record.dir, 'done'))) {
    for (const i of [...started].filter((i) => !exits.has(i)).sort((a, b) => a - b)) {
      await appendBeneath(record.dir, outputName(i), `Runyard: task ${i} ended without recording its exit code.\n`);
      await writeFile(path.join(record.dir, `exit-${i}-255`), '');
      exits.set(i, 255);
    }
    await logs.follow();
    const failed = [...exits.values()].filter((c) => c !== 0).length;
    await logs.appendToJobLog(`${arraySummaryLine(failed, record.size)}\n`);
  }
  const allRan = exits.size === record.size;
  const failed = [...exits.values()].some((c) => c !== 0);
  return { exitCode: allRan && !failed ? 0 : 1, allRan };
}
