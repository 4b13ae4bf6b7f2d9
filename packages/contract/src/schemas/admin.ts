import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Name, ObjectId } from './common.js';

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));
export type Role = (typeof ROLES)[number];

const Username = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._@-]*$' });
const Email = Type.String({ minLength: 3, maxLength: 200, pattern: '^[^\\s@]+@[^\\s@]+$' });
const PersonName = Type.String({ maxLength: 200 });

export const AdminUser = Type.Object({
  id: ObjectId,
  username: Type.String(),
  email: Type.String(),
  name: Type.String(),
  surname: Type.String(),
  isAdmin: Type.Boolean(),
  active: Type.Boolean(),
  createdAt: IsoTime,
});
export type AdminUser = Static<typeof AdminUser>;

export const AdminUserCreateBody = Type.Object(
  {
    username: Username,
    email: Email,
    name: Type.Optional(PersonName),
    surname: Type.Optional(PersonName),
    isAdmin: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type AdminUserCreateBody = Static<typeof AdminUserCreateBody>;

export const AdminWorkspace = Type.Object({
  id: ObjectId,
  name: Type.String(),
  createdAt: IsoTime,
  memberCount: Type.Integer(),
});
export type AdminWorkspace = Static<typeof AdminWorkspace>;

export const AdminWorkspaceCreateBody = Type.Object({ name: Name, ownerId: Type.Optional(ObjectId) }, { additionalProperties: false });
export type AdminWorkspaceCreateBody = Static<typeof AdminWorkspaceCreateBody>;

export const AdminMember = Type.Object({
  workspaceId: ObjectId,
  userId: ObjectId,
  username: Type.String(),
  role: Role,
  createdAt: IsoTime,
});
export type AdminMember = Static<typeof AdminMember>;

export const AdminMemberCreateBody = Type.Object(
  { workspaceId: ObjectId, userId: ObjectId, role: Type.Optional(Role) },
  { additionalProperties: false },
);
export type AdminMemberCreateBody = Static<typeof AdminMemberCreateBody>;

export const AdminMemberQuery = Type.Object({ workspaceId: Type.Optional(ObjectId) }, { additionalProperties: false });

export const AdminApiKey = Type.Object({
  id: ObjectId,
  userId: ObjectId,
  name: Type.String(),
  prefix: Type.String({ description: 'the first characters of the key, to recognise it' }),
  createdAt: IsoTime,
  lastUsedAt: Type.Union([IsoTime, Type.Null()]),
  revokedAt: Type.Union([IsoTime, Type.Null()]),
});
export type AdminApiKey = Static<typeof AdminApiKey>;

export const AdminApiKeyCreated = Type.Composite([AdminApiKey, Type.Object({ apikey: Type.String() })]);
export type AdminApiKeyCreated = Static<typeof AdminApiKeyCreated>;

export const AdminApiKeyCreateBody = Type.Object(
  { userId: ObjectId, name: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);
export type AdminApiKeyCreateBody = Static<typeof AdminApiKeyCreateBody>;

export const AdminApiKeyQuery = Type.Object({ userId: Type.Optional(ObjectId) }, { additionalProperties: false });

export const IdParams = Type.Object({ id: ObjectId });
export const MemberParams = Type.Object({ workspaceId: ObjectId, userId: ObjectId });

export const Health = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  time: IsoTime,
});
export type Health = Static<typeof Health>;
