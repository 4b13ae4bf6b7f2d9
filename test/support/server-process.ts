import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_CAPACITY } from './capacity.js';
import { TEST_JOB_IMAGES } from './job-images.js';

const MAIN = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of pattern in stdout; rejects after ms. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** Every server process still running, so a test's after() can kill them all. */
export const running = new Set<ChildProcess>();

/**
 * `node dist/main.js` with only our RUNYARD_* variables (none inherited from the test's environment),
 * and a large local capacity (TEST_CAPACITY) unless the test gives its own.
 */
export function startMain(env: Record<string, string>): ServerProcess {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RUNYARD_')));
  const child = spawn(process.execPath, [MAIN], {
    env: { ...base, ...TEST_CAPACITY, ...TEST_JOB_IMAGES, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  // Long enough for a start (node, migrations) on a loaded machine; a process that exits fails at once.
  const waitFor = (pattern: RegExp, ms = 60_000) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${pattern}\nstdout:\n${out}\nstderr:\n${err}`));
      }, ms);
      const poll = setInterval(() => {
        const m = out.match(pattern);
        if (m || child.exitCode !== null) {
          clearInterval(poll);
          clearTimeout(timer);
          if (m) resolve(m);
          else reject(new Error(`exited with ${child.exitCode} before ${pattern}\nstdout:\n${out}\nstderr:\n${err}`));
        }
      }, 25);
    });
  return { child, stdout: () => out, stderr: () => err, waitFor, exited };
}

/** SIGTERM, then the exit code (SIGKILL and a failure after 10 s). */
export async function stop(p: ServerProcess): Promise<number | null> {
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
  const code = await p.exited;
  clearTimeout(timer);
  return code;
}
