import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isRunning, readProcStat } from '../../src/executors/proc.js';

/** The fake docker/podman CLI (see its header): containers outlive their CLI until `rm -f`. */
const SCRIPT = path.resolve(import.meta.dirname, '../fixtures/fake-container-runtime');

export interface Container {
  pid: number;
  startTime: string;
}

export interface FakeRuntime {
  /** The directory holding the runtime: put it on the task PATH. */
  dir: string;
  /** Every call so far, in order: its arguments (without the program). */
  calls(): string[][];
  /** The process of the named container while the fake knows the container (pid and start time: a reused pid has another), else null. */
  container(name: string): Container | null;
  /** Whether the container's process runs (a zombie does not). */
  running(container: Container): boolean;
}

/** A fake container runtime named `name` in a directory of its own. */
export function fakeRuntime(name: 'docker' | 'podman'): FakeRuntime {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-rt-'));
  copyFileSync(SCRIPT, path.join(dir, name));
  chmodSync(path.join(dir, name), 0o755);
  const state = path.join(dir, 'state');
  return {
    dir,
    calls() {
      let files: string[] = [];
      try {
        files = readdirSync(path.join(state, 'calls')).sort();
      } catch {
        return [];
      }
      return files.map((f) =>
        readFileSync(path.join(state, 'calls', f), 'utf8')
          .split('\0')
          .slice(0, -1),
      );
    },
    container(container) {
      let pid: number;
      try {
        pid = Number(readFileSync(path.join(state, 'containers', container, 'pid'), 'utf8').trim());
      } catch {
        return null;
      }
      const stat = pid > 0 ? readProcStat(pid) : null;
      return stat && { pid, startTime: stat.startTime };
    },
    running({ pid, startTime }) {
      return isRunning(pid, startTime);
    },
  };
}
