// B8's baselines: the same sandboxed command submitted to Slurm with plain `sbatch`, no Runyard.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const run = promisify(execFile);

/** A batch script that runs its arguments (the sandboxed argv), as Runyard's batch script runs the task's. */
function batchScript(dir) {
  const file = path.join(dir, 'run.sh');
  writeFileSync(file, '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  return file;
}

/** As Runyard submits a 1-CPU, 1 GiB bash job. */
async function sbatch(script, name, task, partition) {
  const args = ['--parsable', `--job-name=${name}`, `--partition=${partition}`, '--cpus-per-task=1', '--mem=1024M', '--output=/dev/null'];
  const { stdout } = await run('sbatch', [...args, `--chdir=${task.cwd}`, script, ...task.argv], { env: { PATH: process.env.PATH } });
  return stdout.trim().split(';')[0];
}

/** States of the jobs of this name that Slurm still holds in its queue. */
async function queued(name) {
  const { stdout } = await run('squeue', ['-h', `--name=${name}`, '-o', '%T']);
  return stdout.split('\n').filter(Boolean);
}

/** Seconds for a plain sbatch loop of count jobs running task, from the first submission to the last job's end. */
export async function sbatchLoop(count, task, { partition = 'debug', timeoutMs = 600_000 } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-b8-'));
  const name = `b8-baseline-${process.pid}-${Date.now().toString(36)}`;
  try {
    const script = batchScript(dir);
    const t0 = performance.now();
    for (let i = 0; i < count; i++) await sbatch(script, name, task, partition);
    const deadline = Date.now() + timeoutMs;
    while ((await queued(name)).length) {
      if (Date.now() > deadline) throw new Error(`the sbatch baseline did not finish within ${timeoutMs / 1000} s`);
      await sleep(100);
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await run('scancel', [`--name=${name}`]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Waits until the cluster holds no running or pending job, then a second more: Slurm starts a job
 * on an idle cluster in a time that depends on what just ended, so every latency sample (direct
 * and through Runyard) starts from the same quiet state.
 */
export async function clusterIdle() {
  for (;;) {
    const { stdout } = await run('squeue', ['-h', '-o', '%i']);
    if (!stdout.trim()) break;
    await sleep(50);
  }
  await sleep(1000);
}

/** Milliseconds from sbatch to the job's RUNNING state (squeue polled every 20 ms), for each of count jobs in turn. */
export async function sbatchToRunning(count, task, { partition = 'debug' } = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-b8-'));
  const name = `b8-latency-${process.pid}-${Date.now().toString(36)}`;
  const samples = [];
  try {
    const script = batchScript(dir);
    for (let i = 0; i < count; i++) {
      const t0 = performance.now();
      const id = await sbatch(script, name, { ...task, argv: ['sleep', '5'] }, partition);
      for (;;) {
        const { stdout } = await run('squeue', ['-h', '-j', id, '-o', '%T']);
        if (stdout.trim() !== 'PENDING') break;
        await sleep(20);
      }
      samples.push(performance.now() - t0);
      await run('scancel', [id]);
      await clusterIdle();
    }
    return samples;
  } finally {
    await run('scancel', [`--name=${name}`]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
