import { Type, type TSchema } from '@sinclair/typebox';
import * as admin from './schemas/admin.js';
import { ErrorBody, TeamIdQuery } from './schemas/common.js';
import * as folder from './schemas/folder.js';
import * as job from './schemas/job.js';
import * as project from './schemas/project.js';
import * as user from './schemas/user.js';
import * as workflow from './schemas/workflow.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * One row per HTTP operation. The server registers its handlers from this table, the OpenAPI
 * document is generated from it, and docs/operations.md names its ids.
 */
export interface RouteSpec {
  method: HttpMethod;
  path: string;
  summary: string;
  /** `apikey`: the apikey header; `none`: open (health, OpenAPI). */
  auth: 'apikey' | 'none';
  /** The route is workspace-scoped: `teamId` must name a workspace of the caller. */
  workspace: boolean;
  /** Only an administrator may call it. */
  admin?: boolean;
  /** Runyard's own routes refuse unknown body keys; CloudOS wire routes ignore them. */
  own: boolean;
  status: number;
  params?: TSchema;
  querystring?: TSchema;
  body?: TSchema;
  response?: TSchema;
}

const route = <R extends RouteSpec>(r: R): R => r;

export const ROUTES = {
  health: route({
    method: 'GET', path: '/api/runyard/health', summary: 'Liveness and database check',
    auth: 'none', workspace: false, own: true, status: 200, response: admin.Health,
  }),
  openapi: route({
    method: 'GET', path: '/api/runyard/openapi.json', summary: 'This OpenAPI document',
    auth: 'none', workspace: false, own: true, status: 200,
  }),
  userMe: route({
    method: 'GET', path: '/api/v1/users/me', summary: 'The calling user',
    auth: 'apikey', workspace: false, own: false, status: 200, response: user.UserMe,
  }),
  userSearch: route({
    method: 'GET', path: '/api/v1/users/search-assist', summary: 'Find members of a workspace by username or name',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: user.UserSearchQuery, response: user.UserSearchReply,
  }),
  projectList: route({
    method: 'GET', path: '/api/v2/projects', summary: 'List or search projects',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: project.ProjectListQuery, response: project.ProjectListReply,
  }),
  projectCreate: route({
    method: 'POST', path: '/api/v1/projects', summary: 'Create a project',
    auth: 'apikey', workspace: true, own: false, status: 200,
    body: project.ProjectCreateBody, response: project.Project,
  }),
  adminUserList: route({
    method: 'GET', path: '/api/runyard/admin/users', summary: 'List users',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    response: Type.Object({ users: Type.Array(admin.AdminUser) }),
  }),
  adminUserCreate: route({
    method: 'POST', path: '/api/runyard/admin/users', summary: 'Create a user',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 201,
    body: admin.AdminUserCreateBody, response: admin.AdminUser,
  }),
  adminUserRevoke: route({
    method: 'DELETE', path: '/api/runyard/admin/users/:id', summary: 'Deactivate a user (their keys stop working)',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    params: admin.IdParams, response: admin.AdminUser,
  }),
  adminWorkspaceList: route({
    method: 'GET', path: '/api/runyard/admin/workspaces', summary: 'List workspaces',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    response: Type.Object({ workspaces: Type.Array(admin.AdminWorkspace) }),
  }),
  adminWorkspaceCreate: route({
    method: 'POST', path: '/api/runyard/admin/workspaces', summary: 'Create a workspace',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 201,
    body: admin.AdminWorkspaceCreateBody, response: admin.AdminWorkspace,
  }),
  adminMemberList: route({
    method: 'GET', path: '/api/runyard/admin/members', summary: 'List memberships',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    querystring: admin.AdminMemberQuery, response: Type.Object({ members: Type.Array(admin.AdminMember) }),
  }),
  adminMemberCreate: route({
    method: 'POST', path: '/api/runyard/admin/members', summary: 'Add a user to a workspace, or change their role',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 201,
    body: admin.AdminMemberCreateBody, response: admin.AdminMember,
  }),
  adminMemberRevoke: route({
    method: 'DELETE', path: '/api/runyard/admin/members/:workspaceId/:userId', summary: 'Remove a user from a workspace',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    params: admin.MemberParams, response: admin.AdminMember,
  }),
  adminApiKeyList: route({
    method: 'GET', path: '/api/runyard/admin/apikeys', summary: 'List API keys (never their secrets)',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    querystring: admin.AdminApiKeyQuery, response: Type.Object({ apikeys: Type.Array(admin.AdminApiKey) }),
  }),
  adminApiKeyCreate: route({
    method: 'POST', path: '/api/runyard/admin/apikeys', summary: 'Create an API key; the secret is shown once',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 201,
    body: admin.AdminApiKeyCreateBody, response: admin.AdminApiKeyCreated,
  }),
  adminApiKeyRevoke: route({
    method: 'DELETE', path: '/api/runyard/admin/apikeys/:id', summary: 'Revoke an API key',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    params: admin.IdParams, response: admin.AdminApiKey,
  }),
  workflowList: route({
    method: 'GET', path: '/api/v3/workflows', summary: 'List or search workflows',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: workflow.WorkflowListQuery, response: workflow.WorkflowListReply,
  }),
  workflowGet: route({
    method: 'GET', path: '/api/runyard/workflows/:id', summary: 'One workflow',
    auth: 'apikey', workspace: true, own: true, status: 200,
    params: workflow.WorkflowIdParams, querystring: TeamIdQuery, response: workflow.Workflow,
  }),
  workflowImport: route({
    method: 'POST', path: '/api/v2/workflows', summary: 'Import a workflow from a git repository',
    auth: 'apikey', workspace: true, own: false, status: 200,
    body: workflow.WorkflowImportBody, response: workflow.IdReply,
  }),
  workflowImportLegacy: route({
    method: 'POST', path: '/api/v1/workflows', summary: 'Import a workflow (legacy form)',
    auth: 'apikey', workspace: true, own: false, status: 200,
    body: workflow.WorkflowImportBody, response: workflow.IdReply,
  }),
  workflowArchive: route({
    method: 'PUT', path: '/api/runyard/workflows/:id/archive', summary: 'Archive a workflow',
    auth: 'apikey', workspace: true, own: true, status: 200,
    params: workflow.WorkflowIdParams, querystring: TeamIdQuery, response: workflow.Workflow,
  }),
  workflowUnarchive: route({
    method: 'PUT', path: '/api/runyard/workflows/:id/unarchive', summary: 'Unarchive a workflow',
    auth: 'apikey', workspace: true, own: true, status: 200,
    params: workflow.WorkflowIdParams, querystring: TeamIdQuery, response: workflow.Workflow,
  }),
  gitPublicRepo: route({
    method: 'GET', path: '/api/v1/git/:platform/getPublicRepo', summary: 'Check a repository exists and get its ids',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: workflow.PlatformParams, querystring: workflow.PublicRepoQuery, response: workflow.PublicRepoReply,
  }),
  gitWorkflowConfig: route({
    method: 'GET', path: '/api/v1/git/:platform/getWorkflowConfig/:repoName/:repoOwner', summary: 'Find the main file of a repository',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: workflow.WorkflowConfigParams, querystring: workflow.WorkflowConfigQuery, response: workflow.WorkflowConfigReply,
  }),
  gitBranches: route({
    method: 'GET', path: '/api/v1/git/:platform/getBranches', summary: 'Branches of a repository a workflow was imported from',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: workflow.PlatformParams, querystring: workflow.BranchesQuery, response: workflow.BranchesReply,
  }),
  adminDockerWorkflowCreate: route({
    method: 'POST', path: '/api/runyard/admin/workflows/docker', summary: 'Create a container workflow for bash jobs',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 201,
    body: workflow.DockerWorkflowCreateBody, response: workflow.Workflow,
  }),
  jobSubmit: route({
    method: 'POST', path: '/api/v2/jobs', summary: 'Submit a job',
    auth: 'apikey', workspace: true, own: false, status: 200,
    body: job.JobSubmitBody, response: job.JobSubmitReply,
  }),
  jobList: route({
    method: 'GET', path: '/api/v2/jobs', summary: 'List jobs with filters',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: job.JobListQuery,
  }),
  jobGet: route({
    method: 'GET', path: '/api/v1/jobs/:id', summary: 'A job document (teamId optional)',
    auth: 'apikey', workspace: false, own: false, status: 200,
    params: job.JobIdParams, querystring: job.JobGetQuery,
  }),
  jobRequestPayload: route({
    method: 'GET', path: '/api/v1/jobs/:id/request-payload', summary: 'The original submission body of a job',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: job.JobIdParams, querystring: TeamIdQuery,
  }),
  jobAbort: route({
    method: 'PUT', path: '/api/v2/jobs/:id/abort', summary: 'Abort a job (forceAbort stops it at once)',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: job.JobIdParams, querystring: job.JobAbortQuery,
  }),
  jobArchive: route({
    method: 'PUT', path: '/api/v1/jobs', summary: 'Archive or unarchive jobs',
    auth: 'apikey', workspace: true, own: false, status: 200,
    body: job.JobArchiveBody, response: job.SuccessReply,
  }),
  queueList: route({
    method: 'GET', path: '/api/v1/teams/aws/v2/job-queues', summary: 'Job queues of the workspace',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: TeamIdQuery, response: Type.Array(job.JobQueue),
  }),
  systemQueueList: route({
    method: 'GET', path: '/api/v1/teams/aws/v2/system-job-queues', summary: 'Queues of platform modules',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: TeamIdQuery, response: Type.Array(job.JobQueue),
  }),
  adminQueueCreate: route({
    method: 'POST', path: '/api/runyard/admin/queues', summary: 'Create a job queue in a workspace',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 201,
    body: job.QueueCreateBody, response: job.JobQueue,
  }),
  adminQueueList: route({
    method: 'GET', path: '/api/runyard/admin/queues', summary: 'List job queues',
    auth: 'apikey', workspace: false, admin: true, own: true, status: 200,
    querystring: admin.AdminMemberQuery, response: Type.Object({ queues: Type.Array(job.JobQueue) }),
  }),
  datasetList: route({
    method: 'GET', path: '/api/v2/datasets', summary: 'The datasets of a project: Data, Analyses Results, Cohorts',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: folder.DatasetListQuery, response: folder.DatasetListReply,
  }),
  datasetItems: route({
    method: 'GET', path: '/api/v1/datasets/:id/items', summary: 'Folders and files in a dataset or folder (status filter repeatable)',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: folder.ItemIdParams, querystring: folder.ItemsQuery, response: folder.ItemsReply,
  }),
  virtualFolderItems: route({
    method: 'GET', path: '/api/v1/folders/virtual/:id/items', summary: 'Folders and files in a virtual folder',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: folder.ItemIdParams, querystring: folder.ItemsQuery, response: folder.ItemsReply,
  }),
  folderList: route({
    method: 'GET', path: '/api/v1/folders', summary: 'A folder by id as a one-element array, empty when its status is not among those asked (also /api/v1/folders/)',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: folder.FoldersQuery, response: Type.Array(folder.FolderItem),
  }),
  bucketContents: route({
    method: 'GET', path: '/api/v1/data-access/s3/bucket-contents', summary: 'One level of a bucket of the workspace',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: folder.BucketContentsQuery, response: folder.StorageContentsReply,
  }),
  containerContents: route({
    method: 'GET', path: '/api/v1/data-access/azure/container-contents', summary: 'One level of an Azure container of the workspace',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: folder.ContainerContentsQuery, response: folder.StorageContentsReply,
  }),
  cloudAzure: route({
    method: 'GET', path: '/api/v1/cloud/azure', summary: 'The Azure storage account of the workspace; {} when storage is not Azure',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: TeamIdQuery, response: folder.CloudAzureReply,
  }),
  dataItemMove: route({
    method: 'PUT', path: '/api/v1/dataItems/move', summary: 'Move a file or folder into a dataset or virtual folder',
    auth: 'apikey', workspace: true, own: false, status: 200,
    querystring: folder.ItemChangeQuery, body: folder.MoveBody, response: job.SuccessReply,
  }),
  fileRename: route({
    method: 'PUT', path: '/api/v1/files/:id', summary: 'Rename a file',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: folder.ItemIdParams, querystring: folder.ItemChangeQuery, body: folder.RenameBody, response: folder.FileItem,
  }),
  folderRename: route({
    method: 'PUT', path: '/api/v1/folders/:id', summary: 'Rename a folder',
    auth: 'apikey', workspace: true, own: false, status: 200,
    params: folder.ItemIdParams, querystring: folder.ItemChangeQuery, body: folder.RenameBody, response: folder.FolderItem,
  }),
  virtualFolderCreate: route({
    method: 'POST', path: '/api/v1/folders/virtual', summary: 'Create a virtual folder, or copy one with copyContentsFrom',
    auth: 'apikey', workspace: true, own: false, status: 201,
    querystring: TeamIdQuery, body: folder.VirtualFolderCreateBody, response: folder.FolderItem,
  }),
  s3FolderCreate: route({
    method: 'POST', path: '/api/v1/folders/s3', summary: 'Add a folder pointing into a bucket of the workspace (copy)',
    auth: 'apikey', workspace: true, own: false, status: 201,
    querystring: TeamIdQuery, body: folder.S3FolderCreateBody, response: folder.FolderItem,
  }),
  s3FileCreate: route({
    method: 'POST', path: '/api/v1/files/s3', summary: 'Add a file pointing to an object of the workspace (copy)',
    auth: 'apikey', workspace: true, own: false, status: 201,
    querystring: TeamIdQuery, body: folder.S3FileCreateBody, response: folder.FileItem,
  }),
  azureFolderCreate: route({
    method: 'POST', path: '/api/v1/folders/azure-blob', summary: 'Add a folder pointing into an Azure container of the workspace (copy)',
    auth: 'apikey', workspace: true, own: false, status: 201,
    querystring: TeamIdQuery, body: folder.AzureFolderCreateBody, response: folder.FolderItem,
  }),
  azureFileCreate: route({
    method: 'POST', path: '/api/v1/files/azure-blob', summary: 'Add a file pointing to an Azure blob of the workspace (copy)',
    auth: 'apikey', workspace: true, own: false, status: 201,
    querystring: TeamIdQuery, body: folder.AzureFileCreateBody, response: folder.FileItem,
  }),
  fileDelete: route({
    method: 'DELETE', path: '/api/v1/files/:id', summary: 'Delete a file (force=true for one managed by Runyard)',
    auth: 'apikey', workspace: true, own: false, status: 204,
    params: folder.ItemIdParams, querystring: folder.ItemDeleteQuery,
  }),
  folderDelete: route({
    method: 'DELETE', path: '/api/v1/folders/:id', summary: 'Delete a folder and what is in it (force=true for one managed by Runyard)',
    auth: 'apikey', workspace: true, own: false, status: 204,
    params: folder.ItemIdParams, querystring: folder.ItemDeleteQuery,
  }),
  jobDataDelete: route({
    method: 'DELETE', path: '/api/v1/jobs/:id/data', summary: "Schedule the deletion of a job's results or work directory",
    auth: 'apikey', workspace: true, own: false, status: 204,
    params: job.JobIdParams, querystring: folder.JobDataDeleteQuery,
  }),
  datasetUpload: route({
    method: 'POST', path: '/api/runyard/datasets/upload', summary: 'Upload a file (the raw request body, application/octet-stream) into Data or a virtual folder in it',
    auth: 'apikey', workspace: true, own: true, status: 201,
    querystring: folder.UploadQuery, response: folder.FileItem,
  }),
} satisfies Record<string, RouteSpec>;

export type RouteId = keyof typeof ROUTES;

export const ERROR_RESPONSE = ErrorBody;
