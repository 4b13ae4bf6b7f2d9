import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A storage emulator (s3rver, Azurite) in a child Node process for tests, on 127.0.0.1 with a port it picks and a
 * temporary directory. The child runs `code` (CommonJS, given with -e) after a guard that ends it, and removes the
 * directory, when its stdin closes, so it never outlives the test process, even one that is killed. stop() closes that stdin, kills the
 * child if it has not gone after a grace, and removes the directory; start and stop are bounded in time.
 */
export interface EmulatorProcess {
  port: number;
  directory: string;
  stop(): Promise<void>;
}

export interface EmulatorSpec {
  name: string;
  /** CommonJS run with `node -e`; `process.argv[1]` is the temporary directory, the rest follows. */
  code: string;
  args?: string[];
  nodeOptions?: string[];
  /** Matches the child's output once it listens; group 1 is the port. */
  ready: RegExp;
  startMs?: number;
  stopMs?: number;
}

// Ends the child, removing its directory, when its stdin closes (the test process stopped it, or died).
const GUARD = `{
  const directory = process.argv[1];
  const end = () => {
    try { require('fs').rmSync(directory, { recursive: true, force: true }); } catch {}
    process.exit(0);
  };
  process.stdin.on('end', end);
  process.stdin.on('error', end);
  process.stdin.resume();
}`;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startEmulator(spec: EmulatorSpec): Promise<EmulatorProcess> {
  const startMs = spec.startMs ?? 30_000;
  const stopMs = spec.stopMs ?? 5_000;
  const directory = mkdtempSync(path.join(os.tmpdir(), `runyard-${spec.name}-`));
  const child = spawn(process.execPath, [...(spec.nodeOptions ?? []), '-e', `${GUARD}\n${spec.code}`, directory, ...(spec.args ?? [])], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        // Closing its stdin ends it at once (the guard); a child that does not go is killed.
        child.stdin?.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), stopMs);
        await exited(child);
        clearTimeout(timer);
      }
      rmSync(directory, { recursive: true, force: true });
    })());

  let output = '';
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${spec.name} did not start within ${startMs} ms:\n${output}`)), startMs);
      const onData = (data: Buffer) => {
        output += data.toString();
        const match = spec.ready.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${spec.name} exited (${code ?? signal}) before listening:\n${output}`));
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    // Keep draining its output so that it never blocks on a full pipe; keep only the tail for diagnosis.
    child.stdout!.on('data', () => (output = output.slice(-10_000)));
    return { port, directory, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
