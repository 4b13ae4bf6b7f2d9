import { closeSync, lstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import { isPathInside } from '../../storage/local.js';
import { SYSTEM_TOP } from './bwrap.js';

/*
 * The task PATH as a sandboxed task sees it. Each directory of RUNYARD_TASK_PATH outside /usr is
 * bound into the sandbox read-only (bwrap.ts pathDirs), but nothing else of the host: a directory
 * whose programs reach beyond it finds them missing there, and the task fails with 127 where the
 * server's own shell found the program. Such directories are left out of the task's PATH (so the
 * next directory's program is found, /usr/bin/python3 rather than pyenv's shim), and the server
 * names them at start and in each bash job's log.
 */

/** A directory left out of the task PATH, and why. */
export interface LeftOut {
  dir: string;
  why: string;
}

/** What a sandboxed task sees of the host's system (bwrap.ts systemArgs): programs that live there still work. */
const SYSTEM = ['/usr', ...SYSTEM_TOP.map((name) => `/${name}`), '/etc'];

/** The first bytes of a file: enough for its #! line. */
function head(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const buffer = Buffer.alloc(256);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('latin1');
  } catch {
    return '';
  } finally {
    closeSync(fd);
  }
}

/**
 * Why the programs of a directory do not work in the sandbox, or null: a version manager's shims
 * (pyenv, rbenv, nodenv, asdf, jenv: scripts that run the manager from its hidden folder), or
 * programs that are all links to, or scripts run by, something outside what the task sees.
 */
function unusableBecause(dir: string, visible: (p: string) => boolean): string | null {
  if (path.basename(dir) === 'shims') return "a version manager's shims, which run programs from a folder tasks do not see";
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null; // Missing or unreadable: no program is found there, and the next directory is looked in.
  }
  let hidden = 0;
  let programs = 0;
  for (const name of names) {
    const file = path.join(dir, name);
    let target: string;
    try {
      const st = lstatSync(file);
      if (!st.isSymbolicLink() && !(st.isFile() && st.mode & 0o111)) continue;
      target = st.isSymbolicLink() ? realpathSync(file) : file;
    } catch {
      continue; // A dangling link: not a program anywhere.
    }
    programs++;
    const interpreter = /^#!\s*(\/\S+)/.exec(head(target))?.[1];
    if (!visible(target) || (interpreter && !visible(interpreter))) hidden++;
  }
  if (programs > 0 && hidden === programs) return 'its programs are links to, or scripts run by, programs in folders tasks do not see';
  return null;
}

/** The task PATH without the directories whose programs cannot work in the sandbox, and those directories. */
export function checkTaskPath(taskPath: string): { path: string; leftOut: LeftOut[] } {
  const dirs = taskPath.split(':');
  const bound = dirs.filter((d) => path.isAbsolute(d));
  const visible = (p: string) => [...SYSTEM, ...bound].some((root) => isPathInside(path.resolve(root), path.resolve(p)));
  const leftOut: LeftOut[] = [];
  const kept: string[] = [];
  for (const dir of dirs) {
    const why = !path.isAbsolute(dir)
      ? null
      : SYSTEM.some((root) => isPathInside(root, path.resolve(dir)))
        ? null
        : unusableBecause(dir, visible);
    if (why) {
      if (!leftOut.some((l) => l.dir === dir)) leftOut.push({ dir, why });
    } else kept.push(dir);
  }
  return { path: kept.join(':'), leftOut };
}

/** What each usable path left out (usableTaskPath), for the log lines of the jobs that get it. */
const leftOutByPath = new Map<string, LeftOut[]>();

/**
 * The settings with the task PATH that works in the sandbox (as is without one), and what was left
 * out of it; the directories are read once, at the server's start.
 */
export function withUsableTaskPath(config: Config): { config: Config; leftOut: LeftOut[] } {
  if (config.sandbox !== 'bwrap') return { config, leftOut: [] };
  const checked = checkTaskPath(config.taskPath);
  if (!checked.leftOut.length) return { config, leftOut: [] };
  leftOutByPath.set(checked.path, checked.leftOut);
  return { config: Object.freeze({ ...config, taskPath: checked.path }), leftOut: checked.leftOut };
}

/** What was left out of this task PATH at the start (withUsableTaskPath); none for a path that was not checked. */
export function leftOutOf(taskPath: string): LeftOut[] {
  return leftOutByPath.get(taskPath) ?? [];
}

/** The start's note (and a bash job's log line) naming what was left out; null when nothing was. */
export function leftOutNote(leftOut: LeftOut[], prefix: 'Note' | 'Runyard'): string | null {
  if (!leftOut.length) return null;
  const list = leftOut.map((l) => `${l.dir} (${l.why})`).join('; ');
  return `${prefix}: left out of the task PATH, as their programs do not work in the task sandbox: ${list}. Set RUNYARD_TASK_PATH to the folders that hold the programs themselves to use them.`;
}
