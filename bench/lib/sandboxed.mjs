// The baselines of B3 and B4 run the same confined command that a job's task runs: `bash -c true`
// inside bubblewrap, with the argv the server's sandbox builds (packages/server/dist), in a
// scratch directory of its own as its working directory, on the server's task network
// (RUNYARD_TASK_NETWORK, default outbound: the launcher that connects its namespace first). Without bwrap (RUNYARD_SANDBOX=none
// servers), the plain command.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandbox } from '../../packages/server/dist/executors/sandbox/sandbox.js';

const TASK_PATH = '/usr/local/bin:/usr/bin:/bin';

/** argv and cwd of `bash -c true` as the server would confine it; dispose() removes the scratch directory. */
export function sandboxedTrue(
  sandbox = process.env.RUNYARD_SANDBOX || 'bwrap',
  taskNetwork = process.env.RUNYARD_TASK_NETWORK || 'outbound',
) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'runyard-bench-task-'));
  const confine = createSandbox({ sandbox, taskNetwork, taskPath: TASK_PATH });
  const argv = confine.argv({ argv: ['bash', '-c', 'true'], env: { PATH: TASK_PATH }, cwd, logFile: '/dev/null' });
  return { argv, cwd, env: { PATH: TASK_PATH }, kind: confine.kind, dispose: () => rmSync(cwd, { recursive: true, force: true }) };
}

/** A word quoted for a POSIX shell (the baseline's xargs line is shell text; these words are our own constants). */
export function shellQuote(word) {
  return `'${String(word).replaceAll("'", `'\\''`)}'`;
}
