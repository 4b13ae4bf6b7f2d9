// The spawner process (spawner.ts starts it): starts the server's tasks and commands. A fork costs
// in proportion to the forking process's memory, and Node forks on the calling thread: from this
// small process a start costs a few milliseconds, from a loaded server tens, every one stalling
// the scheduler's thread. Where the native module is built, its tasks start with posix_spawn, which
// copies nothing of this process either (native-spawn.ts). It exits when its parent goes; detached
// tasks keep running.
import { execFile, spawn, type StdioOptions } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { readProcStat } from '../proc.js';
import { loadNativeSpawn, NATIVE_SPAWN_ENV, nulFreeEnvironment } from './native-spawn.js';
import {
  INHERITED_FD_BASE,
  sendReply,
  type CaptureRequest,
  type DetachedRequest,
  type SpawnerReply,
  type SpawnerRequest,
} from './spawner-messages.js';

const send = (reply: SpawnerReply): void => sendReply(process, reply);

/** Linux's O_CLOEXEC, as /proc/self/fdinfo shows a descriptor's flags (octal); Node's fs.constants does not name it. */
const O_CLOEXEC = 0o2000000;

/**
 * Closes the descriptors this process inherited without close-on-exec (the server's own launcher's:
 * a terminal's, a service manager's, a harness's pipe), so that no task inherits them: a task gets
 * its stdio and what a request hands it, nothing else. Node's and libuv's own descriptors (the
 * channel to the server, the event loop's) are close-on-exec and stay.
 */
function closeStrayDescriptors(): void {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fdinfo');
  } catch {
    return; // No /proc (not Linux): nothing to look at.
  }
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    try {
      const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) closeSync(fd);
    } catch {
      // Gone meanwhile (the listing's own descriptor): nothing to close.
    }
  }
}
closeStrayDescriptors();

// posix_spawn where the native module is built (native-spawn.ts): no fork of this process.
const loaded = loadNativeSpawn(process.env[NATIVE_SPAWN_ENV]);
const native = 'spawn' in loaded ? loaded : null;
const detachedStarts = 'spawn' in loaded ? 'posix_spawn' : { node: loaded.unavailable };

/**
 * Starts the task; answers its pid, or undefined when it failed after the call (Node's spawn: an 'error' event).
 * inherited: fds to hand it at INHERITED_FD_BASE on (Node's spawn then: the native module hands on the log only).
 */
function startTask(
  request: DetachedRequest,
  log: number,
  inherited: number[],
  exited: (pid: number, code: number | null) => void,
): number | undefined {
  if (native && path.isAbsolute(request.program) && !inherited.length) {
    const pid = native.spawn(request.program, request.args, nulFreeEnvironment(request), request.cwd, log, (code) => exited(pid, code));
    return pid;
  }
  const gap: 'ignore'[] = Array.from({ length: inherited.length ? INHERITED_FD_BASE - 3 : 0 }, () => 'ignore');
  const stdio: StdioOptions = ['ignore', log, log, ...gap, ...inherited];
  const child = spawn(request.program, request.args, { cwd: request.cwd, env: request.env, detached: true, stdio });
  const pid = child.pid;
  if (pid === undefined) {
    child.once('error', (e) => send({ type: 'failed', id: request.id, message: e.message }));
    return undefined;
  }
  child.on('error', () => undefined);
  child.once('exit', (code) => exited(pid, code));
  return pid;
}

/**
 * The log's directory is the server's, but the task writes in it: a link that an earlier attempt left
 * as the log is never opened (O_NOFOLLOW), nor a FIFO waited on (O_NONBLOCK), nor anything but a file
 * with this one name used.
 */
const LOG_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

function openLog(file: string): number {
  let log: number;
  try {
    log = openSync(file, LOG_FLAGS, 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENXIO') throw new Error(`the task's log ${file} is a link or a FIFO, not a file: it is not opened`);
    throw e;
  }
  const st = fstatSync(log);
  if (!st.isFile()) {
    closeSync(log);
    throw new Error(`the task's log ${file} is not a regular file: it is not used`);
  }
  // Another name of the same file may be outside the job's directories: never written.
  if (st.nlink > 1) {
    closeSync(log);
    throw new Error(`the task's log ${file} has other names (hard links): it is not used`);
  }
  return log;
}

function startDetached(request: DetachedRequest): void {
  let log: number;
  try {
    log = openLog(request.logFile);
  } catch (e) {
    return send({ type: 'failed', id: request.id, message: (e as Error).message });
  }
  try {
    if (request.logHead) writeSync(log, request.logHead);
  } catch (e) {
    closeSync(log);
    return send({ type: 'failed', id: request.id, message: `the task's log could not be written: ${(e as Error).message}` });
  }
  const inherited: number[] = [];
  try {
    try {
      // Through the server's own handle (a magic link: the file itself, whatever its path has become).
      for (const held of request.inherit ?? []) inherited.push(openSync(held, constants.O_RDONLY));
    } catch (e) {
      return send({
        type: 'failed',
        id: request.id,
        message: `an input held by the server could not be handed on: ${(e as Error).message}`,
      });
    }
    let pid: number | undefined;
    try {
      pid = startTask(request, log, inherited, (pid, code) => send({ type: 'exited', pid, code }));
    } catch (e) {
      // Some failures throw rather than emit 'error' (a working directory that is not one: ENOTDIR).
      return send({ type: 'failed', id: request.id, message: (e as Error).message });
    }
    if (pid === undefined) return;
    // Not reaped before its end is reported: the pid is still this child's.
    const stat = readProcStat(pid);
    if (!stat) return send({ type: 'failed', id: request.id, message: `the task (pid ${pid}) vanished before it could be identified` });
    send({ type: 'started', id: request.id, pid, startTime: stat.startTime });
  } finally {
    closeSync(log);
    for (const fd of inherited) closeSync(fd);
  }
}

function capture(request: CaptureRequest): void {
  const { id, program, args, env, timeoutMs, maxBuffer } = request;
  execFile(program, args, { env, maxBuffer, timeout: timeoutMs }, (error, stdout, stderr) => {
    const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
    send({ type: 'captured', id, code, stdout, stderr: stderr || (error && typeof error.code !== 'number' ? error.message : '') });
  });
}

process.on('message', (request: SpawnerRequest) => {
  if (request.type === 'detached') startDetached(request);
  else if (request.type === 'capture') capture(request);
  else if (request.type === 'about') send({ type: 'about', id: request.id, detachedStarts });
});
// The parent is gone (or let go of it): nothing is left to report to.
process.on('disconnect', () => process.exit(0));
