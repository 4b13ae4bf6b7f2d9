import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, ObjectId } from './common.js';

/** The WDL engines a workspace's engine server can use (the server's `engines/wdl/` drivers). */
export const ENGINE_DRIVERS = ['toil', 'cromwell', 'miniwdl'] as const;
export type EngineDriver = (typeof ENGINE_DRIVERS)[number];
export const EngineDriver = Type.Union(ENGINE_DRIVERS.map((d) => Type.Literal(d)));

/** The lifecycle of a workspace's engine server (CloudOS's Cromwell server). */
export const ENGINE_STATUSES = ['Stopped', 'Starting', 'Running', 'Stopping'] as const;
export type EngineStatus = (typeof ENGINE_STATUSES)[number];

/** What `PUT /api/v1/cromwell/{action}` does: `restart` (cloudos `cromwell start`) or `stop`. */
export const ENGINE_ACTIONS = ['restart', 'stop'] as const;
export type EngineAction = (typeof ENGINE_ACTIONS)[number];

/**
 * A workspace's WDL engine server, as `GET /api/v1/cromwell` answers it. `_id` is what a WDL job
 * sends as `cromwellCloudResources`; `status` is what the public client polls.
 */
export const EngineServer = Type.Object({
  _id: ObjectId,
  status: Type.Union(ENGINE_STATUSES.map((s) => Type.Literal(s))),
  driver: EngineDriver,
  /** The Cromwell server's base URL (cromwell driver only). */
  url: Type.Optional(Type.String()),
  workspace: ObjectId,
  /** Why the last start failed, or what a stop waits for. */
  statusMessage: Type.Optional(Type.String()),
  /** A Cromwell server that Runyard runs itself (RUNYARD_CROMWELL_JAR): where its process runs, since when. */
  managedProcess: Type.Optional(Type.Object({ host: Type.String(), port: Type.Integer(), startedAt: IsoTime })),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type EngineServer = Static<typeof EngineServer>;

/** The action is checked by the handler, so that an unknown one gets a message naming the two there are. */
export const EngineActionParams = Type.Object({ action: Type.String() });

/** The workspace's engine token (`Authorization: Bearer <token>` on the Cromwell routes). */
export const EngineToken = Type.Object({
  _id: ObjectId,
  workspace: ObjectId,
  token: Type.String(),
});
export type EngineToken = Static<typeof EngineToken>;

/** `PUT /api/runyard/admin/engine`: the driver of a workspace's engine server, and the Cromwell URL for the cromwell driver. */
export const EngineSetBody = Type.Object(
  {
    workspaceId: ObjectId,
    driver: EngineDriver,
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type EngineSetBody = Static<typeof EngineSetBody>;
