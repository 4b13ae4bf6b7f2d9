import { setTimeout as sleep } from 'node:timers/promises';
import { CromwellError, TERMINAL, type CromwellClient, type WorkflowMetadata } from './cromwell-api.mjs';

/** Status requests in a row that may fail (Cromwell restarting, a network hiccup) before the task gives up. */
const TOLERATED_FAILURES = 5;
/** Call statuses are asked for every this many polls (metadata is costly for Cromwell). */
const CALLS_EVERY = 5;

export type Log = (line: string) => void;

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, undefined, { signal }).catch(() => undefined);
}

/** `make`, `make[2]` (a shard), `sub.make` (in a sub-workflow): a call as the progress lines name it. */
function callStatuses(md: WorkflowMetadata, prefix = '', out = new Map<string, string>()): Map<string, string> {
  for (const [fqn, runs] of Object.entries(md.calls ?? {})) {
    const name = prefix + fqn.slice(fqn.lastIndexOf('.') + 1);
    for (const run of runs) {
      const shard = (run.shardIndex ?? -1) >= 0 ? `[${run.shardIndex}]` : '';
      if (run.executionStatus) out.set(name + shard, run.executionStatus);
      if (run.subWorkflowMetadata) callStatuses(run.subWorkflowMetadata, `${name}${shard}.`, out);
    }
  }
  return out;
}

/** Logs the calls whose status changed since `seen`. */
async function reportCalls(client: CromwellClient, id: string, seen: Map<string, string>, log: Log): Promise<void> {
  const now = callStatuses(await client.metadata(id, ['executionStatus']));
  for (const [call, status] of now) if (seen.get(call) !== status) log(`Call ${call}: ${status}`);
  for (const [call, status] of now) seen.set(call, status);
}

/**
 * Polls the workflow's status until it ends (its status), or until `signal` aborts ('stopped'). Progress
 * lines say each change of the workflow's status and of its calls'.
 */
export async function follow(client: CromwellClient, id: string, pollMs: number, signal: AbortSignal, log: Log): Promise<string> {
  let last = '';
  let failures = 0;
  const calls = new Map<string, string>();
  for (let poll = 0; ; poll++) {
    if (signal.aborted) return 'stopped';
    let status: string;
    try {
      status = await client.status(id);
      failures = 0;
    } catch (e) {
      const transient = e instanceof CromwellError && (e.status === null || e.status >= 500);
      if (!transient || ++failures > TOLERATED_FAILURES) throw e;
      log(`${(e as Error).message} Trying again.`);
      await pause(Math.max(pollMs, 1000), signal);
      continue;
    }
    // The calls' last changes before the workflow's end.
    if (TERMINAL.has(status) || (status === 'Running' && poll % CALLS_EVERY === 0))
      await reportCalls(client, id, calls, log).catch(() => undefined);
    if (status !== last) log(`Workflow ${id}: ${status}`);
    last = status;
    if (TERMINAL.has(status)) return status;
    await pause(pollMs, signal);
  }
}

/** Asks Cromwell to abort the workflow and waits, at most waitMs, for it to say Aborted (or another end). */
export async function abortWorkflow(client: CromwellClient, id: string, waitMs: number, pollMs: number, log: Log): Promise<string> {
  log(`Stopping: asking Cromwell to abort workflow ${id}.`);
  try {
    await client.abort(id);
  } catch (e) {
    // 404: no longer in progress (it ended meanwhile); the status says how.
    if (!(e instanceof CromwellError && e.status === 404)) log((e as Error).message);
  }
  const deadline = Date.now() + waitMs;
  let status = 'unknown';
  for (;;) {
    status = await client.status(id).catch(() => status);
    if (TERMINAL.has(status) || Date.now() >= deadline) break;
    await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
  }
  log(
    TERMINAL.has(status) ? `Workflow ${id}: ${status}` : `Cromwell did not say workflow ${id} is aborted within ${waitMs} ms (${status}).`,
  );
  return status;
}
