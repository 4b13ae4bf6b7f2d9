import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';
import { enterProgram } from '../executors/sandbox/image-root.js';
import { findOnPath } from '../executors/find-executable.js';

/** A container runtime was configured but cannot be run: the server does not start, a job does not fall back to the host. */
export class ContainerRuntimeError extends Error {}

/**
 * The path of the configured container runtime (RUNYARD_CONTAINER_RUNTIME), or null when none is
 * configured. A configured one that is not on the task PATH is an error: running the job on the
 * host instead would silently drop the image and the limits the operator asked for.
 */
export function containerRuntimeOf(config: Pick<Config, 'containerRuntime' | 'taskPath'>): string | null {
  if (!config.containerRuntime) return null;
  const found = findOnPath(config.containerRuntime, config.taskPath);
  if (!found) {
    throw new ContainerRuntimeError(
      `RUNYARD_CONTAINER_RUNTIME=${config.containerRuntime}, but ${config.containerRuntime} is not on the task PATH (RUNYARD_TASK_PATH): ` +
        'install it, or unset RUNYARD_CONTAINER_RUNTIME to run bash jobs on the host (in the sandbox).',
    );
  }
  return found;
}

/** Names the runtimes accept for a container (the daemon's rule). */
const CONTAINER_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]+$/;

/**
 * The container of one attempt of a job, `runyard-<jobId>-a<attempt>`: unique per attempt, so that
 * stopping a lost attempt's container never reaches its successor's.
 */
export function containerNameOf(job: { id: string; attempt: number }): string {
  const name = `runyard-${job.id}-a${job.attempt}`;
  if (!CONTAINER_NAME.test(name)) throw new Error(`Not a container name: ${JSON.stringify(name)}`);
  return name;
}

/**
 * The runtime's options for the job's CPUs and memory. Swap is held to the memory limit, so a task
 * that passes it is killed rather than swapped out, as under the local executor's cgroup.
 */
export function limitOptions({ cpus, memoryGiB }: { cpus: number; memoryGiB: number }): string[] {
  // The runtimes take CPUs to two decimals (0.01 is the least) and memory with a unit suffix.
  const cpuText = Math.round(cpus * 100) / 100;
  const memory = Number.isInteger(memoryGiB) ? `${memoryGiB}g` : `${Math.ceil(memoryGiB * 1024)}m`;
  return [...(cpuText > 0 ? ['--cpus', String(cpuText)] : []), ...(memoryGiB > 0 ? ['--memory', memory, '--memory-swap', memory] : [])];
}

/** argv that stops and removes the container, running or not; with -f a container that is gone already is no error. */
export function stopArgv(runtime: string, name: string): string[] {
  return [runtime, 'rm', '-f', name];
}

/** argv that prints `true` when the container was killed for passing its memory limit (docker and podman alike). */
export function oomProbeArgv(runtime: string, name: string): string[] {
  return [runtime, 'inspect', '--format', '{{.State.OOMKilled}}', name];
}

/** How long the runtime's probe may take (a first podman run sets up its storage). */
const PROBE_TIMEOUT_MS = 120_000;

/**
 * Checks at start that the configured runtime can start a container here, so that a runtime that
 * cannot (podman whose OCI runtime may not set the rlimits, a docker CLI without a daemon) stops
 * the server with its own words once, rather than failing every job. podman runs a container of a
 * root filesystem holding only the static runyard-enter (`--rootfs`: no image, no registry);
 * docker, which has no such option, is asked for its daemon's version.
 */
export async function probeContainerRuntime(config: Pick<Config, 'containerRuntime' | 'taskPath'>): Promise<void> {
  const runtime = containerRuntimeOf(config);
  if (!runtime) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-runtime-probe-'));
  try {
    let args: string[];
    if (config.containerRuntime === 'podman') {
      copyFileSync(enterProgram(), path.join(dir, 'runyard-enter'));
      args = ['run', '--rm', '--network', 'none', '--rootfs', dir, '/runyard-enter', '--version'];
    } else args = ['version', '--format', '{{.Server.Version}}'];
    const result = spawnSync(runtime, args, {
      env: { PATH: config.taskPath, HOME: dir },
      encoding: 'utf8',
      timeout: PROBE_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started = result.status === 0 && (config.containerRuntime !== 'podman' || result.stdout.includes('runyard-enter'));
    if (started) return;
    const said = (result.stderr || result.stdout || result.error?.message || `exit status ${result.status}`).trim().split('\n').at(-1);
    throw new ContainerRuntimeError(
      `RUNYARD_CONTAINER_RUNTIME=${config.containerRuntime}, but ${config.containerRuntime} cannot start a container here ` +
        `(${runtime} ${args.join(' ')}: ${said}). Fix the runtime, or unset RUNYARD_CONTAINER_RUNTIME: container jobs then run ` +
        'in their image in the sandbox (RUNYARD_JOB_IMAGES=pull).',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
