import {
  ACTIVE_SESSION_STATUSES,
  MAX_SESSION_MOUNTS,
  MOUNT_FOLDER_TYPE_MESSAGE,
  MOUNT_SESSION_INACTIVE_MESSAGE,
  isoNow,
  type SessionDataItem,
  type SessionMount,
  type SessionMountStatus,
  type SessionMountsQuery,
  type SessionMountsReply,
} from '@runyard/contract';
import type { Kysely, Selectable } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { mountPointOf, newMountRow, parseSessionItems } from '../scheduler/session-mounts.js';
import { sessionDirsOf } from '../scheduler/session-runner.js';
import type { Database, SessionMountTable } from '../store/schema.js';
import { isUniqueViolation } from '../store/unique-violation.js';
import type { Context } from './context.js';
import { FolderTypeError, resolveItem, type ResolvedSessionItem } from './interactive-session-items.js';
import { requireSessionOwnerOrAdmin, sessionRow } from './interactive-sessions.js';

/**
 * Linking folders and files into an interactive session (wire-api §2.12): the v2 batch mount,
 * the v1 single-folder mount and the list of a session's mounts with their statuses. A mount is
 * recorded here (`mounting`) and applied by the session's runner once the session runs
 * (scheduler/session-mounts.ts), which records `mounted`, or `failed` with why.
 *
 * Refusals, with the status and message the public client matches on, and nothing changed:
 *   - a session the caller does not see: 404 SESSION_NOT_FOUND (its message says "session", so
 *     the client does not take it for a missing route and fall back to v1);
 *   - another member's session, for a member: 403 FORBIDDEN;
 *   - a session that is not active (paused, being paused, terminated): 400 SESSION_NOT_ACTIVE,
 *     "Request failed with status code 403" (the client: "session is not active"); a session
 *     being started takes mounts, applied once it is ready;
 *   - a virtual folder: 400 MOUNT_FOLDER_TYPE, "Invalid Supported DataItem folderType. Supported
 *     values are S3Folder";
 *   - a name the session already has, or an item it already has, unless that mount failed (it
 *     is then replaced): 403 MOUNT_EXISTS, "... already exists with 'mounted' status";
 *   - an item the workspace does not have: 400 MOUNT_ITEM_UNKNOWN (not a 404, and not "not
 *     found": the client would take either for a missing v2 route);
 *   - more than MAX_SESSION_MOUNTS mounts, two items of one name, a malformed item: 400.
 */

type MountRow = Selectable<SessionMountTable>;

/** Resolved as at creation, with the mount routes' own refusals. */
async function resolveForMount(
  db: Kysely<Database>,
  workspaceId: string,
  given: SessionDataItem,
  where: string,
): Promise<ResolvedSessionItem> {
  try {
    return await resolveItem(db, workspaceId, given, where);
  } catch (e) {
    if (e instanceof FolderTypeError) throw new AppError('MOUNT_FOLDER_TYPE', MOUNT_FOLDER_TYPE_MESSAGE);
    if (e instanceof AppError && ['FOLDER_NOT_FOUND', 'FILE_NOT_FOUND', 'STORAGE_NOT_FOUND'].includes(e.code)) {
      const said = e.message.replace(/ not found in this workspace\.$/, ' does not exist in this workspace, or it may not read it.');
      throw new AppError('MOUNT_ITEM_UNKNOWN', said === e.message ? `${where}: no such item in this workspace.` : said);
    }
    throw e;
  }
}

const sameItem = (a: { bucket: string; key: string }, b: { bucket: string; key: string }) => a.bucket === b.bucket && a.key === b.key;

/**
 * `POST /api/v2/.../fuse-filesystem/mount` (`form` v2: `dataItems`, folders and files) and
 * `POST /api/v1/.../fuse-filesystem/mount` (`form` v1: one folder). Every item is checked before
 * any is recorded; then all are recorded `mounting`, or none.
 */
export async function mountItems(
  db: Kysely<Database>,
  ctx: Context,
  sessionId: string,
  items: SessionDataItem[],
  form: 'v1' | 'v2',
): Promise<void> {
  const row = await sessionRow(db, ctx, sessionId);
  requireSessionOwnerOrAdmin(ctx, row, 'link folders into');
  if (!(ACTIVE_SESSION_STATUSES as readonly string[]).includes(row.status))
    throw new AppError('SESSION_NOT_ACTIVE', MOUNT_SESSION_INACTIVE_MESSAGE);
  const resolved: ResolvedSessionItem[] = [];
  for (const [i, given] of items.entries()) {
    const where = form === 'v2' ? `dataItems[${i}]` : 'dataItem';
    const item = await resolveForMount(db, ctx.workspaceId, given, where);
    if (form === 'v1' && item.kind !== 'folder')
      throw new AppError('VALIDATION_FAILED', `${where} is a file: the v1 mount links one folder; link files with the v2 mount.`);
    const twin = resolved.find((r) => r.name === item.name);
    if (twin) {
      throw new AppError(
        'VALIDATION_FAILED',
        `Duplicate mount name ${quoted(item.name)}: ${where} and another item would both be mounted with that name; mount names must differ.`,
      );
    }
    resolved.push(item);
  }

  const rows = await db.selectFrom('session_mounts').selectAll().where('session_id', '=', row.id).execute();
  // Items given at creation or resume that have no row yet (they get one when the session next starts).
  const pending = [
    ...parseSessionItems<SessionDataItem>(row.data_items_json),
    ...parseSessionItems<SessionDataItem>(row.fuse_file_systems_json),
  ].filter((p) => !rows.some((r) => r.name === p.name));
  const held = [
    ...rows.map((r) => ({ name: r.name, bucket: r.bucket, key: r.storage_key, status: r.status as SessionMountStatus })),
    ...pending.map((p) => ({ name: p.name, bucket: p.bucket, key: p.key, status: 'mounting' as SessionMountStatus })),
  ];
  const replaced: string[] = [];
  for (const item of resolved) {
    const named = held.find((h) => h.name === item.name);
    const same = held.find((h) => h.status !== 'failed' && sameItem(h, item));
    if (named && named.status !== 'failed') {
      throw new AppError(
        'MOUNT_EXISTS',
        `A mount named ${quoted(item.name)} already exists with '${named.status}' status in this interactive session; mount names must differ.`,
      );
    }
    if (same) {
      throw new AppError(
        'MOUNT_EXISTS',
        `Provided ${item.kind} ${quoted(`${item.bucket}/${item.key}`)} already exists with '${same.status}' status in this interactive session (as ${quoted(same.name)}).`,
      );
    }
    if (named) replaced.push(named.name);
  }
  const total = held.length - replaced.length + resolved.length;
  if (total > MAX_SESSION_MOUNTS) {
    throw new AppError(
      'VALIDATION_FAILED',
      `A session holds at most ${MAX_SESSION_MOUNTS} files and linked folders; it has ${held.length - replaced.length}, and this would make ${total}.`,
    );
  }

  const now = isoNow();
  try {
    await db.transaction().execute(async (tx) => {
      if (replaced.length) {
        await tx
          .deleteFrom('session_mounts')
          .where('session_id', '=', row.id)
          .where('name', 'in', replaced)
          .where('status', '=', 'failed')
          .execute();
      }
      for (const item of resolved) {
        await tx
          .insertInto('session_mounts')
          .values(newMountRow(row, item, 'link', now))
          .execute();
      }
    });
  } catch (e) {
    // Another request linked the same name meanwhile.
    if (isUniqueViolation(e))
      throw new AppError('MOUNT_EXISTS', "A mount of that name already exists with 'mounting' status in this interactive session.");
    throw e;
  }
}

/** `GET /api/v1/interactive-sessions/{id}/fuse-filesystems`: the session's mounts, oldest first (every one in one page by default). */
export async function listMounts(
  db: Kysely<Database>,
  config: Pick<Config, 'dataDir'>,
  ctx: Context,
  sessionId: string,
  q: SessionMountsQuery,
): Promise<SessionMountsReply> {
  const row = await sessionRow(db, ctx, sessionId);
  const page = q.page ?? 1;
  const limit = q.limit ?? MAX_SESSION_MOUNTS;
  const base = db.selectFrom('session_mounts').where('session_id', '=', row.id);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
  ]);
  const mounts = sessionDirsOf(config, row.id).mounts;
  return {
    fuseFileSystems: rows.map((r) => mountDocument(r, mounts)),
    paginationMetadata: { 'Pagination-Count': Number(count.n), 'Pagination-Page': page, 'Pagination-Limit': limit },
  };
}

function mountDocument(r: MountRow, mountsDir: string): SessionMount {
  return {
    _id: r.id,
    resource: r.session_id,
    storageProvider: r.storage_provider === 's3' ? 's3' : 'file',
    kind: 'source',
    item: r.item_id,
    itemType: r.item_kind === 'file' ? 'file' : 'folder',
    mountPoint: mountPointOf(mountsDir, r.name),
    mountName: r.name,
    readOnly: true,
    status: r.status as SessionMountStatus,
    errorMessage: r.error_message,
    dataItem: JSON.parse(r.given_json) as SessionDataItem,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
