import { randomBytes } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config, TaskNetwork } from '../../config.js';
import type { ImageRun, TaskSpec } from '../../executors/executor.js';
import { findOnPath } from '../../executors/find-executable.js';
import { lstatBeneath, readBeneath } from '../../storage/beneath.js';

/** Where the platform serves a session's web UI; the session's own server answers under the same path, so nothing is rewritten. */
export function sessionUiBasePath(sessionId: string): string {
  if (!/^[0-9a-f]{24}$/.test(sessionId)) throw new Error(`Not a session id: ${JSON.stringify(sessionId)}`);
  return `/api/runyard/interactive-sessions/${sessionId}/ui/`;
}

/** The directories of one session, all on the server's machine. */
export interface SessionDirs {
  /** The person's files: HOME, the notebook directory, Jupyter's settings; what a pause saves. */
  home: string;
  /**
   * The session's private runtime files: its unix socket and Jupyter's runtime files (kernel
   * connection files, the server's info file, which hold secrets). Made 0700; nothing else of the
   * session is kept here, so it can be removed once the session ends.
   */
  runtime: string;
  /** Where the session's mounts appear (mounts/<name>); `<home>/mounts` links to it. */
  mounts: string;
  /** The session's log (stdout and stderr of Jupyter and its kernels); never holds the token. */
  logFile: string;
}

export interface JupyterTaskInput {
  sessionId: string;
  dirs: SessionDirs;
  config: Pick<Config, 'taskPath' | 'taskNetwork'>;
  /** CPUs and memory of the session's instance type, enforced by the executor. */
  resources?: { cpus: number; memoryGiB: number };
  /** What the session may reach besides its socket; by default the server's task network (outbound: the internet, not the platform). */
  network?: TaskNetwork;
  /** More directories the session reads or writes at their own paths (mounted items), as the executor binds them. */
  readable?: string[];
  writable?: string[];
  /** The session's Jupyter token; default: a new random one. Keep it (sealed) to reach the session after a restart. */
  token?: string;
  /**
   * The image the session runs in, pulled (scheduler/session-image.ts), and the path of its
   * `jupyter` inside it: the host's Jupyter and its /etc/jupyter are then not used.
   */
  image?: { name: string; run: ImageRun; jupyter: string };
}

/** What the caller keeps of a session to launch it, and to reach it once it runs (the proxy's resolve). */
export interface JupyterTask {
  task: TaskSpec;
  /** The unix socket Jupyter listens on: the session's only address. */
  socketPath: string;
  /** Jupyter's token: sent by the proxy as `Authorization: token <t>`; a secret (never in argv, URLs or logs). */
  token: string;
  /** The base path Jupyter serves under (sessionUiBasePath). */
  basePath: string;
}

/** Jupyter's system-wide configuration directory (the sandbox shows only some of /etc). */
const SYSTEM_JUPYTER_CONFIG = '/etc/jupyter';
/** The name of the socket in the runtime directory. */
const SOCKET_NAME = 'jupyter.sock';
/** sun_path holds 108 bytes, the last a NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * The task of a Jupyter Notebook (6.x: Debian's jupyter-notebook) session. Jupyter listens only
 * on a unix socket in the session's runtime directory, with the token given in its environment
 * (JUPYTER_TOKEN: the environment of a process is readable by its own user only, its argv by
 * everyone), and its kernels talk to it over ipc sockets in the same directory, not over loopback
 * ports. Each kernel still binds one loopback port of its own (ipykernel's pipe for the output of
 * its subprocesses, which cannot be turned off; it takes only messages signed with a random key):
 * with any network but 'host' that loopback is the sandbox's own, so nothing of the session
 * listens on the machine's network. Everything Jupyter and IPython keep goes to the home
 * (settings, data, history) or the runtime directory (connection files).
 *
 * The socket is made 0600 by Jupyter, as the task's user, uid nobody inside the sandbox's user
 * namespace, which maps to the server's own user outside: the file belongs to the server's user,
 * who alone can connect to it (connecting to a unix socket needs write permission on it). Its
 * directory is 0700 too, so no other local user even reaches it.
 *
 * The token keeps other local users (and other sessions) out of the socket; the session's own code
 * (its kernels) sees it in its environment, as it could read anything of its own server anyway.
 *
 * Jupyter's Host check is off (allow_remote_access): it protects a server on a loopback port from
 * DNS rebinding, whereas this one is reached only through the platform's proxy, which checks the
 * person and the Origin (Jupyter checks neither Origin nor XSRF for requests with its token, which
 * every proxied request carries) and passes on the browser's Host. The quit button and password
 * change are off: the platform stops the session (and saves its home), and the token is the only
 * way in.
 */
export function jupyterTask(input: JupyterTaskInput): JupyterTask {
  const { sessionId, dirs, config } = input;
  const basePath = sessionUiBasePath(sessionId);
  const jupyter = input.image?.jupyter ?? findOnPath('jupyter', config.taskPath);
  if (!jupyter) throw new Error('jupyter was not found on the task PATH (Debian: apt-get install jupyter-notebook).');
  const socketPath = path.join(path.resolve(dirs.runtime), SOCKET_NAME);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw new Error(`The session's socket path is too long for a unix socket (${MAX_SOCKET_PATH_BYTES} bytes at most): ${socketPath}`);
  const token = input.token ?? randomBytes(32).toString('hex');
  if (!/^[A-Za-z0-9_-]{32,}$/.test(token)) throw new Error('A Jupyter token must be at least 32 URL-safe characters.');
  prepareDirs(dirs);
  const home = path.resolve(dirs.home);
  const argv = [
    jupyter,
    'notebook',
    '--no-browser',
    `--sock=${socketPath}`,
    '--sock-mode=0600',
    `--NotebookApp.base_url=${basePath}`,
    `--notebook-dir=${home}`,
    '--NotebookApp.allow_remote_access=True',
    '--NotebookApp.quit_button=False',
    '--NotebookApp.allow_password_change=False',
    '--KernelManager.transport=ipc',
    // In an image the task is the image's user, root in the sandbox's user namespace when it names none; Jupyter refuses root without this.
    ...(input.image ? ['--allow-root'] : []),
  ];
  const env: Record<string, string> = {
    PATH: config.taskPath,
    HOME: home,
    LANG: 'C.UTF-8',
    JUPYTER_TOKEN: token,
    JUPYTER_CONFIG_DIR: path.join(home, '.jupyter'),
    JUPYTER_DATA_DIR: path.join(home, '.local', 'share', 'jupyter'),
    JUPYTER_RUNTIME_DIR: path.resolve(dirs.runtime),
    IPYTHONDIR: path.join(home, '.ipython'),
    // matplotlib and friends write their caches under XDG_CACHE_HOME, or else ~/.cache.
    XDG_CACHE_HOME: path.join(home, '.cache'),
    // debugpy (the kernels' debugger) warns at every kernel start that Debian's Python freezes modules.
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
    RUNYARD_SESSION_ID: sessionId,
  };
  const task: TaskSpec = {
    argv,
    env,
    cwd: home,
    logFile: dirs.logFile,
    writable: [path.resolve(dirs.runtime), path.resolve(dirs.mounts), ...(input.writable ?? [])],
    // Jupyter's system-wide settings (Debian enables its notebook extensions there, e.g. the widgets); bound when present.
    // In an image, the image's own /etc/jupyter is there.
    readable: [...(input.image ? [] : [SYSTEM_JUPYTER_CONFIG]), ...(input.readable ?? [])],
    network: input.network ?? input.config.taskNetwork,
    ...(input.resources ? { resources: input.resources } : {}),
    ...(input.image ? { image: { name: input.image.name, run: input.image.run } } : {}),
  };
  return { task, socketPath, token, basePath };
}

/**
 * The session's directories, before the launch: made 0700 when they are new, the runtime
 * directory 0700 in any case (a socket a previous run left there is replaced by Jupyter, which
 * refuses to start when one still answers); `<home>/mounts` links to the mounts directory unless
 * the home has something of that name already.
 */
function prepareDirs(dirs: SessionDirs): void {
  for (const dir of [dirs.home, dirs.runtime, dirs.mounts]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dirs.runtime, 0o700);
  const link = path.join(dirs.home, 'mounts');
  try {
    lstatSync(link);
  } catch {
    symlinkSync(path.resolve(dirs.mounts), link);
  }
}

export interface ReadyOptions {
  socketPath: string;
  token: string;
  basePath: string;
  /** The session's log, whose end the error quotes. */
  logFile: string;
  /** How long Jupyter may take to answer; default two minutes (a busy machine starts Python slowly). */
  timeoutMs?: number;
  /** Rejects at once when it aborts (e.g. when the task ended). */
  signal?: AbortSignal;
  pollMs?: number;
}

/** Why a session did not become ready in time (the message quotes the end of its log). */
export class SessionNotReadyError extends Error {}

/** One `GET <base>api/status` over the socket: the status code, or the error's code (ENOENT: no socket yet). */
export function jupyterStatus(socketPath: string, token: string, basePath: string, timeoutMs = 10_000): Promise<number | string> {
  return new Promise((resolve) => {
    const request = http.get(
      { socketPath, path: `${basePath}api/status`, headers: { authorization: `token ${token}`, host: 'localhost' }, timeout: timeoutMs },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    request.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/**
 * Resolves once Jupyter answers `GET <base>api/status` with 200 on its socket, with its token.
 * Rejects with a SessionNotReadyError, quoting the end of the session's log, after timeoutMs or
 * when it answers something else than 200 or "not yet" (e.g. 403: it does not take the token).
 */
export async function waitForJupyter(options: ReadyOptions): Promise<void> {
  const { socketPath, token, basePath, logFile, timeoutMs = 120_000, signal, pollMs = 250 } = options;
  const deadline = Date.now() + timeoutMs;
  let last: number | string = 'no answer yet';
  for (;;) {
    signal?.throwIfAborted();
    last = await jupyterStatus(socketPath, token, basePath, Math.max(1000, Math.min(10_000, deadline - Date.now())));
    if (last === 200) return;
    // Not listening yet: no socket, or a socket not yet accepting.
    const notYet = last === 'ENOENT' || last === 'ECONNREFUSED' || last === 'ETIMEDOUT' || last === 'ECONNRESET';
    if (!notYet) {
      throw new SessionNotReadyError(`The session's Jupyter answered ${describe(last)} on its socket.${await logTail(logFile)}`);
    }
    if (Date.now() >= deadline) {
      throw new SessionNotReadyError(
        `The session's Jupyter did not answer on its socket within ${Math.round(timeoutMs / 1000)} s (last: ${describe(last)}).${await logTail(logFile)}`,
      );
    }
    await sleep(pollMs, undefined, signal ? { signal } : {});
  }
}

function describe(status: number | string): string {
  return typeof status === 'number' ? `HTTP ${status}` : status;
}

/** The last lines of the session's log, as a suffix for an error message ('' when there is none). */
export async function logTail(logFile: string, maxBytes = 4000): Promise<string> {
  // The session writes its logs directory: a link or FIFO it left as its log is refused, never followed.
  const dir = path.dirname(logFile);
  const name = path.basename(logFile);
  let text: string;
  try {
    const size = (await lstatBeneath(dir, name))?.size ?? 0;
    const length = Math.min(size, maxBytes);
    text = ((await readBeneath(dir, name, size - length, length)) ?? Buffer.alloc(0)).toString('utf8');
    if (length < size) text = text.slice(text.indexOf('\n') + 1);
  } catch {
    return ' (the session wrote no log)';
  }
  const lines = text.trimEnd().split('\n').slice(-20);
  return lines.length && lines[0] ? ` The end of the session's log:\n${lines.join('\n')}` : ' (the session wrote no log)';
}
