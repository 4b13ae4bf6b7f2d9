import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { newObjectId } from '@runyard/contract';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Config } from '../config.js';
import type { BlobStore } from '../storage/blob-store.js';
import { pullDir, pullFile } from '../storage/blob-sync.js';
import {
  BeneathError,
  chownTreeBeneath,
  listBeneath,
  removeBeneath,
  renameBeneath,
  resolveBeneath,
  symlinkBeneath,
} from '../storage/beneath.js';
import { taskHostUser } from '../executors/sandbox/sandbox.js';
import { isPathInside } from '../storage/local.js';
import { defaultBucketOf } from '../storage/storage-deps.js';
import type { Database, SessionMountTable } from '../store/schema.js';
import { localDirOf } from './job-paths.js';
import type { SessionRow } from './session-state.js';

/**
 * Folders and files linked into an interactive session (wire-api §2.12): each appears in the
 * session as `mounts/<name>` (so `~/mounts/<name>`), one row of session_mounts per name.
 *
 * A bind mount made on the host after the session's sandbox started does not reach into it, but
 * an entry made in a directory bound into it does. So:
 *   - on the local store, the runner binds the workspace's storage area read-only into the sandbox
 *     when it launches the session (workspaceAreaOf), and a mount is a symlink `mounts/<name>` to
 *     the item's own directory or file there: live and read-only;
 *   - on S3 and Azure (or an item of the local store outside that area), a mount is a copy of the
 *     folder or file, pulled once when it is mounted (read-only by convention: what the session
 *     changes there is not written back, and a later change in the store is not seen).
 *
 * The session's own code can write in mounts/, so nothing here follows what is there: a copy is
 * made in a staging directory the session cannot reach and renamed into place, a symlink likewise,
 * after whatever had the name was removed (without following links); every call there goes through
 * storage/beneath.ts. A live item is looked at below the workspace's area, its links followed only
 * while they stay in it (jobs write there too). The items were checked when they were linked (T9:
 * the workspace may read them, names without separators or leading dots); a File Explorer item
 * deleted since fails.
 */

/** One item as the session row keeps it (data_items_json, fuse_file_systems_json); services/interactive-session-items.ts resolves them. */
export interface SessionItem<Given = unknown> {
  /** What the client sent, shown back in the session document. */
  given: Given;
  kind: 'file' | 'folder';
  /** Its name under the session's `mounts/`. */
  name: string;
  /** The File Explorer file or folder, when it is one. */
  itemId: string | null;
  /** Where it is: bucket (or Azure container) and object key or folder prefix (no trailing slash). */
  bucket: string;
  key: string;
  /** The Azure storage account, for an Azure blob folder or file. */
  account: string | null;
}

/** `<dataDir>/storage/<default bucket>/<ws>`: the workspace's area of the local store, bound read-only into its sessions. */
export function workspaceAreaOf(config: Pick<Config, 'dataDir'>, workspaceId: string): string {
  return path.resolve(config.dataDir, 'storage', defaultBucketOf(workspaceId), workspaceId);
}

/** What a session's sandbox reads besides its own directories: on the local store the workspace's area (made if need be). */
export async function sessionReadable(config: Pick<Config, 'dataDir' | 'storageBackend'>, workspaceId: string): Promise<string[]> {
  if (config.storageBackend !== 'local') return [];
  const area = workspaceAreaOf(config, workspaceId);
  // The sandbox binds what exists when it starts; folders in it come later.
  await mkdir(area, { recursive: true, mode: 0o700 });
  return [area];
}

/** Where a mount appears in the session. */
export function mountPointOf(mountsDir: string, name: string): string {
  const target = path.resolve(mountsDir, name);
  if (!isPathInside(path.resolve(mountsDir), target) || target === path.resolve(mountsDir))
    throw new Error(`The mount name ${JSON.stringify(name)} leaves the session's mounts directory.`);
  return target;
}

/**
 * At the start of a run: the items given at creation and resume get their rows (a name that has
 * one already keeps it), and every mount of the session is to be applied again (mounting).
 */
export async function prepareSessionMounts(db: Kysely<Database>, row: SessionRow): Promise<void> {
  const items = [...parseSessionItems(row.data_items_json), ...parseSessionItems(row.fuse_file_systems_json)];
  const now = new Date().toISOString();
  const have = new Set(
    (await db.selectFrom('session_mounts').select('name').where('session_id', '=', row.id).execute()).map((r) => r.name),
  );
  for (const item of items) {
    if (have.has(item.name)) continue;
    have.add(item.name);
    await db
      .insertInto('session_mounts')
      .values(newMountRow(row, item, 'session', now))
      .execute();
  }
  await db
    .updateTable('session_mounts')
    .set({ status: 'mounting', error_message: null, updated_at: now })
    .where('session_id', '=', row.id)
    .execute();
}

/** When a run ends: what was under mounts/ removed (copies take room), the mounts unmounted until the next run. */
export async function unmountSession(db: Kysely<Database>, sessionId: string, mountsDir: string, stagingDir: string): Promise<void> {
  await clearDir(mountsDir);
  await removeBeneath(path.dirname(stagingDir), path.basename(stagingDir));
  await db
    .updateTable('session_mounts')
    .set({ status: 'unmounted', updated_at: new Date().toISOString() })
    .where('session_id', '=', sessionId)
    .where('status', 'in', ['mounting', 'mounted'])
    .execute();
}

export interface ApplyMountsInput {
  db: Kysely<Database>;
  config: Pick<Config, 'dataDir' | 'storageBackend' | 'sandbox' | 'taskUid' | 'taskGid'>;
  blobs: BlobStore;
  session: Pick<SessionRow, 'id' | 'workspace_id'>;
  mountsDir: string;
  /** Outside the sandbox, on the same file system as mountsDir. */
  stagingDir: string;
  /** Stops between mounts (the session is being stopped). */
  signal?: AbortSignal;
}

/** Applies every mount of the session still `mounting`, one by one; each ends `mounted` or `failed` with why. */
export async function applyPendingMounts(input: ApplyMountsInput): Promise<void> {
  const { db, session, signal } = input;
  const rows = await db
    .selectFrom('session_mounts')
    .selectAll()
    .where('session_id', '=', session.id)
    .where('status', '=', 'mounting')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const mount of rows) {
    if (signal?.aborted) return;
    let error: string | null = null;
    try {
      await applyMount(input, mount);
    } catch (e) {
      error = (e as Error).message;
    }
    if (signal?.aborted) return;
    await db
      .updateTable('session_mounts')
      .set({ status: error ? 'failed' : 'mounted', error_message: error, updated_at: new Date().toISOString() })
      .where('id', '=', mount.id)
      .where('status', '=', 'mounting')
      .execute();
  }
}

type MountRow = Selectable<SessionMountTable>;

async function applyMount(input: ApplyMountsInput, mount: MountRow): Promise<void> {
  const { db, config, blobs, session } = input;
  const shown = `${mount.bucket}/${mount.storage_key}`;
  if (mount.item_id) {
    const table = mount.item_kind === 'folder' ? 'folders' : 'files';
    const live = await db.selectFrom(table).select('status').where('id', '=', mount.item_id).executeTakeFirst();
    if (live?.status !== 'ready')
      throw new Error(`The ${mount.item_kind} linked as ${JSON.stringify(mount.name)} was deleted from the File Explorer.`);
  }
  const target = mountPointOf(input.mountsDir, mount.name);
  // Where it appears, below mountsDir; it is made first as <stagingDir>/<mount id>.
  const targetRel = path.relative(path.resolve(input.mountsDir), target);
  const staging = path.join(input.stagingDir, mount.id);
  await removeBeneath(input.stagingDir, mount.id);
  await mkdir(input.stagingDir, { recursive: true, mode: 0o700 });
  try {
    const area = config.storageBackend === 'local' && blobs.localPath ? workspaceAreaOf(config, session.workspace_id) : null;
    const local = area ? path.resolve(await localDirOf(config.dataDir, blobs, mount.bucket, mount.storage_key)) : null;
    if (area && local && isPathInside(area, local)) {
      // Live, read-only: the sandbox has the workspace's area bound at its own path. Jobs write in the
      // area: a link there is followed only while it stays in it, as the File Explorer does.
      const found = await resolveBeneath(area, path.relative(area, local), { links: 'inside' }).then(
        (r) => r.stats,
        (e: unknown) => {
          if (e instanceof BeneathError && e.reason !== 'missing') throw new Error(`${shown} cannot be mounted: ${e.message}.`);
          return null;
        },
      );
      if (!found) throw new Error(`Nothing is stored at ${shown}.`);
      if (found.isDirectory() !== (mount.item_kind === 'folder'))
        throw new Error(`${shown} is a ${found.isDirectory() ? 'folder' : 'file'}, not a ${mount.item_kind}.`);
      await symlinkBeneath(input.stagingDir, mount.id, local);
    } else if (mount.item_kind === 'folder') {
      await mkdir(staging, { mode: 0o700 });
      const pulled = await pullDir(blobs, mount.bucket, mount.storage_key, staging);
      if (pulled.copied === 0 && (await listBeneath(input.stagingDir, mount.id)).length === 0)
        throw new Error(`Nothing is stored under ${shown}/.`);
    } else {
      const object = await blobs.stat(mount.bucket, mount.storage_key);
      if (!object) throw new Error(`Nothing is stored at ${shown}.`);
      await pullFile(blobs, mount.bucket, mount.storage_key, staging, object.lastModified);
    }
    // A copy made while the session runs: given to its host user (a root server's), as its directories were
    // at its start; before it is in the session's reach (a link there is the link's own, never followed).
    const user = taskHostUser(config);
    if (user) await chownTreeBeneath(input.stagingDir, mount.id, user.uid, user.gid);
    await mkdir(input.mountsDir, { recursive: true, mode: 0o700 });
    // Whatever the session put under that name goes, removed beneath the mounts directory's handle (no
    // link is followed, even one swapped in during the removal); rename replaces a link or file.
    await removeBeneath(input.mountsDir, targetRel);
    await renameBeneath(input.stagingDir, mount.id, input.mountsDir, targetRel);
  } finally {
    await removeBeneath(input.stagingDir, mount.id);
  }
}

/** Removes every entry of a directory, following no link; the directory itself stays (it is bound into the sandbox). */
async function clearDir(dir: string): Promise<void> {
  const entries = await listBeneath(dir).catch(() => []);
  for (const entry of entries) await removeBeneath(dir, entry.name);
}

/** The items a session row keeps as JSON; none when it is not a list (an entry without a name or bucket is left out). */
export function parseSessionItems<Given = unknown>(json: string): SessionItem<Given>[] {
  try {
    const items = JSON.parse(json) as SessionItem<Given>[];
    return Array.isArray(items) ? items.filter((i) => i && typeof i.name === 'string' && typeof i.bucket === 'string') : [];
  } catch {
    return [];
  }
}

/** A new mount's row: to be applied by the runner (mounting). */
export function newMountRow(
  row: Pick<SessionRow, 'id' | 'workspace_id'>,
  item: SessionItem,
  source: 'session' | 'link',
  now: string,
): Insertable<SessionMountTable> {
  return {
    id: newObjectId(),
    session_id: row.id,
    workspace_id: row.workspace_id,
    name: item.name,
    item_kind: item.kind,
    storage_provider: isStorageItem(item.given) ? 's3' : 'file',
    item_id: item.itemId,
    bucket: item.bucket,
    storage_key: item.key,
    account: item.account,
    given_json: JSON.stringify(item.given ?? {}),
    source,
    status: 'mounting',
    error_message: null,
    created_at: now,
    updated_at: now,
  };
}

/** Given as a storage item (`{type: S3Folder|S3File, data}`), not a File Explorer one (`{kind, item}`). */
export function isStorageItem(given: unknown): boolean {
  const type = (given as { type?: unknown } | null)?.type;
  return type === 'S3Folder' || type === 'S3File';
}
