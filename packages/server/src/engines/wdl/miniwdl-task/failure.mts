import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { callOfPath } from './call-logs.mjs';

/** miniwdl's error.json (runtime/error.py error_json): a RunFailed whose `cause` is the failing call's error. */
export interface ErrorJson {
  error?: string;
  message?: string;
  workflow?: string;
  task?: string;
  run?: string;
  dir?: string;
  exit_status?: number;
  stderr_file?: string;
  cause?: ErrorJson;
}

/** The last lines of a text, on one line; null when empty. */
export function tailOf(text: string, lines = 5): string | null {
  const kept = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-lines);
  const tail = kept.join(' | ');
  return tail ? (tail.length > 600 ? `…${tail.slice(-600)}` : tail) : null;
}

async function readErrorJson(runDir: string): Promise<ErrorJson | null> {
  try {
    return JSON.parse(await readFile(path.join(runDir, 'error.json'), 'utf8')) as ErrorJson;
  } catch {
    return null;
  }
}

const sentence = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/[.:]$/, '');

/**
 * One paragraph on why the miniwdl run failed: the failing call and its error from error.json
 * (a failed command: its exit code and the end of its stderr), else what miniwdl said last on
 * stderr (it refused the workflow or its inputs before running it).
 */
export async function failureParagraph(
  runDir: string,
  exit: { code: number | null; signal: string | null },
  stderrTail: string,
): Promise<string> {
  const info = await readErrorJson(runDir);
  if (!info) {
    const how = exit.code === null ? `was killed by ${exit.signal ?? 'a signal'}` : `exited with code ${exit.code}`;
    const said = tailOf(stderrTail, 3);
    return `miniwdl ${how} before it ran the workflow${said ? `: ${said}` : '.'}`.replace(/\.?$/, '.');
  }
  const cause = info.cause ?? info;
  const rel = cause.dir ? path.relative(runDir, cause.dir) : '';
  const call = rel && !rel.startsWith('..') ? callOfPath(rel) : null;
  const what = call ? `The WDL call ${call.display}` : `The WDL workflow ${info.workflow ?? info.task ?? ''}`.trimEnd();
  if (cause.error === 'CommandFailed') {
    const oom = cause.exit_status === 137 ? ' (137: killed, possibly for running out of memory)' : '';
    const parts = [`${what} failed: its command exited with code ${cause.exit_status ?? '?'}${oom}.`];
    const stderr = cause.stderr_file ? tailOf(await readFile(cause.stderr_file, 'utf8').catch(() => '')) : null;
    if (stderr) parts.push(`Its stderr ends with: ${stderr}`);
    return parts.join(' ');
  }
  if (cause.error === 'Terminated') return `${what} was stopped: miniwdl was sent a termination signal.`;
  const message = cause.message ? `: ${sentence(cause.message)}` : '';
  return `${what} failed in miniwdl (${cause.error ?? 'error'}${message}).`;
}
