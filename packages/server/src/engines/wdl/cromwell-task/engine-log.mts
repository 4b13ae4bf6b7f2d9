import { constants, createWriteStream, existsSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { localPathOf } from './call-logs.mjs';
import type { CromwellControl } from './control.mjs';
import type { CromwellClient, WorkflowMetadata } from './cromwell-api.mjs';
import type { Log } from './follow.mjs';

/** Cromwell's log of the workflow in the job's logs folder, as toil's and miniwdl's engine.log. */
export const ENGINE_LOG = 'engine.log';

/**
 * How long, in poll intervals (at least ENGINE_LOG_MIN_WAIT_MS), the task waits at the workflow's end
 * for the metadata to name the log's copy: Cromwell copies it once the workflow's status is final, and
 * names it (`workflowLog`) when its IO actor has acknowledged the copy.
 */
const ENGINE_LOG_POLLS = 5;
const ENGINE_LOG_MIN_WAIT_MS = 2000;

export function engineLogWaitMs(pollMs: number): number {
  return Math.max(ENGINE_LOG_MIN_WAIT_MS, ENGINE_LOG_POLLS * pollMs);
}

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const PROC_FD = '/proc/self/fd';

/** Why a name below the root was not opened, in words; null when the error says nothing of the kind. */
function refusal(e: unknown): string | null {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'it is a symbolic link';
  if (code === 'ENOTDIR') return 'a folder on its way is a symbolic link or no folder';
  if (code === 'ENOENT') return 'it does not exist';
  return null;
}

/**
 * Opens the regular file `names` below root for reading, following no link: each folder is opened
 * with O_NOFOLLOW from the handle of the one before (through /proc/self/fd/<n>/<name>, Linux's
 * openat; where there is no /proc, by its path, each name checked by its own open), the file with
 * O_NOFOLLOW | O_NONBLOCK (a FIFO does not block), and kept only when fstat says it is a regular
 * file. root is trusted: what holds it is not writable by what writes below it.
 */
async function openRegularBelow(root: string, names: string[]): Promise<FileHandle> {
  if (!names.length || names.some((n) => !n || n === '.' || n === '..' || n.includes('/')))
    throw new Error(`${names.join('/')} is not a path below ${root}`);
  const viaProc = existsSync(PROC_FD);
  const folders: FileHandle[] = [];
  try {
    let at = root;
    folders.push(await open(root, O_RDONLY | O_DIRECTORY));
    for (const name of names.slice(0, -1)) {
      at = path.join(viaProc ? `${PROC_FD}/${folders.at(-1)!.fd}` : at, name);
      folders.push(await open(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW));
    }
    const file = await open(
      path.join(viaProc ? `${PROC_FD}/${folders.at(-1)!.fd}` : at, names.at(-1)!),
      O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
    );
    if (!(await file.stat()).isFile()) {
      await file.close();
      throw new Error('it is not a regular file');
    }
    return file;
  } catch (e) {
    const why = refusal(e);
    throw why ? new Error(why) : e;
  } finally {
    for (const folder of folders) await folder.close();
  }
}

/**
 * The copy of the workflow's log in `<root>/<dir>` that the metadata names (`workflowLog`), waiting
 * at most waitMs for it; null when it names none there by then.
 */
async function finalLogOf(
  client: CromwellClient,
  id: string,
  finalDir: string,
  md: WorkflowMetadata,
  pollMs: number,
  waitMs: number,
): Promise<string | null> {
  const deadline = Date.now() + waitMs;
  let named = md.workflowLog;
  for (;;) {
    const local = named ? localPathOf(named) : null;
    if (local && path.dirname(path.resolve(local)) === finalDir) return path.resolve(local);
    const left = deadline - Date.now();
    if (left <= 0) return null;
    await sleep(Math.min(pollMs, left));
    named = (await client.metadata(id, ['workflowLog']).catch(() => md)).workflowLog;
  }
}

/** The line that says where a Cromwell server Runyard does not run keeps the workflow's log. */
function elsewhereLine(id: string, md: WorkflowMetadata): string {
  if (md.workflowLog) return `Cromwell keeps the workflow's log at ${md.workflowLog} (its metadata workflowLog), on its own server.`;
  return (
    `Cromwell keeps the workflow's log on its own server, as workflow.${id}.log in its workflow log directory ` +
    '(workflow-options.workflow-log-dir; deleted when the workflow ends while workflow-options.workflow-log-temporary is true).'
  );
}

/**
 * Copies Cromwell's log of the workflow into the job's logs as engine.log, from where the task asked
 * Cromwell to copy it (control.workflowLog), once the metadata names that copy (waiting at most
 * waitMs). Everything there is writable by Cromwell's calls: the file is opened without following
 * a link and copied only when it is a regular file. Never fails the job: what goes wrong is a line
 * of its log, as is where Cromwell keeps the log when the task cannot read it.
 */
export async function copyEngineLog(
  client: CromwellClient,
  id: string,
  control: CromwellControl,
  md: WorkflowMetadata,
  log: Log,
  waitMs: number,
): Promise<void> {
  const where = control.workflowLog;
  if (!where) return log(elsewhereLine(id, md));
  const finalDir = path.resolve(where.root, where.dir);
  try {
    const source = await finalLogOf(client, id, finalDir, md, control.pollMs, waitMs);
    if (!source) {
      log(`Cromwell did not name a copy of the workflow's log in ${finalDir} within ${waitMs} ms: ${ENGINE_LOG} is not written.`);
      return;
    }
    const names = path.relative(path.resolve(where.root), source).split(path.sep);
    let file: FileHandle;
    try {
      file = await openRegularBelow(where.root, names);
    } catch (e) {
      log(`The workflow's log ${source} is not copied to ${ENGINE_LOG}: ${(e as Error).message}.`);
      return;
    }
    await pipeline(file.createReadStream(), createWriteStream(path.join(control.logs, ENGINE_LOG)));
    log(`Cromwell's log of the workflow is in the job's logs: ${ENGINE_LOG}.`);
  } catch (e) {
    log(`The workflow's log could not be copied to ${ENGINE_LOG}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
  }
}
