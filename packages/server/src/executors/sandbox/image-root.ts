import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the sandbox of a task in an image has Runyard's own program (runyard-enter), read-only, whatever the image holds there. */
export const RUNYARD_DIR = '/.runyard';

/** runyard-enter inside the sandbox. */
export const ENTER_IN_SANDBOX = `${RUNYARD_DIR}/enter`;

/** Built by scripts/build-native.mjs from packages/server/native/runyard-enter.c. */
const ENTER_BUILT = fileURLToPath(new URL('../../../native/build/runyard-enter', import.meta.url));

/** Names of the image's root that the sandbox makes itself (its own /proc, /dev, /tmp), or that it never shows (/sys). */
const MADE_BY_SANDBOX = new Set(['proc', 'dev', 'tmp', 'sys', RUNYARD_DIR.slice(1)]);

/** The host path of runyard-enter, or why there is none (it is built by `npm run build`, with a C compiler and libc.a). */
export function enterProgram(): string {
  if (!existsSync(ENTER_BUILT)) {
    throw new Error(
      `${ENTER_BUILT} is missing, so no job can run in its image: run "npm run build" with a C compiler and static libc (Debian: build-essential).`,
    );
  }
  return ENTER_BUILT;
}

/**
 * bwrap options that make the image's unpacked root filesystem the sandbox's root, read-only.
 *
 * Not one bind of the whole tree over /: the job's own directories are bound at their host paths
 * (its work directory is the same path inside and out), which the image does not have, and a
 * read-only bind has no room to make them. So the root is bwrap's own (a tmpfs, made read-only at
 * the end), and each entry of the image's root is bound into it, except those the sandbox makes
 * itself; where a job directory lies under a folder of the image (a data directory under /var), that
 * folder is made instead and its own entries bound, down to the mount point. An image's symbolic
 * link on such a path is not followed: the folder replaces it (bwrap resolves a mount point's
 * links before the sandbox's root is in place, so a link could aim a mount anywhere on the host).
 * Links elsewhere stay links, resolved in the sandbox.
 *
 * mountPoints: the absolute paths the sandbox binds (the task's cwd, writable and readable paths).
 */
export function imageRootArgs(rootfs: string, mountPoints: readonly string[]): string[] {
  const points = mountPoints.map((p) => path.resolve(p));
  return [...entriesArgs(rootfs, '/', points), '--ro-bind', enterProgram(), ENTER_IN_SANDBOX];
}

/** The binds of the entries of `dir` (the image's, at `inside` in the sandbox). */
function entriesArgs(dir: string, inside: string, points: readonly string[]): string[] {
  const args: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (inside === '/' && MADE_BY_SANDBOX.has(name)) continue;
    const host = path.join(dir, name);
    const dest = path.join(inside, name);
    // A mount point itself: the job's bind goes there (bwrap makes it in the folder above).
    if (points.includes(dest)) continue;
    const below = points.filter((p) => p.startsWith(`${dest}/`));
    const stat = lstatSync(host);
    if (below.length) {
      args.push('--dir', dest);
      if (stat.isDirectory()) args.push(...entriesArgs(host, dest, below));
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(host), dest);
    else if (stat.isDirectory() || stat.isFile()) args.push('--ro-bind', host, dest);
    // Devices, FIFOs and sockets of an image are not shown (docker drops them too, and --dev has the devices).
  }
  return args;
}
