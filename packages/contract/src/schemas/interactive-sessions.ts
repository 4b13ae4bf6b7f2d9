import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, ObjectId, PaginationMetadata } from './common.js';

/**
 * Every status of an interactive session, as the wire spells them (wire-api §2.11); the server's
 * scheduler/session-state.ts holds the legal transitions between them. `ready` is a running
 * session, `aborted` a paused one (resumable), `terminated` one that is gone for good.
 */
export const SESSION_STATUSES = ['scheduled', 'initializing', 'setup', 'ready', 'aborting', 'aborted', 'terminated'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** The statuses of a session that is starting or running: the ones a pause (abort) applies to. */
export const ACTIVE_SESSION_STATUSES: readonly SessionStatus[] = ['scheduled', 'initializing', 'setup', 'ready'];

/** `backend` of the configuration: `regular` is Jupyter (the CLI's `--session-type jupyter`). */
export const SESSION_BACKENDS = ['regular', 'vscode', 'rstudio', 'spark'] as const;
export type SessionBackend = (typeof SESSION_BACKENDS)[number];

export const SESSION_PLATFORMS = ['aws', 'azure'] as const;
export type SessionPlatform = (typeof SESSION_PLATFORMS)[number];

/** Why a run of a session was stopped: a pause asked for, its cost limit or auto-shutdown date reached, or a failure. */
export const SESSION_STOP_REASONS = ['user', 'costLimit', 'autoShutdown', 'error'] as const;
export type SessionStopReason = (typeof SESSION_STOP_REASONS)[number];

/** `workspace`: every member sees it (the CLI's `--shared`); `private`: its owner (and the workspace's admins). */
export const SESSION_VISIBILITIES = ['workspace', 'private'] as const;
export type SessionVisibility = (typeof SESSION_VISIBILITIES)[number];

/** Storage of a session's machine, GB (the reference's bounds and default). */
export const SESSION_STORAGE_MIN_GB = 100;
export const SESSION_STORAGE_MAX_GB = 5000;
export const SESSION_STORAGE_DEFAULT_GB = 500;

/** Files and linked folders a session may hold at once (seed §8: mounted items per session). */
export const MAX_SESSION_MOUNTS = 100;

export const MAX_SESSION_PAGE_SIZE = 100;
export const DEFAULT_SESSION_PAGE_SIZE = 10;

const Str = (max: number) => Type.String({ maxLength: max });

/**
 * A file or folder given to a session (wire-api §2.11-§2.12), in one of its shapes:
 * `{kind: "File"|"Folder", item: <id>, name}` (File Explorer), `{type: "S3File", data: {name,
 * s3BucketName, s3ObjectKey}}` or `{type: "S3Folder", data: {name, s3BucketName, s3Prefix}}`
 * (storage; for a File Explorer folder the public client puts the project's name in s3BucketName
 * and the path in the project in s3Prefix). The server checks which shape it is, with a message.
 */
export const SessionDataItem = Type.Object({
  kind: Type.Optional(Str(20)),
  item: Type.Optional(Type.Unknown()),
  name: Type.Optional(Str(1000)),
  type: Type.Optional(Str(20)),
  data: Type.Optional(
    Type.Object({
      name: Type.Optional(Str(1000)),
      s3BucketName: Type.Optional(Str(1000)),
      s3ObjectKey: Type.Optional(Str(4096)),
      s3Prefix: Type.Optional(Str(4096)),
    }),
  ),
});
export type SessionDataItem = Static<typeof SessionDataItem>;

const SessionItems = Type.Array(SessionDataItem, { maxItems: MAX_SESSION_MOUNTS });

const CostLimit = Type.Number({ maximum: 1e9, description: 'US dollars; -1: no limit' });
const ShutdownDate = Type.Union([Type.String({ maxLength: 40 }), Type.Null()], {
  description: 'When the session is stopped (ISO-8601, UTC); null: never',
});

/** `interactiveSessionConfiguration` of a create body, as the public client's build_session_payload makes it. */
export const SessionConfigurationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  backend: Type.Union(SESSION_BACKENDS.map((b) => Type.Literal(b))),
  executionPlatform: Type.Optional(Type.Union(SESSION_PLATFORMS.map((p) => Type.Literal(p)))),
  instanceType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  isCostSaving: Type.Optional(Type.Boolean()),
  storageSizeInGb: Type.Optional(Type.Integer({ minimum: SESSION_STORAGE_MIN_GB, maximum: SESSION_STORAGE_MAX_GB })),
  storageMode: Type.Optional(Str(20)),
  visibility: Type.Optional(Type.Union(SESSION_VISIBILITIES.map((v) => Type.Literal(v)))),
  execution: Type.Optional(
    Type.Object({
      computeCostLimit: Type.Optional(CostLimit),
      autoShutdownAtDate: Type.Optional(ShutdownDate),
    }),
  ),
  /** RStudio only (the reference offers 4.5.2 and 4.4.2). */
  rVersion: Type.Optional(Type.Union([Type.String({ maxLength: 20, pattern: '^[0-9][0-9.]*$' }), Type.Null()])),
  /** Spark only: the cluster the public client describes (master and core instance types, workers). */
  cluster: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  /**
   * Runyard's own (not in the reference): the container image a Jupyter session runs in, pulled with
   * its owner's linked registry account (`ghcr.io/lab/notebook:1`); null or absent: the server's own Jupyter.
   */
  image: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 512 }), Type.Null()])),
});
export type SessionConfigurationBody = Static<typeof SessionConfigurationBody>;

/** `POST /api/v1/interactive-sessions` (wire-api §2.11 "Create"); unknown keys are ignored, as CloudOS does. */
export const SessionCreateBody = Type.Object({
  interactiveSessionConfiguration: SessionConfigurationBody,
  projectId: ObjectId,
  /** Files given to the session (`--mount`). */
  dataItems: Type.Optional(SessionItems),
  /** Always empty (legacy); ignored. */
  fileSystemIds: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_SESSION_MOUNTS })),
  /** Folders linked into the session (`--link`). */
  fuseFileSystems: Type.Optional(SessionItems),
});
export type SessionCreateBody = Static<typeof SessionCreateBody>;

/** `PUT /api/v1/interactive-sessions/{id}/resume` (build_resume_payload): what changes, and more items. */
export const SessionResumeBody = Type.Object({
  dataItems: Type.Optional(SessionItems),
  fileSystemIds: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_SESSION_MOUNTS })),
  fuseFileSystems: Type.Optional(SessionItems),
  newInteractiveSessionConfiguration: Type.Optional(
    Type.Object({
      instanceType: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      storageSizeInGb: Type.Optional(Type.Integer({ minimum: SESSION_STORAGE_MIN_GB, maximum: SESSION_STORAGE_MAX_GB })),
      execution: Type.Optional(
        Type.Object({
          computeCostLimit: Type.Optional(CostLimit),
          autoShutdownAtDate: Type.Optional(ShutdownDate),
        }),
      ),
    }),
  ),
});
export type SessionResumeBody = Static<typeof SessionResumeBody>;

/** `PUT /api/v1/interactive-sessions/{id}/abort` (the CLI's pause); both default as in the public client. */
export const SessionAbortBody = Type.Object({
  /** Save the session's home to the workspace's storage before it stops (default true). */
  uploadOnClose: Type.Optional(Type.Boolean()),
  /** Stop at once, without saving (default false). */
  forceAbort: Type.Optional(Type.Boolean()),
});
export type SessionAbortBody = Static<typeof SessionAbortBody>;

export const SessionIdParams = Type.Object({ id: ObjectId });

/** Where a person opens a ready session's web UI: the platform's proxy, with a short-lived launch token for this person and session. */
export const SessionUiLink = Type.Object({
  _id: ObjectId,
  /**
   * `<sessions origin>/api/runyard/interactive-sessions/<id>/ui/?token=...`: an absolute URL on the sessions' own origin
   * (another host name than the platform's), or only the path when sessions share the platform's origin (join it to the platform's URL).
   */
  url: Type.String(),
  /** When the launch token stops working (it is taken once, for a cookie that lasts longer). */
  expiresAt: IsoTime,
});
export type SessionUiLink = Static<typeof SessionUiLink>;

/** `GET /api/v3/interactive-sessions` (params dict): `status[]` repeats, each a status as the wire spells it. */
export const SessionListQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SESSION_PAGE_SIZE })),
  /** Checked by the service, so that a wrong one gets a message naming the statuses there are. */
  'status[]': Type.Optional(Type.Array(Type.String({ maxLength: 40 }), { maxItems: 20 })),
  onlyOwnerSessions: Type.Optional(Type.Boolean()),
  'archived.status': Type.Optional(Type.Boolean()),
});
export type SessionListQuery = Static<typeof SessionListQuery>;

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const SessionExecution = Type.Object({
  computeCostLimit: Type.Number({ description: 'US dollars; -1: no limit' }),
  computeCostSpent: Type.Number({ description: 'US dollars, every run so far' }),
  autoShutdownAtDate: Nullable(IsoTime),
});

/** The configuration as it stands (the create body's, with defaults and the changes of resumes). */
export const SessionConfiguration = Type.Object({
  name: Type.String(),
  backend: Type.Union(SESSION_BACKENDS.map((b) => Type.Literal(b))),
  executionPlatform: Type.Union(SESSION_PLATFORMS.map((p) => Type.Literal(p))),
  instanceType: Type.String(),
  isCostSaving: Type.Boolean(),
  storageSizeInGb: Type.Integer(),
  storageMode: Type.String(),
  visibility: Type.Union(SESSION_VISIBILITIES.map((v) => Type.Literal(v))),
  execution: Type.Object({ computeCostLimit: Type.Number(), autoShutdownAtDate: Nullable(IsoTime) }),
  rVersion: Type.Optional(Nullable(Type.String())),
  cluster: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  /** Runyard's own: the image the session runs in, as given at creation; absent when it names none. */
  image: Type.Optional(Type.String()),
});
export type SessionConfiguration = Static<typeof SessionConfiguration>;

/**
 * A session document (`GET /api/v2/interactive-sessions/{id}`, the list, create and resume), with
 * every key the public client reads (wire-api §2.11). Money is in US dollars.
 */
export const InteractiveSession = Type.Object({
  _id: ObjectId,
  name: Type.String(),
  status: Type.Union(SESSION_STATUSES.map((s) => Type.Literal(s))),
  /** e.g. awsJupyterNotebook, azureVSCode, awsRstudio, awsJupyterSparkNotebook. */
  interactiveSessionType: Type.String(),
  backend: Type.Union(SESSION_BACKENDS.map((b) => Type.Literal(b))),
  team: ObjectId,
  user: Type.Object({ id: ObjectId, _id: ObjectId, name: Type.String(), surname: Type.String(), email: Type.String() }),
  project: Type.Object({ _id: ObjectId, name: Type.String() }),
  visibility: Type.Union(SESSION_VISIBILITIES.map((v) => Type.Literal(v))),
  resources: Type.Object({
    instanceType: Type.String(),
    isCostSaving: Type.Boolean(),
    storageSizeInGb: Type.Integer(),
    vcpus: Type.Number(),
    memoryGiB: Type.Number(),
  }),
  interactiveSessionConfiguration: SessionConfiguration,
  execution: SessionExecution,
  /** What the session has cost over all its runs, the current one up to now. */
  totalCostInUsd: Type.Number(),
  totalRunningTimeInSeconds: Type.Number(),
  /** The hourly price of its instance type. */
  costPerHour: Type.Number(),
  rVersion: Nullable(Type.String()),
  dataItems: Type.Array(Type.Unknown()),
  fuseFileSystems: Type.Array(Type.Unknown()),
  /** Why it stopped or is stopping, or what failed; null when nothing is to be said. */
  statusMessage: Nullable(Type.String()),
  /** Why its last run was stopped (SESSION_STOP_REASONS); null before any was. */
  stopReason: Type.Union([...SESSION_STOP_REASONS.map((r) => Type.Literal(r)), Type.Null()]),
  archived: Type.Object({ status: Type.Boolean(), archivalTimestamp: Nullable(IsoTime) }),
  createdAt: IsoTime,
  updatedAt: IsoTime,
  /** When its current run began running; null while not running. */
  startedAt: Nullable(IsoTime),
  /** When its home was last saved to storage; null before the first save. */
  lastSavedAt: Nullable(IsoTime),
  /** When it was terminated; null before. */
  endedAt: Nullable(IsoTime),
  /** Runyard's own: the options asked for that have no effect on this server, and why (also at the top of its log). */
  runyardNotes: Type.Array(Type.String()),
});
export type InteractiveSession = Static<typeof InteractiveSession>;

export const SessionListReply = Type.Object({
  sessions: Type.Array(InteractiveSession),
  paginationMetadata: PaginationMetadata,
});
export type SessionListReply = Static<typeof SessionListReply>;
