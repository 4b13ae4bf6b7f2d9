import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';

/**
 * A copy of the /etc entries a task may see (bwrap.ts, ETC_ENTRIES), made once and bound at /etc
 * in one mount, instead of one bind per entry: bwrap reads the whole mount table after every bind,
 * and the /etc entries were most of a task's binds (about 5 ms of machine CPU a task, measured).
 *
 * Files are copied with their contents (a link followed, as a bind of it would); directories
 * (ssl/certs, alternatives, ...) are still bound, over empty mount points in the copy, so what
 * they hold is always the host's. The copy follows the host: every call compares the entries'
 * stat (inode, size, times, mode, or absence) with those of the copy in use, and a change makes a
 * new copy, named by that fingerprint. Copies are not removed: a running task may have one bound
 * (removing its files would remove them from the task's /etc), and there is one per change of
 * those files only.
 */
export class EtcSnapshot {
  private current: { fingerprint: string; view: EtcView } | null = null;

  /** root: a folder of the server's own (under the data directory) that no task sees. */
  constructor(
    private readonly root: string,
    private readonly entries: readonly string[],
    private readonly source = '/etc',
  ) {}

  /** The copy to bind at /etc and the directories to bind over it; null when no copy can be made (the caller binds each entry). */
  view(): EtcView | null {
    const stats = this.entries.map((entry) => statSync(path.join(this.source, entry), { throwIfNoEntry: false }));
    const fingerprint = stats.map((s, i) => `${this.entries[i]}=${signature(s)}`).join('\n');
    if (this.current?.fingerprint === fingerprint && statSync(this.current.view.dir, { throwIfNoEntry: false })?.isDirectory()) {
      return this.current.view;
    }
    try {
      const view = this.make(fingerprint, stats);
      this.current = { fingerprint, view };
      return view;
    } catch {
      // E.g. a read-only data directory: the entries are bound one by one, as without a copy.
      this.current = null;
      return null;
    }
  }

  private make(fingerprint: string, stats: (Stats | undefined)[]): EtcView {
    const name = `etc-${createHash('sha256').update(`${this.source}\n${fingerprint}`).digest('hex').slice(0, 16)}`;
    const dir = path.join(this.root, name);
    // Bound from the host over an empty mount point: the directories, and a file the server cannot read (a bind needs no read access).
    const bound = this.entries.filter(
      (entry, i) => stats[i]?.isDirectory() || (stats[i]?.isFile() && !readable(path.join(this.source, entry))),
    );
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      mkdirSync(this.root, { recursive: true, mode: 0o700 });
      const building = mkdtempSync(path.join(this.root, '.building-'));
      try {
        chmodSync(building, 0o755);
        this.entries.forEach((entry, i) => {
          const stat = stats[i];
          if (!stat?.isDirectory() && !stat?.isFile()) return;
          const target = path.join(building, entry);
          mkdirSync(path.dirname(target), { recursive: true, mode: 0o755 });
          if (stat.isDirectory()) mkdirSync(target, { mode: 0o755 });
          else if (bound.includes(entry)) writeFileSync(target, '', { mode: 0o644 });
          // The file's mode comes along (libuv's copyfile); a link is followed.
          else copyFileSync(path.join(this.source, entry), target);
        });
        finish(building, dir);
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
    }
    return { dir, binds: bound.map((entry) => path.join('/etc', entry)) };
  }
}

/** The copy bound at /etc, and the paths under /etc bound from the host over it. */
export interface EtcView {
  dir: string;
  binds: string[];
}

function signature(stat: Stats | undefined): string {
  if (!stat) return '-';
  if (stat.isDirectory()) return `d:${stat.dev}:${stat.ino}`;
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.mode}`;
}

function readable(file: string): boolean {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Moves the finished copy to its name; another process may have made the same one first. */
function finish(building: string, dir: string): void {
  try {
    renameSync(building, dir);
  } catch (e) {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw e;
  }
}
