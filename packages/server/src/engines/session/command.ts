import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import type { TaskSpec } from '../../executors/executor.js';
import { findOnPath } from '../../executors/find-executable.js';
import { sessionUiBasePath, type JupyterTask, type JupyterTaskInput } from './jupyter.js';

/** The name of the socket in the runtime directory, as for Jupyter. */
const SOCKET_NAME = 'session.sock';

/**
 * The task of a session whose backend is an operator's command (RUNYARD_SESSION_COMMAND_<BACKEND>:
 * code-server, rserver, ...): the command line split on white space, run without a shell in the
 * session's sandbox, with its home as working directory. What it is told, in its environment:
 *
 *   RUNYARD_SESSION_SOCKET    the unix socket its web UI must listen on (its only address)
 *   RUNYARD_SESSION_BASE_URL  the path its UI is served under (the proxy does not rewrite paths)
 *   RUNYARD_SESSION_TOKEN     the token the proxy sends with every request (`Authorization: token <t>`)
 *   HOME, PATH, RUNYARD_SESSION_ID
 *
 * It is ready once anything answers HTTP on the socket (waitForJupyter with any status).
 */
export function commandTask(input: JupyterTaskInput & { command: string[] }): JupyterTask {
  const { sessionId, dirs, config, command } = input;
  const [program, ...args] = command;
  if (!program) throw new Error('The session command is empty.');
  const found = path.isAbsolute(program) ? program : findOnPath(program, (config as Pick<Config, 'taskPath'>).taskPath);
  if (!found) throw new Error(`The session command ${program} was not found on the task PATH (RUNYARD_TASK_PATH).`);
  const basePath = sessionUiBasePath(sessionId);
  for (const dir of [dirs.home, dirs.runtime, dirs.mounts]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const socketPath = path.join(path.resolve(dirs.runtime), SOCKET_NAME);
  const token = input.token ?? randomBytes(32).toString('hex');
  const home = path.resolve(dirs.home);
  const task: TaskSpec = {
    argv: [found, ...args],
    env: {
      PATH: config.taskPath,
      HOME: home,
      LANG: 'C.UTF-8',
      RUNYARD_SESSION_ID: sessionId,
      RUNYARD_SESSION_SOCKET: socketPath,
      RUNYARD_SESSION_BASE_URL: basePath,
      RUNYARD_SESSION_TOKEN: token,
    },
    cwd: home,
    logFile: dirs.logFile,
    writable: [path.resolve(dirs.runtime), path.resolve(dirs.mounts), ...(input.writable ?? [])],
    ...(input.readable?.length ? { readable: input.readable } : {}),
    network: input.network ?? input.config.taskNetwork,
    ...(input.resources ? { resources: input.resources } : {}),
  };
  return { task, socketPath, token, basePath };
}
