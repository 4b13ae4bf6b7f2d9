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
  dockerRegistriesCredentials: Type.Array(Type.Unknown()),
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
