import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Name, ObjectId, PaginationMetadata } from './common.js';

export const WORKFLOW_TYPES = ['nextflow', 'wdl', 'docker'] as const;
export type WorkflowType = (typeof WORKFLOW_TYPES)[number];

/** Repository platforms of the wire API; `bitbucket` is accepted as another name of `bitbucketServer`. */
export const GIT_PLATFORMS = ['github', 'gitlab', 'bitbucketServer', 'bitbucket'] as const;
export type GitPlatform = (typeof GIT_PLATFORMS)[number];
export const GitPlatformSchema = Type.Union(GIT_PLATFORMS.map((p) => Type.Literal(p)));

/** Groups that mark a platform module (wire-api §2.8): modules run on fixed queues. */
export const MODULE_GROUPS = [
  'system-tools',
  'data-factory-data-connection-etl',
  'data-factory',
  'data-factory-omics-etl',
  'drug-discovery',
  'data-factory-omics-insights',
  'intermediate',
] as const;

const IdLike = Type.Union([Type.Integer(), Type.String()]);

export const WorkflowRepository = Type.Object({
  platform: Type.String(),
  repositoryId: IdLike,
  name: Type.String(),
  owner: Type.Object({ login: Type.String(), id: IdLike }),
  isPrivate: Type.Boolean(),
  url: Type.String(),
  commit: Type.String(),
  branch: Type.String(),
});

export const Workflow = Type.Object({
  _id: ObjectId,
  name: Type.String(),
  description: Type.String(),
  team: ObjectId,
  owner: Type.Object({ id: ObjectId, name: Type.String(), surname: Type.String(), email: Type.String() }),
  workflowType: Type.String(),
  group: Type.String(),
  isModule: Type.Boolean(),
  archived: Type.Object({ status: Type.Boolean(), archivalTimestamp: Type.Union([IsoTime, Type.Null()]) }),
  repository: Type.Optional(WorkflowRepository),
  mainFile: Type.Union([Type.String(), Type.Null()]),
  importsFile: Type.Optional(Type.String()),
  defaultContainer: Type.Union([Type.String(), Type.Null()]),
  containerName: Type.Optional(Type.String()),
  defaultCommand: Type.Optional(Type.String()),
  processes: Type.Array(Type.Unknown()),
  parametersInfo: Type.Array(Type.Unknown()),
  tags: Type.Array(Type.String()),
  overview: Type.String(),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  priceAmount: Type.Number(),
  priceUnit: Type.String(),
  docsLink: Type.String(),
  isPublic: Type.Boolean(),
  executionConfiguration: Type.Object({
    costLimitsInUsd: Type.Object({ value: Type.Number(), editable: Type.Boolean() }),
  }),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Workflow = Static<typeof Workflow>;

export const MAX_WORKFLOW_PAGE_SIZE = 1000;

export const WorkflowListQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  search: Type.Optional(Type.String({ maxLength: 200 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WORKFLOW_PAGE_SIZE })),
  'archived.status': Type.Optional(Type.Boolean()),
});
export type WorkflowListQuery = Static<typeof WorkflowListQuery>;

export const WorkflowListReply = Type.Object({
  workflows: Type.Array(Workflow),
  paginationMetadata: PaginationMetadata,
});
export type WorkflowListReply = Static<typeof WorkflowListReply>;

/** The body of `POST /api/v2/workflows` (and the legacy v1 route), as the public client sends it. */
export const WorkflowImportBody = Type.Object({
  workflowType: Type.Optional(Type.String()),
  repository: Type.Object({
    platform: Type.Optional(Type.String()),
    repositoryId: Type.Optional(Type.Union([Type.Integer(), Type.String(), Type.Null()])),
    name: Type.Optional(Type.String()),
    owner: Type.Optional(
      Type.Object({ login: Type.Optional(Type.String()), id: Type.Optional(Type.Union([Type.Integer(), Type.String(), Type.Null()])) }),
    ),
    isPrivate: Type.Optional(Type.Boolean()),
    url: Type.String({ minLength: 1, maxLength: 500 }),
    commit: Type.Optional(Type.String()),
    branch: Type.Optional(Type.String()),
  }),
  platform: Type.Optional(Type.String()),
  name: Name,
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  isPublic: Type.Optional(Type.Boolean()),
  mainFile: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  importsFile: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
  defaultContainer: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  processes: Type.Optional(Type.Array(Type.Unknown())),
  docsLink: Type.Optional(Type.String({ maxLength: 2000 })),
  team: Type.Optional(Type.String()),
  executionConfiguration: Type.Optional(
    Type.Object({
      costLimitsInUsd: Type.Optional(
        Type.Object({ value: Type.Optional(Type.Number({ minimum: -1 })), editable: Type.Optional(Type.Boolean()) }),
      ),
    }),
  ),
});
export type WorkflowImportBody = Static<typeof WorkflowImportBody>;

export const IdReply = Type.Object({ _id: ObjectId });

export const PlatformParams = Type.Object({ platform: GitPlatformSchema });

export const PublicRepoQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  repoName: Type.String({ minLength: 1, maxLength: 200 }),
  repoOwner: Type.String({ minLength: 1, maxLength: 300 }),
  host: Type.Optional(Type.String({ maxLength: 300 })),
});
export type PublicRepoQuery = Static<typeof PublicRepoQuery>;

/** github: `{id, name, owner}`; gitlab: `{id, name, namespace}`; bitbucketServer: `{id, name, project}`. */
export const PublicRepoReply = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  defaultBranch: Type.Union([Type.String(), Type.Null()]),
  url: Type.String(),
  owner: Type.Optional(Type.Object({ id: Type.Integer(), login: Type.String() })),
  namespace: Type.Optional(Type.Object({ id: Type.Integer(), full_path: Type.String() })),
  project: Type.Optional(Type.Object({ id: Type.Integer(), key: Type.String() })),
});
export type PublicRepoReply = Static<typeof PublicRepoReply>;

export const WorkflowConfigParams = Type.Object({
  platform: GitPlatformSchema,
  repoName: Type.String({ minLength: 1, maxLength: 200 }),
  repoOwner: Type.String({ minLength: 1, maxLength: 300 }),
});
export const WorkflowConfigQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  host: Type.Optional(Type.String({ maxLength: 300 })),
});
export const WorkflowConfigReply = Type.Object({
  mainFile: Type.Union([Type.String(), Type.Null()]),
  workflowType: Type.Union([Type.String(), Type.Null()]),
});

export const BranchesQuery = Type.Object({
  teamId: Type.String({ minLength: 1 }),
  repositoryIdentifier: Type.String({ minLength: 1, maxLength: 300 }),
  owner: Type.Optional(Type.String({ maxLength: 300 })),
  workflowOwnerId: Type.Optional(Type.String({ maxLength: 100 })),
  branchName: Type.Optional(Type.String({ maxLength: 300 })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
});
export type BranchesQuery = Static<typeof BranchesQuery>;

export const Branch = Type.Object({
  name: Type.String(),
  commit: Type.Object({ sha: Type.String(), url: Type.String() }),
  protected: Type.Boolean(),
});
export const BranchesReply = Type.Object({ branches: Type.Array(Branch), total: Type.Integer() });
export type BranchesReply = Static<typeof BranchesReply>;

export const DockerWorkflowCreateBody = Type.Object(
  {
    workspaceId: ObjectId,
    name: Name,
    containerName: Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z0-9][A-Za-z0-9._/:@-]*$' }),
    defaultCommand: Type.Optional(Type.String({ maxLength: 10000 })),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9-]+$' })),
  },
  { additionalProperties: false },
);
export type DockerWorkflowCreateBody = Static<typeof DockerWorkflowCreateBody>;

export const WorkflowIdParams = Type.Object({ id: ObjectId });
