import { createHash } from 'node:crypto';
import { lstat, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Where a session keeps its runtime files (its unix socket, its kernels' ipc sockets and
 * connection files). A unix socket's path holds 107 bytes and a Jupyter kernel's is
 * `<runtime>/kernel-<uuid>-ipc-<n>`, so the directory must be short: `<dataDir>/sr/<id>` when that
 * fits, else `<tmp>/runyard-<hash of the data directory>/<id>` (one per server; made 0700 and
 * checked to be this user's own, since anyone may make things in a temporary directory), where
 * <tmp> is TMPDIR when that fits, else /tmp, else /dev/shm: short whatever TMPDIR and the data
 * directory are.
 */

/** The longest runtime directory a kernel's socket paths fit under. */
export const MAX_RUNTIME_DIR = 107 - '/kernel-00000000-0000-0000-0000-000000000000-ipc-5'.length;

/** The system's own temporary directories, short on every system, after TMPDIR. */
const SHORT_TMP = ['/tmp', '/dev/shm'];

export function sessionRuntimeDir(dataDir: string, sessionId: string, tmp = os.tmpdir()): string {
  const inData = path.join(path.resolve(dataDir), 'sr', sessionId);
  if (inData.length <= MAX_RUNTIME_DIR) return inData;
  const server = createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 10);
  const candidates = [tmp, ...SHORT_TMP].map((dir) => path.join(dir, `runyard-${server}`, sessionId));
  return candidates.find((dir) => dir.length <= MAX_RUNTIME_DIR) ?? candidates[0];
}

/** Makes the parent of a runtime directory when need be, and checks that only this user can reach into it. */
export async function preparePrivateParent(runtime: string): Promise<void> {
  const parent = path.dirname(runtime);
  if (runtime.length > MAX_RUNTIME_DIR) {
    throw new Error(
      `its runtime directory ${runtime} is too long for the unix sockets of its kernels (at most ${MAX_RUNTIME_DIR} characters): set TMPDIR or RUNYARD_DATA_DIR to a shorter path.`,
    );
  }
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const seen = await lstat(parent);
  const uid = process.getuid?.() ?? seen.uid;
  if (!seen.isDirectory() || seen.uid !== uid || (seen.mode & 0o077) !== 0) {
    throw new Error(
      `${parent} is not a private directory of this server's user (mode 0700, owned by it): remove it, and start the session again.`,
    );
  }
}
