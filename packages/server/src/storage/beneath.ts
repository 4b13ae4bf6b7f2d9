import { closeSync, constants, existsSync, lstatSync, openSync, type Dirent, type Stats } from 'node:fs';
import { lchown, lstat, mkdir, open, readdir, readlink, realpath, rename, rmdir, symlink, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/**
 * The one way the server touches a directory that a task can write (a job's logs, results and work
 * directory, control files, array records, session homes). A task may have put anything there: a
 * symbolic link to /etc/shadow, a FIFO that blocks a reader, a file swapped for a link between a
 * check and an open. So a path below such a root is never handed to the kernel whole: it is
 * walked one name at a time from a handle of the root (opened by the server, which made it), each
 * name opened with O_NOFOLLOW through `/proc/self/fd/<handle>/<name>` (Linux's openat), and a file
 * is used only through the descriptor that was checked (fstat: a regular file), never reopened
 * by path. Non-regular files are refused (BeneathError), FIFOs without blocking.
 *
 * Symbolic links are refused, except where a caller asks for `links: 'inside'` (the File Explorer's
 * view of a bucket, where a pipeline publishes results as links into its work directory): then
 * a link's target is resolved here, as text, against the root, and followed only while it stays
 * below it, again one name at a time from the root's handle.
 *
 * Where /proc/self/fd is missing (macOS, where tasks run unconfined anyway), each name is checked
 * with lstat before the next one is used, which a task racing the server could defeat; the
 * server says so in docs/security.md.
 */

/** Why a path below a root was refused. */
export type BeneathReason = 'link' | 'hard-link' | 'special' | 'missing' | 'outside' | 'not-directory';

export class BeneathError extends Error {
  constructor(
    readonly reason: BeneathReason,
    readonly rel: string,
    detail?: string,
  ) {
    super(detail ?? `${JSON.stringify(rel)} ${REASON_TEXT[reason]}`);
    this.name = 'BeneathError';
  }
}

const REASON_TEXT: Record<BeneathReason, string> = {
  link: 'is (or passes through) a symbolic link',
  'hard-link': 'has other names (hard links) and is not written',
  special: 'is not a regular file or directory',
  missing: 'does not exist',
  outside: 'leads outside its directory',
  'not-directory': 'is not a directory',
};

export interface BeneathOptions {
  /** 'none' (the default): a symbolic link anywhere on the path is refused. 'inside': followed while it stays below the root. */
  links?: 'none' | 'inside';
}

const PROC_FD = '/proc/self/fd';
const HAS_PROC_FD = process.platform === 'linux' && existsSync(PROC_FD);
/** As Linux's own limit on links in one lookup. */
const MAX_LINK_HOPS = 40;

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** The names of a relative path; '.', '..', empty names and absolute paths are refused. */
export function namesOf(rel: string): string[] {
  if (rel === '' || rel === '.') return [];
  if (path.isAbsolute(rel) || rel.includes('\0')) throw new BeneathError('outside', rel);
  const names = rel.split('/');
  if (names.some((n) => n === '' || n === '.' || n === '..')) throw new BeneathError('outside', rel);
  return names;
}

const errnoOf = (e: unknown) => (e as NodeJS.ErrnoException).code ?? '';

/** A directory handle and what it is, relative to the root. */
interface Held {
  handle: FileHandle;
  /** Its path below the root ([] for the root). */
  names: string[];
  /** The path the kernel reaches it by: /proc/self/fd/<fd>, or (no /proc) its full path. */
  ref: string;
}

/** Where a name below a held directory is reached without following the directory's own path. */
function child(held: Pick<Held, 'ref'>, name: string): string {
  return `${held.ref}/${name}`;
}

async function openRoot(root: string): Promise<Held> {
  const handle = await open(root, O_RDONLY | O_DIRECTORY).catch((e: unknown) => {
    if (errnoOf(e) === 'ENOENT') throw new BeneathError('missing', '', `the directory ${root} does not exist`);
    throw e;
  });
  return { handle, names: [], ref: HAS_PROC_FD ? `${PROC_FD}/${handle.fd}` : path.resolve(root) };
}

/** Opens the directory `name` below `held` (closing nothing): no link, no file. */
async function openChildDir(held: Held, name: string): Promise<Held> {
  const names = [...held.names, name];
  const rel = names.join('/');
  const where = child(held, name);
  if (!HAS_PROC_FD) {
    const st = await lstat(where).catch((e: unknown) => mapError(e, rel));
    if (st.isSymbolicLink()) throw new BeneathError('link', rel);
    if (!st.isDirectory()) throw new BeneathError('not-directory', rel);
  }
  const handle = await open(where, DIR_FLAGS).catch((e: unknown) => mapError(e, rel, where));
  return { handle, names, ref: HAS_PROC_FD ? `${PROC_FD}/${handle.fd}` : where };
}

/** The errno of a no-follow open or lstat, as a BeneathError where it says what is there. */
async function mapError(e: unknown, rel: string, where?: string): Promise<never> {
  const code = errnoOf(e);
  if (code === 'ENOENT') throw new BeneathError('missing', rel);
  if (code === 'ELOOP') throw new BeneathError('link', rel);
  if (code === 'ENOTDIR') {
    // O_DIRECTORY on a link (with O_NOFOLLOW) says ENOTDIR on some kernels: tell which it is.
    const st = where ? await lstat(where).catch(() => null) : null;
    throw new BeneathError(st?.isSymbolicLink() ? 'link' : 'not-directory', rel);
  }
  if (code === 'ENXIO') throw new BeneathError('special', rel); // a FIFO with no reader, opened to write
  throw e;
}

/**
 * Walks `names` from the root's handle, each a directory; the handles on the way are closed. With
 * links 'inside', a link is read and its target walked instead (restarting from the root).
 */
async function walkDirs(root: Held, names: string[], options: BeneathOptions, rootPaths: string[]): Promise<Held> {
  let at: Held = root;
  let pending = [...names];
  let hops = 0;
  try {
    while (pending.length) {
      const name = pending.shift()!;
      try {
        const next = await openChildDir(at, name);
        if (at !== root) await at.handle.close();
        at = next;
      } catch (e) {
        if (!(e instanceof BeneathError) || e.reason !== 'link' || options.links !== 'inside') throw e;
        if (++hops > MAX_LINK_HOPS) throw new BeneathError('link', e.rel, `${JSON.stringify(e.rel)}: too many levels of links`);
        const target = await readlink(child(at, name));
        pending = [...linkTargetNames(target, at.names, rootPaths, e.rel), ...pending];
        if (at !== root) await at.handle.close();
        at = root;
      }
    }
    return at;
  } catch (e) {
    if (at !== root) await at.handle.close();
    throw e;
  }
}

/** A link's target (in the directory `dirNames` below the root) as names below the root; refused when it leaves it. */
function linkTargetNames(target: string, dirNames: string[], rootPaths: string[], rel: string): string[] {
  let full: string;
  if (path.isAbsolute(target)) {
    const normal = path.resolve(target);
    const base = rootPaths.find((r) => normal === r || normal.startsWith(r.endsWith('/') ? r : `${r}/`));
    if (base === undefined) throw new BeneathError('outside', rel);
    full = path.relative(base, normal);
  } else {
    // Resolved as text below a fake root: '..' past the root comes out as a path that starts with it.
    full = path.posix.normalize(path.posix.join(...dirNames, target));
    if (full === '..' || full.startsWith('../') || path.isAbsolute(full)) throw new BeneathError('outside', rel);
  }
  return full === '' || full === '.' ? [] : full.split('/').filter((n) => n !== '' && n !== '.');
}

/** The paths that an absolute link target may name the root by: as given, and its real path. */
async function rootPathsOf(root: string, options: BeneathOptions): Promise<string[]> {
  if (options.links !== 'inside') return [];
  const given = path.resolve(root);
  const real = await realpath(given).catch(() => given);
  return real === given ? [given] : [given, real];
}

/**
 * Runs fn with a handle of the directory that holds the last name of rel (the root itself for a
 * name directly in it), and that name; the handles are closed after.
 */
async function inParent<T>(root: string, rel: string, options: BeneathOptions, fn: (parent: Held, name: string) => Promise<T>): Promise<T> {
  const names = namesOf(rel);
  if (!names.length) throw new BeneathError('outside', rel, 'a path below the directory is needed');
  const rootHeld = await openRoot(root);
  try {
    const rootPaths = await rootPathsOf(root, options);
    const parent = await walkDirs(rootHeld, names.slice(0, -1), options, rootPaths);
    try {
      return await fn(parent, names[names.length - 1]);
    } finally {
      if (parent !== rootHeld) await parent.handle.close();
    }
  } finally {
    await rootHeld.handle.close();
  }
}

export type OpenMode = 'read' | 'append' | 'create';

const FILE_FLAGS: Record<OpenMode, number> = {
  read: O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
  // Made when missing; an existing link is refused by O_NOFOLLOW (ELOOP), a FIFO without a reader by O_NONBLOCK (ENXIO).
  append: O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK,
  // A new file: nothing may be there, not even a dangling link.
  create: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK,
};

/** A regular file below root, opened: the handle is the file that was checked. The caller closes it. */
export async function openBeneath(root: string, rel: string, mode: OpenMode = 'read', options: BeneathOptions = {}): Promise<FileHandle> {
  let names = namesOf(rel);
  if (!names.length) throw new BeneathError('special', rel, 'a file below the directory is needed');
  const rootHeld = await openRoot(root);
  try {
    const rootPaths = await rootPathsOf(root, options);
    for (let hops = 0; ; hops++) {
      const parent = await walkDirs(rootHeld, names.slice(0, -1), options, rootPaths);
      try {
        const where = child(parent, names[names.length - 1]);
        if (!HAS_PROC_FD) {
          const st = await lstat(where).catch(() => null);
          if (st?.isSymbolicLink() && options.links !== 'inside') throw new BeneathError('link', rel);
        }
        let handle: FileHandle;
        try {
          handle = await open(where, FILE_FLAGS[mode], 0o644);
        } catch (e) {
          // A link as the last name: followed below the root when allowed (reading only), from the root again.
          if (errnoOf(e) === 'ELOOP' && options.links === 'inside' && mode === 'read') {
            if (hops >= MAX_LINK_HOPS) throw new BeneathError('link', rel, `${JSON.stringify(rel)}: too many levels of links`);
            names = linkTargetNames(await readlink(where), parent.names, rootPaths, rel);
            if (!names.length) throw new BeneathError('special', rel, `${JSON.stringify(rel)} is a directory`);
            continue;
          }
          if (errnoOf(e) === 'EISDIR') throw new BeneathError('special', rel, `${JSON.stringify(rel)} is a directory`);
          return await mapError(e, rel);
        }
        const st = await handle.stat().catch(async (e: unknown) => {
          await handle.close();
          throw e;
        });
        if (!st.isFile()) {
          await handle.close();
          throw new BeneathError('special', rel);
        }
        // A file with another name may be one the server owns elsewhere: written only when it has this name alone.
        if (mode !== 'read' && st.nlink > 1) {
          await handle.close();
          throw new BeneathError('hard-link', rel);
        }
        return handle;
      } finally {
        if (parent !== rootHeld) await parent.handle.close();
      }
    }
  } finally {
    await rootHeld.handle.close();
  }
}

/** Up to `length` bytes of a regular file below root from `offset`; null when it does not exist. Anything but a regular file is refused. */
export async function readBeneath(
  root: string,
  rel: string,
  offset = 0,
  length = 1024 * 1024,
  options: BeneathOptions = {},
): Promise<Buffer | null> {
  let handle: FileHandle;
  try {
    handle = await openBeneath(root, rel, 'read', options);
  } catch (e) {
    if (e instanceof BeneathError && e.reason === 'missing') return null;
    throw e;
  }
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Appends text to a regular file below root (made when missing); a link or special file there is refused, never written through. */
export async function appendBeneath(root: string, rel: string, text: string | Buffer): Promise<void> {
  const handle = await openBeneath(root, rel, 'append');
  try {
    await handle.appendFile(text);
  } finally {
    await handle.close();
  }
}

/** The entry itself at rel (a link is described, not followed); null when nothing is there. */
export async function lstatBeneath(root: string, rel: string): Promise<Stats | null> {
  if (!namesOf(rel).length) return lstat(root);
  try {
    return await inParent(root, rel, {}, (parent, name) => lstat(child(parent, name)));
  } catch (e) {
    if ((e instanceof BeneathError && e.reason === 'missing') || errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
}

/** Runs fn with a handle of the directory rel below root (the root for ''), closed after. */
async function withDir<T>(root: string, rel: string, options: BeneathOptions, fn: (dir: Held) => Promise<T>): Promise<T> {
  const rootHeld = await openRoot(root);
  try {
    const dir = await walkDirs(rootHeld, namesOf(rel), options, await rootPathsOf(root, options));
    try {
      return await fn(dir);
    } finally {
      if (dir !== rootHeld) await dir.handle.close();
    }
  } finally {
    await rootHeld.handle.close();
  }
}

/**
 * Runs fn with a path that reaches the directory rel below root through its handle
 * (`/proc/self/fd/<fd>`, valid until fn ends): names joined to it are looked up in that directory,
 * whatever becomes of the path that led there. With `create`, missing directories on the way are
 * made (each in its parent's handle, then opened without following).
 */
export async function inDirBeneath<T>(
  root: string,
  rel: string,
  fn: (dir: string) => Promise<T>,
  options: BeneathOptions & { create?: boolean } = {},
): Promise<T> {
  if (options.create) await makeDirsBeneath(root, rel);
  return withDir(root, rel, options, (dir) => fn(dir.ref));
}

/**
 * The directory rel below root, made when missing; whatever a task left in its place that is not a
 * directory (a link, a file) is removed first, never followed.
 */
export async function ownDirBeneath(root: string, rel: string): Promise<void> {
  const found = await lstatBeneath(root, rel);
  if (found && !found.isDirectory()) await removeBeneath(root, rel);
  await makeDirsBeneath(root, rel);
}

/** Makes the directories of rel below root that are missing; a link or a file on the way is refused. */
async function makeDirsBeneath(root: string, rel: string): Promise<void> {
  const names = namesOf(rel);
  const rootHeld = await openRoot(root);
  let at = rootHeld;
  try {
    for (const name of names) {
      await mkdir(child(at, name)).catch((e: unknown) => (errnoOf(e) === 'EEXIST' ? undefined : Promise.reject(e)));
      const next = await openChildDir(at, name);
      if (at !== rootHeld) await at.handle.close();
      at = next;
    }
  } finally {
    if (at !== rootHeld) await at.handle.close();
    await rootHeld.handle.close();
  }
}

/** What rel below root is, resolved as options say: a regular file or a directory (anything else refused), and its path below root after links. */
export async function resolveBeneath(root: string, rel: string, options: BeneathOptions = {}): Promise<{ stats: Stats; rel: string }> {
  try {
    const handle = await openBeneath(root, rel, 'read', options);
    try {
      return { stats: await handle.stat(), rel: await resolvedRel(root, rel, options) };
    } finally {
      await handle.close();
    }
  } catch (e) {
    if (!(e instanceof BeneathError) || e.reason !== 'special') throw e;
    // A directory (openBeneath takes files only): its handle tells.
    return withDir(root, rel, options, async (dir) => ({ stats: await dir.handle.stat(), rel: dir.names.join('/') }));
  }
}

/** rel with its links resolved below root (only links 'inside' are followed, so only they change it). */
async function resolvedRel(root: string, rel: string, options: BeneathOptions): Promise<string> {
  if (options.links !== 'inside') return rel;
  const names = namesOf(rel);
  const rootPaths = await rootPathsOf(root, options);
  const rootHeld = await openRoot(root);
  try {
    let current = names;
    for (let hops = 0; hops <= MAX_LINK_HOPS; hops++) {
      if (!current.length) return '';
      const parent = await walkDirs(rootHeld, current.slice(0, -1), options, rootPaths);
      try {
        const where = child(parent, current[current.length - 1]);
        const st = await lstat(where);
        if (!st.isSymbolicLink()) return [...parent.names, current[current.length - 1]].join('/');
        current = linkTargetNames(await readlink(where), parent.names, rootPaths, rel);
      } finally {
        if (parent !== rootHeld) await parent.handle.close();
      }
    }
    throw new BeneathError('link', rel, `${JSON.stringify(rel)}: too many levels of links`);
  } finally {
    await rootHeld.handle.close();
  }
}

/** The entries of the directory rel below root, as the directory says they are (links not followed). */
export async function listBeneath(root: string, rel = '', options: BeneathOptions = {}): Promise<Dirent[]> {
  return withDir(root, rel, options, (dir) => readdir(dir.ref, { withFileTypes: true }));
}

/** A regular file found by walkFilesBeneath. */
export interface FoundFile {
  /** Its path below the root, `/`-separated. */
  rel: string;
  size: number;
  mtimeMs: number;
}

/**
 * Every regular file below the directory rel of root, depth first, without following links; links,
 * FIFOs, sockets and devices are passed to `skipped` (when given) and left alone.
 */
export async function* walkFilesBeneath(root: string, rel = '', skipped?: (rel: string, what: string) => void): AsyncGenerator<FoundFile> {
  let entries: Dirent[];
  try {
    entries = await listBeneath(root, rel);
  } catch (e) {
    if (e instanceof BeneathError && (e.reason === 'missing' || rel === '')) return;
    if (e instanceof BeneathError) return void skipped?.(rel, e.message);
    throw e;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const sub = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      yield* walkFilesBeneath(root, sub, skipped);
    } else if (entry.isFile()) {
      const st = await lstatBeneath(root, sub).catch(() => null);
      if (st?.isFile()) yield { rel: sub, size: st.size, mtimeMs: st.mtimeMs };
    } else {
      skipped?.(sub, entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file or directory');
    }
  }
}

/**
 * Removes rel below root and, for a directory, everything in it, never following a link (a link is
 * removed, not what it names). Nothing there: nothing done.
 */
export async function removeBeneath(root: string, rel: string): Promise<void> {
  try {
    await inParent(root, rel, {}, (parent, name) => removeIn(parent, name));
  } catch (e) {
    if (e instanceof BeneathError && e.reason === 'missing') return;
    throw e;
  }
}

async function removeIn(parent: Held, name: string): Promise<void> {
  const where = child(parent, name);
  const st = await lstat(where).catch((e: unknown) => (errnoOf(e) === 'ENOENT' ? null : Promise.reject(e)));
  if (!st) return;
  if (!st.isDirectory()) {
    await unlink(where).catch((e: unknown) => (errnoOf(e) === 'ENOENT' ? undefined : Promise.reject(e)));
    return;
  }
  let dir: Held;
  try {
    dir = await openChildDir(parent, name);
  } catch (e) {
    // Swapped for a link or a file meanwhile: that is what is removed.
    if (e instanceof BeneathError && (e.reason === 'link' || e.reason === 'not-directory')) return removeIn(parent, name);
    if (e instanceof BeneathError && e.reason === 'missing') return;
    throw e;
  }
  try {
    for (const entry of await readdir(dir.ref)) await removeIn(dir, entry);
  } finally {
    await dir.handle.close();
  }
  await rmdir(where).catch((e: unknown) => (errnoOf(e) === 'ENOENT' ? undefined : Promise.reject(e)));
}

/**
 * Removes the directory rel below root only when it is empty (rmdir: a link in its place, or a
 * directory with anything in it, stays). True when it went; false when nothing was there, or it was
 * not empty or not a directory.
 */
export async function removeEmptyDirBeneath(root: string, rel: string): Promise<boolean> {
  try {
    return await inParent(root, rel, {}, async (parent, name) => {
      await rmdir(child(parent, name));
      return true;
    });
  } catch (e) {
    if (e instanceof BeneathError && e.reason === 'missing') return false;
    if (['ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR'].includes(errnoOf(e))) return false;
    throw e;
  }
}

/**
 * Makes a symbolic link at rel below root whose text is target (stored as given, never resolved
 * here). Whatever is at rel already, even a dangling link, is refused (EEXIST).
 */
export async function symlinkBeneath(root: string, rel: string, target: string): Promise<void> {
  await inParent(root, rel, {}, (parent, name) => symlink(target, child(parent, name)));
}

/**
 * Moves the entry rel below root to toRel below toRoot, as rename(2) does: the entry itself moves (a
 * file, a link or a tree, nothing in it followed), and what toRel names is replaced where rename may
 * (a file or a link, itself and never what it names; an empty directory). Both parents are reached
 * from their roots' handles without following links.
 */
export async function renameBeneath(root: string, rel: string, toRoot: string, toRel: string): Promise<void> {
  await inParent(root, rel, {}, (from, name) => inParent(toRoot, toRel, {}, (to, toName) => rename(child(from, name), child(to, toName))));
}

/**
 * Calls visit with each entry below dir (its path beneath the handle and its lstat: no link is
 * followed), depth first, and descends into each directory that visit answers true for; what
 * vanishes during the walk is skipped.
 */
async function visitBelow(dir: Held, visit: (where: string, st: Stats) => Promise<boolean>): Promise<void> {
  for (const name of await readdir(dir.ref).catch(() => [] as string[])) {
    const where = child(dir, name);
    const st = await lstat(where).catch(() => null);
    if (!st || !(await visit(where, st)) || !st.isDirectory()) continue;
    const sub = await openChildDir(dir, name).catch(() => null);
    if (!sub) continue;
    try {
      await visitBelow(sub, visit);
    } finally {
      await sub.handle.close();
    }
  }
}

/**
 * The bytes that the tree at root takes on disk (allocated blocks, each inode counted once: a file
 * hard-linked twice is not counted twice), walked from held directory handles without following any
 * link. A missing root takes none; what vanishes during the walk is skipped.
 */
export async function diskUsageBeneath(root: string): Promise<number> {
  let held: Held;
  try {
    held = await openRoot(root);
  } catch (e) {
    if (e instanceof BeneathError && e.reason === 'missing') return 0;
    throw e;
  }
  const seen = new Set<string>();
  let total = 0;
  try {
    await visitBelow(held, async (_where, st) => {
      const inode = `${st.dev}:${st.ino}`;
      if (seen.has(inode)) return false;
      seen.add(inode);
      total += st.blocks * 512;
      return true;
    });
    return total;
  } finally {
    await held.handle.close();
  }
}

/**
 * Gives the entry at rel below root (a directory and everything in it, or a single file) to uid and
 * gid, reached from root's handle one name at a time without following any link (a link on the way
 * is refused; a link found in the tree has its own owner changed, never its target's). What already
 * belongs to them is left alone, and so is a file with other names (hard links: the other name may
 * be outside the tree); what vanishes during the walk is skipped. rel '' is root itself.
 */
export async function chownTreeBeneath(root: string, rel: string, uid: number, gid: number): Promise<void> {
  const give = async (where: string, st: Stats) => {
    const shared = !st.isDirectory() && st.nlink > 1;
    if (!shared && (st.uid !== uid || st.gid !== gid)) await lchown(where, uid, gid).catch(() => undefined);
  };
  const tree = async (held: Held) => {
    const st = await held.handle.stat();
    if (st.uid !== uid || st.gid !== gid) await held.handle.chown(uid, gid);
    await visitBelow(held, async (where, found) => {
      await give(where, found);
      return true;
    });
  };
  if (!namesOf(rel).length) {
    const held = await openRoot(root);
    try {
      return await tree(held);
    } finally {
      await held.handle.close();
    }
  }
  const missing = (e: unknown) => (e instanceof BeneathError && e.reason === 'missing' ? undefined : Promise.reject(e));
  await inParent(root, rel, {}, async (parent, name) => {
    const st = await lstat(child(parent, name)).catch(() => null);
    if (!st) return;
    if (!st.isDirectory()) return give(child(parent, name), st);
    // Opened without following: a link swapped in since the lstat is refused, not walked.
    const held = await openChildDir(parent, name);
    try {
      await tree(held);
    } finally {
      await held.handle.close();
    }
  }).catch(missing);
}

/*
 * The same walk with synchronous calls, for a look that must cost no round trip (the
 * executors' makeTaskDirectories, on the launch path, where a metadata call at once costs less than a
 * round trip through the thread pool): lstatBeneathSync, as lstatBeneath. Links are never followed
 * ('inside' is not offered).
 */

/** A directory held by its descriptor: Held, for the synchronous walk. */
interface HeldFd {
  fd: number;
  names: string[];
  ref: string;
}

function openRootSync(root: string): HeldFd {
  let fd: number;
  try {
    fd = openSync(root, O_RDONLY | O_DIRECTORY);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') throw new BeneathError('missing', '', `the directory ${root} does not exist`);
    throw e;
  }
  return { fd, names: [], ref: HAS_PROC_FD ? `${PROC_FD}/${fd}` : path.resolve(root) };
}

/** mapError, synchronously. */
function mapErrorSync(e: unknown, rel: string, where?: string): never {
  const code = errnoOf(e);
  if (code === 'ENOENT') throw new BeneathError('missing', rel);
  if (code === 'ELOOP') throw new BeneathError('link', rel);
  if (code === 'ENOTDIR') {
    let link = false;
    try {
      link = where !== undefined && lstatSync(where).isSymbolicLink();
    } catch {
      // Gone meanwhile: not a directory either way.
    }
    throw new BeneathError(link ? 'link' : 'not-directory', rel);
  }
  if (code === 'ENXIO') throw new BeneathError('special', rel);
  throw e;
}

/** openChildDir, synchronously: the directory `name` below `held`, no link, no file. */
function openChildDirSync(held: HeldFd, name: string): HeldFd {
  const names = [...held.names, name];
  const rel = names.join('/');
  const where = child(held, name);
  if (!HAS_PROC_FD) {
    let st: Stats;
    try {
      st = lstatSync(where);
    } catch (e) {
      return mapErrorSync(e, rel);
    }
    if (st.isSymbolicLink()) throw new BeneathError('link', rel);
    if (!st.isDirectory()) throw new BeneathError('not-directory', rel);
  }
  let fd: number;
  try {
    fd = openSync(where, DIR_FLAGS);
  } catch (e) {
    return mapErrorSync(e, rel, where);
  }
  return { fd, names, ref: HAS_PROC_FD ? `${PROC_FD}/${fd}` : where };
}

/** inParent, synchronously (links are never followed). */
function inParentSync<T>(root: string, rel: string, fn: (parent: HeldFd, name: string) => T): T {
  const names = namesOf(rel);
  if (!names.length) throw new BeneathError('outside', rel, 'a path below the directory is needed');
  const rootHeld = openRootSync(root);
  let at = rootHeld;
  try {
    for (const name of names.slice(0, -1)) {
      const next = openChildDirSync(at, name);
      if (at !== rootHeld) closeSync(at.fd);
      at = next;
    }
    return fn(at, names[names.length - 1]);
  } finally {
    if (at !== rootHeld) closeSync(at.fd);
    closeSync(rootHeld.fd);
  }
}

/** lstatBeneath, synchronously: the entry itself at rel (a link is described, not followed); null when nothing is there. */
export function lstatBeneathSync(root: string, rel: string): Stats | null {
  if (!namesOf(rel).length) return lstatSync(root);
  try {
    return inParentSync(root, rel, (parent, name) => lstatSync(child(parent, name)));
  } catch (e) {
    if ((e instanceof BeneathError && e.reason === 'missing') || errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
}
