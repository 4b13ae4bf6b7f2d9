import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CallMetadata, CromwellClient, WorkflowMetadata } from './cromwell-api.mjs';
import type { Log } from './follow.mjs';

/** One call's run as the job's logs name it: `call-<task>[-<shard>]`, a sub-workflow's calls `call-<sub>-<task>`. */
export interface CallRun {
  fqn: string;
  /** `call-make`, `call-make-2`, `call-sub-make`. */
  logName: string;
  run: CallMetadata;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');

/** The last attempt of each call and shard, sub-workflows' calls included. */
export function callRuns(md: WorkflowMetadata, prefix: string[] = []): CallRun[] {
  const out = new Map<string, CallRun>();
  for (const [fqn, runs] of Object.entries(md.calls ?? {})) {
    const task = fqn.slice(fqn.lastIndexOf('.') + 1);
    for (const run of runs) {
      const shard = run.shardIndex ?? -1;
      const parts = [...prefix, task];
      if (run.subWorkflowMetadata) {
        for (const sub of callRuns(run.subWorkflowMetadata, shard >= 0 ? [...parts, String(shard)] : parts)) out.set(sub.logName, sub);
        continue;
      }
      const logName = safe(['call', ...parts].join('-') + (shard >= 0 ? `-${shard}` : ''));
      const known = out.get(logName);
      if (!known || (known.run.attempt ?? 1) <= (run.attempt ?? 1)) out.set(logName, { fqn, logName, run });
    }
  }
  return [...out.values()];
}

/** A path the task can open: absolute, or a file:// URI; null for other schemes (gs://, s3://, http://). */
export function localPathOf(p: string): string | null {
  if (p.startsWith('file://')) return fileURLToPath(p);
  return path.isAbsolute(p) ? p : null;
}

/** The stdout/stderr paths of calls whose metadata lacks them, from GET .../logs. */
async function fillFromLogsEndpoint(client: CromwellClient, id: string, runs: CallRun[], log: Log): Promise<void> {
  if (runs.every((r) => r.run.stdout && r.run.stderr)) return;
  let calls: Record<string, CallMetadata[]> = {};
  try {
    calls = (await client.logs(id)).calls ?? {};
  } catch (e) {
    log(`The calls' log paths could not be read: ${(e as Error).message}`);
    return;
  }
  for (const r of runs) {
    const found = (calls[r.fqn] ?? []).find(
      (c) => (c.shardIndex ?? -1) === (r.run.shardIndex ?? -1) && (c.attempt ?? 1) === (r.run.attempt ?? 1),
    );
    r.run = { ...r.run, stdout: r.run.stdout ?? found?.stdout, stderr: r.run.stderr ?? found?.stderr };
  }
}

/**
 * Copies each call's stdout and stderr into the job's logs (`call-make.stdout`, `call-make.stderr`).
 * Logs the task cannot read (another machine's, or a bucket's) are named in the log instead.
 */
export async function copyCallLogs(client: CromwellClient, id: string, md: WorkflowMetadata, logs: string, log: Log): Promise<CallRun[]> {
  const runs = callRuns(md);
  await fillFromLogsEndpoint(client, id, runs, log);
  for (const r of runs) {
    for (const stream of ['stdout', 'stderr'] as const) {
      const source = r.run[stream];
      if (!source) continue;
      const local = localPathOf(source);
      const dest = path.join(logs, `${r.logName}.${stream}`);
      try {
        if (!local) throw new Error('not a local file');
        await copyFile(local, dest);
      } catch (e) {
        log(
          `The ${stream} of call ${r.fqn} (${source}) could not be copied: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`,
        );
      }
    }
  }
  return runs;
}
