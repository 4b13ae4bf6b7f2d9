import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** The fields of /proc/<pid>/stat that identify a process and tell whether it still runs. */
export interface ProcStat {
  pid: number;
  /** R, S, D, T, Z (zombie), X (dead), ... */
  state: string;
  pgrp: number;
  /** Field 22: clock ticks after boot at which the process started; with the pid, an identity no reuse can fake. */
  startTime: string;
}

/** Parses /proc/<pid>/stat; the command name (field 2) may hold spaces and parentheses, so fields are counted from its last ')'. */
export function parseProcStat(text: string): ProcStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  // rest[0] is field 3 (state), rest[2] field 5 (pgrp), rest[19] field 22 (starttime).
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  if (!Number.isInteger(pid) || rest.length < 20) return null;
  return { pid, state: rest[0], pgrp: Number(rest[2]), startTime: rest[19] };
}

export function readProcStat(pid: number): ProcStat | null {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

/** The kernel's id of the calling thread (Node tells none; /proc/thread-self is "<pid>/task/<tid>"), or null. */
export function currentThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** A zombie or dead process has ended: only its parent's bookkeeping is left. */
export function isLive(stat: ProcStat | null): stat is ProcStat {
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

/** True while the process with this pid and start time runs (a reused pid has another start time). */
export function isRunning(pid: number, startTime: string): boolean {
  const stat = readProcStat(pid);
  return isLive(stat) && stat.startTime === startTime;
}

/** Pids of the live (not zombie) processes of a process group. */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(Number(name));
    if (isLive(stat) && stat.pgrp === pgid) members.push(stat.pid);
  }
  return members;
}

/**
 * Whether any live process is left in the group. Asking the kernel (kill 0) answers "none" without
 * reading /proc; only when it says the group exists is /proc scanned, to leave zombies out.
 */
export function groupHasLiveMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  return groupMembers(pgid).length > 0;
}
