// The baselines of B3 and B4 run the same confined command that a job's task runs: `bash -c true`
// inside bubblewrap, with the argv the server's sandbox builds (packages/server/dist), in a
// scratch directory of its own as its working directory, on the server's task network
// (RUNYARD_TASK_NETWORK, default outbound). A server's local task on the outbound network joins a
// ready namespace of its pool (network-pool.ts), one task at a time: so does the baseline, one
// namespace for each of its parallel slots (members). Without members (B8: a Slurm task makes its
// namespace on its node), the launcher that makes and connects one first. Without bwrap
// (RUNYARD_SANDBOX=none servers), the plain command.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSandbox } from '../../packages/server/dist/executors/sandbox/sandbox.js';

const TASK_PATH = '/usr/local/bin:/usr/bin:/bin';

/**
 * argv and cwd of `bash -c true` as the server would confine it; argvOf(slot) for each of `members`
 * parallel slots (slots: how many there are); dispose() gives the namespaces back and removes the scratch directories.
 */
export async function sandboxedTrue({
  sandbox = process.env.RUNYARD_SANDBOX || 'bwrap',
  taskNetwork = process.env.RUNYARD_TASK_NETWORK || 'outbound',
  members = 1,
} = {}) {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'runyard-bench-task-'));
  const fifos = mkdtempSync(path.join(os.tmpdir(), 'runyard-bench-net-'));
  const confine = createSandbox({ sandbox, taskNetwork, taskPath: TASK_PATH }, undefined, members ? fifos : '');
  const task = { argv: ['bash', '-c', 'true'], env: { PATH: TASK_PATH }, cwd, logFile: '/dev/null' };
  const leases = [];
  for (let i = 0; i < members; i++) {
    const lease = await confine.lease?.(task);
    if (lease) leases.push(lease);
  }
  const argvOf = (slot) => confine.argv(task, leases[slot] ?? null);
  return {
    argv: argvOf(0),
    argvOf,
    slots: Math.max(1, leases.length),
    pooled: leases.length > 0,
    cwd,
    env: { PATH: TASK_PATH },
    kind: confine.kind,
    dispose: () => {
      for (const lease of leases) lease.release(true);
      rmSync(cwd, { recursive: true, force: true });
      rmSync(fifos, { recursive: true, force: true });
    },
  };
}

/** A word quoted for a POSIX shell (the baseline's xargs line is shell text; these words are our own constants). */
export function shellQuote(word) {
  return `'${String(word).replaceAll("'", `'\\''`)}'`;
}
