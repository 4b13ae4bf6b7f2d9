// The spawner process (spawner.ts starts it): starts the server's tasks and commands. A fork costs
// in proportion to the forking process's memory, and Node forks on the calling thread: from this
// small process a start costs a few milliseconds, from a loaded server tens, every one stalling
// the scheduler's thread. It exits when its parent goes; detached tasks keep running.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { readProcStat } from '../proc.js';
import { sendReply, type CaptureRequest, type DetachedRequest, type SpawnerReply, type SpawnerRequest } from './spawner-messages.js';

const send = (reply: SpawnerReply): void => sendReply(process, reply);

function startDetached(request: DetachedRequest): void {
  let log: number;
  try {
    log = openSync(request.logFile, 'a', 0o644);
  } catch (e) {
    return send({ type: 'failed', id: request.id, message: (e as Error).message });
  }
  try {
    if (request.logHead) writeSync(log, request.logHead);
  } catch (e) {
    closeSync(log);
    return send({ type: 'failed', id: request.id, message: `the task's log could not be written: ${(e as Error).message}` });
  }
  try {
    let child: ChildProcess;
    try {
      child = spawn(request.program, request.args, { cwd: request.cwd, env: request.env, detached: true, stdio: ['ignore', log, log] });
    } catch (e) {
      // Some failures throw rather than emit 'error' (a working directory that is not one: ENOTDIR).
      return send({ type: 'failed', id: request.id, message: (e as Error).message });
    }
    const pid = child.pid;
    if (pid === undefined) {
      child.once('error', (e) => send({ type: 'failed', id: request.id, message: e.message }));
      return;
    }
    child.on('error', () => undefined);
    // Not reaped before its 'exit' event: the pid is still this child's.
    const stat = readProcStat(pid);
    if (!stat) return send({ type: 'failed', id: request.id, message: `the task (pid ${pid}) vanished before it could be identified` });
    child.once('exit', (code) => send({ type: 'exited', pid, code }));
    send({ type: 'started', id: request.id, pid, startTime: stat.startTime });
  } finally {
    closeSync(log);
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
});
// The parent is gone (or let go of it): nothing is left to report to.
process.on('disconnect', () => process.exit(0));
