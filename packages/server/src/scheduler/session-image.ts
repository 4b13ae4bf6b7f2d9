import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { ImageRun } from '../executors/executor.js';
import { taskHostUser } from '../executors/sandbox/sandbox.js';
import type { ImageCache } from '../images/image-cache.js';
import type { ImageConfig } from '../images/image-config.js';
import { parseImageReference } from '../images/reference.js';
import type { Database } from '../store/schema.js';
import { imageEnv, linkedAccount, pullIntoLog } from './image-pull.js';
import type { SessionRow } from './session-state.js';

/** What a Jupyter session in an image is started with: its image pulled, and where the image has its jupyter. */
export interface SessionImage {
  name: string;
  run: ImageRun;
  /** The absolute path of `jupyter` inside the image, found on the image's PATH. */
  jupyter: string;
  config: ImageConfig;
}

/** How many symbolic links a path of the image may go through (as the kernel's ELOOP limit). */
const MAX_LINKS = 40;

/**
 * Pulls the image a session names (`interactiveSessionConfiguration.image`) into the image cache,
 * as a job's image is (scheduler/image-pull.ts): with the session's owner's account at its
 * registry when they linked one, anonymously otherwise, each line of the pull's progress written to
 * the session's log. Records the digest on the session's run once it is resolved, and finds `jupyter` on the image's
 * PATH. Throws, with a message for the session's status, when the pull fails or when the image has
 * no jupyter.
 */
export async function pullSessionImage(
  o: { db: Kysely<Database>; config: Config; images: ImageCache },
  row: Pick<SessionRow, 'id' | 'attempt' | 'user_id' | 'image'>,
  logFile: string,
): Promise<SessionImage> {
  const name = row.image!;
  if (o.config.sandbox !== 'bwrap')
    throw new Error(
      `it names the image ${name}, and sessions run in an image only in the bubblewrap sandbox (RUNYARD_SANDBOX is ${o.config.sandbox}).`,
    );
  const credentials = await linkedAccount(o, row.user_id, parseImageReference(name).registry);
  // The digest is recorded on the run before the cache is looked at, as a job's (image-pull.ts).
  const record = async (digest: string) => {
    await o.db
      .updateTable('interactive_sessions')
      .set({ image_digest: digest })
      .where('id', '=', row.id)
      .where('attempt', '=', row.attempt)
      .execute();
  };
  const pulled = await pullIntoLog(o.images, name, logFile, { credentials, onResolved: record });
  const { config } = pulled;
  if (config.userProblem) throw new Error(`The image ${name} cannot run: ${config.userProblem}.`);
  const searchPath = imageEnv(config, {}).PATH!;
  const jupyter = findInImage(pulled.rootfs, 'jupyter', searchPath);
  if (!jupyter)
    throw new Error(
      `the image ${name} has no jupyter on its PATH (${searchPath}): a Jupyter session's image needs Jupyter Notebook ` +
        '(the jupyter and jupyter-notebook commands, and Python with ipykernel).',
    );
  return { name, run: { digest: pulled.digest, rootfs: pulled.rootfs, uid: config.uid, gid: config.gid }, jupyter, config };
}

/** What the session's log says of the image it runs in, and of what of the image's config does not apply. */
export function sessionImageNotes(config: Pick<Config, 'sandbox' | 'taskUid' | 'taskGid'>, image: SessionImage): string[] {
  const notes = [
    `Runyard: this session runs in the image ${image.name} (${image.run.digest}): its ${image.jupyter}, read-only but for the session's home, mounts and runtime folder, /tmp and /var/tmp.`,
  ];
  const { entrypoint, cmd, workingDir, user } = image.config;
  if (entrypoint.length || cmd.length || workingDir)
    notes.push("Runyard: the image's Entrypoint, Cmd and WorkingDir are not used: the session runs its jupyter in the session's home.");
  const host = taskHostUser(config);
  if (host && user) notes.push(`Runyard: the session runs as uid ${host.uid} (this server runs as root), not as the image's user ${user}.`);
  return notes;
}

/**
 * The path inside the image of an executable `name` on `searchPath`, as a shell in the image would
 * find it, or null. The image's links are resolved inside its root (an absolute link names a path
 * of the image, never the host's).
 */
export function findInImage(rootfs: string, name: string, searchPath: string): string | null {
  for (const dir of searchPath.split(':')) {
    if (!dir.startsWith('/')) continue;
    const found = resolveInImage(rootfs, path.posix.join(dir, name));
    if (found && found.isFile && found.executable) return path.posix.join(dir, name);
  }
  return null;
}

/** What a path of the image is once its links are followed inside the image's root; null: nothing there (or a loop). */
function resolveInImage(rootfs: string, inside: string): { isFile: boolean; executable: boolean } | null {
  let pending = inside.split('/').filter(Boolean);
  let done: string[] = [];
  let links = 0;
  while (pending.length) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      done.pop();
      continue;
    }
    const here = path.join(rootfs, ...done, part);
    const stat = lstatSync(here, { throwIfNoEntry: false });
    if (!stat) return null;
    if (stat.isSymbolicLink()) {
      if (++links > MAX_LINKS) return null;
      const target = readlinkSync(here);
      if (target.startsWith('/')) done = [];
      pending = [...target.split('/').filter(Boolean), ...pending];
      continue;
    }
    if (pending.length && !stat.isDirectory()) return null;
    done.push(part);
    if (!pending.length) return { isFile: stat.isFile(), executable: (stat.mode & 0o111) !== 0 };
  }
  return null;
}
