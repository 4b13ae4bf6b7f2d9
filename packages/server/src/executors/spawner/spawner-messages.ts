/** A task to start detached (its own process group), its stdout and stderr appended to logFile. */
export interface DetachedRequest {
  type: 'detached';
  id: number;
  program: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  logFile: string;
  /** Written at the end of the log before the task starts (the server's notes): one open of the log, not two. */
  logHead?: string;
  /**
   * Files and folders the task gets open, on fds INHERITED_FD_BASE, +1, ... in this order: each a
   * `/proc/<server pid>/fd/<n>` of a handle the server holds, opened by the spawner through that
   * link (the very file the server checked, never a path looked up again) for the sandbox's
   * --ro-bind-fd (sandbox/bwrap.ts).
   */
  inherit?: string[];
}

/** The first fd of DetachedRequest.inherit in the task (above the wrapper's status fd and the network launcher's 7 and 8). */
export const INHERITED_FD_BASE = 20;

/** A command to run to its end, its output captured (Slurm's commands). */
export interface CaptureRequest {
  type: 'capture';
  id: number;
  program: string;
  args: string[];
  env: Record<string, string>;
  timeoutMs: number;
  maxBuffer: number;
}

/** How the spawner starts detached tasks (for tests and diagnostics). */
export interface AboutRequest {
  type: 'about';
  id: number;
}

export type SpawnerRequest = DetachedRequest | CaptureRequest | AboutRequest;

export type SpawnerReply =
  /** A detached task started: its pid, and its kernel start time read before it could be reaped. */
  | { type: 'started'; id: number; pid: number; startTime: string }
  | { type: 'failed'; id: number; message: string }
  /**
   * A detached task's process ended, with its exit code (null: a signal killed it). The wrapper
   * records the task's own in its record, which outlives the server; this one is for when it
   * could not (see LocalExecutor.ended).
   */
  | { type: 'exited'; pid: number; code: number | null }
  | { type: 'captured'; id: number; code: number; stdout: string; stderr: string }
  /** 'posix_spawn' (the native module), or why Node's spawn starts them. */
  | { type: 'about'; id: number; detachedStarts: 'posix_spawn' | { node: string } };

/** What sendReply needs of the spawner's process: its IPC channel to the server. */
export interface ReplyChannel {
  connected: boolean;
  send?(message: SpawnerReply, sendHandle: undefined, options: undefined, callback: (error: Error | null) => void): boolean;
}

/**
 * Sends a reply to the server, or drops it once the server is gone. A task can end after the
 * server's end of the channel closed and before this process has seen it ('disconnect'): a send
 * without a callback then raises EPIPE as an uncaught error, and the spawner died with a stack
 * trace on the server's terminal. With the callback, the error is the callback's; nothing is left to report to.
 */
export function sendReply(channel: ReplyChannel, reply: SpawnerReply): void {
  if (!channel.connected) return;
  channel.send?.(reply, undefined, undefined, () => undefined);
}
