import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, unlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ImageConfig } from './image-config.js';

/**
 * Readies a freshly unpacked root filesystem for the sandbox, before it is made read-only and
 * shared (no task has seen it yet, so nothing can change it meanwhile): the files and folders a
 * task's sandbox mounts over exist, as real files and folders (an image's link there would send the
 * mount elsewhere): /etc/resolv.conf and /etc/hosts (a task's name resolution) and /var/tmp (its
 * own tmpfs). As `docker run` does, what the image had there is hidden by the mount.
 */
export function prepareRootfs(rootfs: string): void {
  realDir(path.join(rootfs, 'etc'));
  realDir(path.join(rootfs, 'var'));
  realDir(path.join(rootfs, 'var', 'tmp'));
  for (const file of ['resolv.conf', 'hosts']) realFile(path.join(rootfs, 'etc', file));
}

function realDir(dir: string): void {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return;
  if (stat) rmSync(dir, { force: true });
  mkdirSync(dir, { mode: 0o755 });
}

function realFile(file: string): void {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (stat?.isFile()) return;
  if (stat?.isDirectory()) rmSync(file, { recursive: true, force: true });
  else if (stat) unlinkSync(file);
  closeSync(openSync(file, 'wx', 0o644));
}

/** The image's /etc/passwd or /etc/group, if it is a plain file of a sane size; '' otherwise. */
function accountsFile(rootfs: string, name: 'passwd' | 'group'): string {
  const file = path.join(rootfs, 'etc', name);
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size > 4 * 1024 * 1024) return '';
  return readFileSync(file, 'utf8');
}

/** The entry of `name` (or of that number) in an /etc/passwd or /etc/group text: its fields. */
function entryOf(text: string, name: string): string[] | null {
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    if (fields.length >= 3 && (fields[0] === name || fields[2] === name)) return fields;
  }
  return null;
}

/**
 * The image's user as numbers, as docker resolves `User` (`name`, `uid`, `uid:gid`, `name:group`):
 * a name from the image's /etc/passwd (its group from there too), a group from /etc/group, a
 * number as it is (with the group of its passwd entry, or 0 when it has none, as docker does).
 */
export function resolveImageUser(rootfs: string, user: string | null): Pick<ImageConfig, 'uid' | 'gid' | 'userProblem'> {
  if (!user) return { uid: null, gid: null };
  const [who, group] = user.split(':', 2);
  const passwd = accountsFile(rootfs, 'passwd');
  const numeric = (s: string) => /^\d{1,10}$/.test(s) && Number(s) <= 4_294_967_294;
  let uid: number;
  let gid = 0;
  const entry = entryOf(passwd, who);
  if (entry && numeric(entry[2])) {
    uid = Number(entry[2]);
    if (numeric(entry[3] ?? '')) gid = Number(entry[3]);
  } else if (numeric(who)) uid = Number(who);
  else return { uid: null, gid: null, userProblem: `the image's user "${who}" is not in its /etc/passwd` };
  if (group !== undefined) {
    if (numeric(group)) gid = Number(group);
    else {
      const g = entryOf(accountsFile(rootfs, 'group'), group);
      if (!g || !numeric(g[2])) return { uid: null, gid: null, userProblem: `the image's group "${group}" is not in its /etc/group` };
      gid = Number(g[2]);
    }
  }
  return { uid, gid };
}
