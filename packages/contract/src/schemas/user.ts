import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, ObjectId } from './common.js';

export const WorkspaceSummary = Type.Object({
  id: ObjectId,
  name: Type.String(),
  role: Type.String(),
});

export const UserMe = Type.Object({
  id: ObjectId,
  _id: ObjectId,
  username: Type.String(),
  name: Type.String(),
  surname: Type.String(),
  email: Type.String(),
  isAdmin: Type.Boolean(),
  /** The docker registry accounts the user linked (never their password). */
  dockerRegistriesCredentials: Type.Array(Type.Object({ registry: Type.String(), username: Type.String(), createdAt: Type.String() })),
  workspaces: Type.Array(WorkspaceSummary),
  createdAt: IsoTime,
});
export type UserMe = Static<typeof UserMe>;

export const UserSearchQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});

export const UserSearchItem = Type.Object({
  id: ObjectId,
  _id: ObjectId,
  username: Type.String(),
  name: Type.String(),
  surname: Type.String(),
  email: Type.String(),
});
export const UserSearchReply = Type.Object({ items: Type.Array(UserSearchItem) });
export type UserSearchReply = Static<typeof UserSearchReply>;

/** `PUT /api/runyard/users/me/docker-registries`: links (or replaces) the caller's account at a registry. */
export const DockerRegistryBody = Type.Object(
  {
    registry: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' }),
    username: Type.String({ minLength: 1, maxLength: 255 }),
    password: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);
export type DockerRegistryBody = Static<typeof DockerRegistryBody>;

export const DockerRegistryReply = Type.Object({ registry: Type.String(), username: Type.String(), createdAt: Type.String() });

export const DockerRegistryQuery = Type.Object({ registry: Type.String({ minLength: 1, maxLength: 255 }) });
export type DockerRegistryQuery = Static<typeof DockerRegistryQuery>;
