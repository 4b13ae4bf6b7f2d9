import { copyFile, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Log } from './sources.mjs';

/**
 * A call's directory in a miniwdl run: `call-<name>` (`call-<name>-<shard>[-<tag>]` in a scatter),
 * a sub-workflow's calls under its own `call-<name>/`. A task's directory has task.log, its
 * command's stdout.txt and stderr.txt (stdout2.txt... for a retry), and no stdout.txt when miniwdl
 * took the call from its call cache.
 */
export interface CallDir {
  dir: string;
  /** `greet` (a scatter's shards too), `sub-greet` (a sub-workflow's call): the job's logs name it `call-<name>[-N]`. */
  name: string;
  /** `greet`, `sub.greet`, `greet[0]`: how messages name it. */
  display: string;
}

const CALL_DIR = /^call-([A-Za-z][A-Za-z0-9_]*)(?:-([0-9]+)(?:-.*)?)?$/;

async function has(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The name and display of a call directory (path relative to the run directory), or null when it is not one. */
export function callOfPath(rel: string): { name: string; display: string } | null {
  const names: string[] = [];
  const shown: string[] = [];
  for (const part of rel.split(path.sep)) {
    const m = CALL_DIR.exec(part);
    if (!m) return null;
    names.push(m[1]!);
    shown.push(m[2] === undefined ? m[1]! : `${m[1]}[${Number(m[2])}]`);
  }
  return names.length ? { name: names.join('-'), display: shown.join('.') } : null;
}

/** The task calls of a run directory, sub-workflows' included, in order. */
export async function callDirs(runDir: string, sub = ''): Promise<CallDir[]> {
  const out: CallDir[] = [];
  const entries = await readdir(path.join(runDir, sub), { withFileTypes: true }).catch(() => []);
  for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = path.join(sub, e.name);
    const call = callOfPath(rel);
    if (!call) continue;
    const dir = path.join(runDir, rel);
    if (await has(path.join(dir, 'workflow.log'))) out.push(...(await callDirs(runDir, rel)));
    else out.push({ dir, ...call });
  }
  return out;
}

/** The last try's file: stdout.txt, stdout2.txt, ... (miniwdl's TaskContainer.host_stdout_txt). */
async function lastTry(dir: string, stream: 'stdout' | 'stderr'): Promise<string | null> {
  let best: { n: number; file: string } | null = null;
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const m = new RegExp(`^${stream}([0-9]*)\\.txt$`).exec(f);
    if (!m) continue;
    const n = m[1] ? Number(m[1]) : 1;
    if (!best || n > best.n) best = { n, file: path.join(dir, f) };
  }
  return best?.file ?? null;
}

/** `call-<name>`, or `call-<name>-2`... when the logs have that name already (another shard, an earlier attempt). */
async function freeLogName(logs: string, name: string): Promise<string> {
  for (let n = 1; ; n++) {
    const base = path.join(logs, `call-${name}${n === 1 ? '' : `-${n}`}`);
    try {
      await (await open(`${base}.stdout`, 'wx', 0o644)).close();
      return base;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/**
 * Copies each call's stdout and stderr into the job's logs (`call-greet.stdout`, `call-greet.stderr`);
 * a call taken from the call cache ran nothing, and the log says so.
 */
export async function copyCallLogs(runDir: string, logs: string, log: Log): Promise<CallDir[]> {
  const calls = await callDirs(runDir);
  for (const call of calls) {
    const stdout = await lastTry(call.dir, 'stdout');
    const stderr = await lastTry(call.dir, 'stderr');
    if (!stdout && !stderr) {
      if (await has(path.join(call.dir, 'outputs.json')))
        log(`call ${call.display} was taken from miniwdl's call cache: it did not run again.`);
      continue;
    }
    try {
      const base = await freeLogName(logs, call.name);
      if (stdout) await copyFile(stdout, `${base}.stdout`);
      if (stderr) await copyFile(stderr, `${base}.stderr`);
    } catch (e) {
      log(`the logs of call ${call.display} could not be copied: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`);
    }
  }
  return calls;
}
