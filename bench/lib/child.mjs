// Runs an exported async function of a module in a child process, so that a benchmark's client
// does not share the event loop of the server under test. Bounded: the child is killed after
// timeoutMs and the promise rejects.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { atBenchPriority, benchPriorityEnv } from './priority.mjs';

const thisFile = fileURLToPath(import.meta.url);

/** Resolves to `(await import(moduleUrl))[name](args)` computed in a child process; args and result are JSON. */
export function inChild(moduleUrl, name, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = fork(thisFile, [], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: benchPriorityEnv(),
    });
    let timedOut = false;
    const limit = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('message', (reply) => (reply.error ? reject(new Error(`${name} (child): ${reply.error}`)) : resolve(reply.result)));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      // A no-op once settled.
      reject(
        new Error(
          timedOut
            ? `${name} (child) took more than ${timeoutMs / 1000} s`
            : `${name} (child) exited with ${code ?? signal} before reporting`,
        ),
      );
    });
    child.send({ moduleUrl, name, args });
  });
}

if (process.argv[1] === thisFile && process.send) {
  atBenchPriority();
  process.once('message', async ({ moduleUrl, name, args }) => {
    let reply;
    try {
      reply = { result: await (await import(moduleUrl))[name](args) };
    } catch (e) {
      reply = { error: e?.stack ?? String(e) };
    }
    process.send(reply, () => process.exit(0));
  });
}
