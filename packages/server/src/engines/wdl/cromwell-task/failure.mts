import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallRun } from './call-logs.mjs';
import type { Failure, WorkflowMetadata } from './cromwell-api.mjs';

/** The innermost messages of a failure tree (what `Workflow failed` was caused by), each once. */
export function failureMessages(failures: Failure[] | undefined): string[] {
  const out: string[] = [];
  const walk = (f: Failure) => {
    if (f.causedBy?.length) f.causedBy.forEach(walk);
    else if (f.message) out.push(f.message);
  };
  (failures ?? []).forEach(walk);
  return [...new Set(out.map((m) => m.replace(/\s+/g, ' ').trim()).filter(Boolean))];
}

/** The last lines of a call's stderr as copied into the job's logs, on one line; null when empty or missing. */
async function stderrTail(logs: string, run: CallRun): Promise<string | null> {
  const text = await readFile(path.join(logs, `${run.logName}.stderr`), 'utf8').catch(() => '');
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-5);
  const tail = lines.join(' | ');
  return tail ? (tail.length > 600 ? `…${tail.slice(-600)}` : tail) : null;
}

/**
 * One paragraph on why the workflow failed: its failed call (the first, and how many others), the
 * call's error from Cromwell and the end of its stderr; else the workflow's own failures.
 */
export async function failureParagraph(md: WorkflowMetadata, runs: CallRun[], logs: string): Promise<string> {
  const failed = runs.filter((r) => r.run.executionStatus === 'Failed');
  const workflowMessages = failureMessages(md.failures);
  if (!failed.length)
    return `The Cromwell workflow ${md.id ?? ''} failed: ${workflowMessages.join('; ') || 'Cromwell gave no reason'}.`.replace(/ +/g, ' ');
  const first = failed[0];
  const task = first.logName.replace(/^call-/, '');
  const messages = failureMessages(first.run.failures);
  const error = (messages.length ? messages : workflowMessages).join('; ') || 'Cromwell gave no reason';
  const parts = [`The WDL workflow failed in call ${task} (${first.fqn}): ${error.replace(/\.$/, '')}.`];
  const tail = await stderrTail(logs, first);
  if (tail) parts.push(`Its stderr ends with: ${tail}`);
  if (failed.length > 1)
    parts.push(
      `${failed.length - 1} other call(s) failed too: ${failed
        .slice(1)
        .map((r) => r.fqn)
        .join(', ')}.`,
    );
  return parts.join(' ');
}
