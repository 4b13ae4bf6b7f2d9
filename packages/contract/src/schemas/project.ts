import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Name, ObjectId, UserRef } from './common.js';

export const Project = Type.Object({
  _id: ObjectId,
  name: Type.String(),
  user: UserRef,
  team: Type.Object({ id: ObjectId }),
  createdAt: IsoTime,
  updatedAt: IsoTime,
  workflowCount: Type.Integer(),
  jobCount: Type.Integer(),
  notebookSessionCount: Type.Integer(),
  projectData: Type.Array(Type.Unknown()),
  projectJobs: Type.Array(Type.Object({ id: ObjectId })),
  directory: Type.Object({}),
});
export type Project = Static<typeof Project>;

/** The server's largest page, as the wire reference describes (`max_page_size` 1000). */
export const MAX_PROJECT_PAGE_SIZE = 1000;

export const ProjectListQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PROJECT_PAGE_SIZE })),
});
export type ProjectListQuery = Static<typeof ProjectListQuery>;

export const ProjectListReply = Type.Object({
  total: Type.Integer(),
  projects: Type.Array(Project),
});
export type ProjectListReply = Static<typeof ProjectListReply>;

export const ProjectCreateBody = Type.Object({ name: Name });
export type ProjectCreateBody = Static<typeof ProjectCreateBody>;
