import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, ObjectId, PaginationMetadata } from './common.js';
import { MAX_SESSION_MOUNTS, SessionDataItem } from './interactive-sessions.js';

/**
 * Linking folders and files into a running interactive session (wire-api §2.12, the public
 * client's `link`): the v2 batch mount, the v1 single mount and the mounts' statuses.
 */

/**
 * Statuses of a mount: `mounting` while the session's runner applies it (or waits for the session
 * to run), `mounted` once it is under the session's `mounts/<name>`, `failed` (with errorMessage),
 * `unmounted` while the session is paused (it is applied again when it resumes).
 */
export const SESSION_MOUNT_STATUSES = ['mounting', 'mounted', 'failed', 'unmounted'] as const;
export type SessionMountStatus = (typeof SESSION_MOUNT_STATUSES)[number];

/** The exact messages the public client matches on (wire-api §2.12, v1 table). */
export const MOUNT_FOLDER_TYPE_MESSAGE = 'Invalid Supported DataItem folderType. Supported values are S3Folder';
export const MOUNT_SESSION_INACTIVE_MESSAGE = 'Request failed with status code 403';

/** `POST /api/v2/interactive-sessions/{id}/fuse-filesystem/mount`: several items at once, folders and files. */
export const SessionMountBody = Type.Object({
  dataItems: Type.Array(SessionDataItem, { minItems: 1, maxItems: MAX_SESSION_MOUNTS }),
});
export type SessionMountBody = Static<typeof SessionMountBody>;

/** `POST /api/v1/interactive-sessions/{id}/fuse-filesystem/mount`: one folder. */
export const SessionMountV1Body = Type.Object({ dataItem: SessionDataItem });
export type SessionMountV1Body = Static<typeof SessionMountV1Body>;

export const SessionMountsQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  /** Default (and most): MAX_SESSION_MOUNTS, so one page holds every mount of a session. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SESSION_MOUNTS })),
});
export type SessionMountsQuery = Static<typeof SessionMountsQuery>;

/** One mount of a session, with the keys of the reference's fuse file system. */
export const SessionMount = Type.Object({
  _id: ObjectId,
  /** The session. */
  resource: ObjectId,
  /** `s3` for a storage item (S3Folder, S3File), `file` for a File Explorer one (kind Folder, File). */
  storageProvider: Type.Union([Type.Literal('s3'), Type.Literal('file')]),
  kind: Type.Literal('source'),
  /** The File Explorer folder or file, when it is one; null for a storage prefix or object. */
  item: Type.Union([ObjectId, Type.Null()]),
  /** Folder or file. */
  itemType: Type.Union([Type.Literal('folder'), Type.Literal('file')]),
  /** Where it appears in the session (an absolute path; also `~/mounts/<mountName>`). */
  mountPoint: Type.String(),
  mountName: Type.String(),
  readOnly: Type.Boolean(),
  status: Type.Union(SESSION_MOUNT_STATUSES.map((s) => Type.Literal(s))),
  errorMessage: Type.Union([Type.String(), Type.Null()]),
  /** The item as it was given. */
  dataItem: SessionDataItem,
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type SessionMount = Static<typeof SessionMount>;

export const SessionMountsReply = Type.Object({
  fuseFileSystems: Type.Array(SessionMount),
  paginationMetadata: PaginationMetadata,
});
export type SessionMountsReply = Static<typeof SessionMountsReply>;
