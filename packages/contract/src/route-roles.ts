import type { RouteId } from './routes.js';
import type { Role } from './schemas/admin.js';

/**
 * Who may call each route of the table. A workspace route names the least workspace role it
 * needs (viewer < member < admin < owner); a route outside any workspace is `public` (no key),
 * `user` (any valid key) or `platformAdmin` (users.isAdmin). The server refuses to start when a
 * route has no entry or an entry of the wrong kind, and the T14 test calls every pair.
 *
 * Per-object rules sit in the services: a member acts only on its own jobs (abort, archive,
 * deletion of job data, resume into a work directory); an admin or owner on any job.
 */
export type RouteAccess = Role | 'public' | 'user' | 'platformAdmin';

/** Workspace roles from least to most. */
export const ROLE_ORDER = ['viewer', 'member', 'admin', 'owner'] as const satisfies readonly Role[];

/** True when `role` (as stored) is `needed` or above; an unknown role is below every role. */
export function hasRole(role: string, needed: Role): boolean {
  return ROLE_ORDER.indexOf(role as Role) >= ROLE_ORDER.indexOf(needed);
}

/** The role that may act on every job of a workspace, not only its own. */
export const ANY_JOB_ROLE: Role = 'admin';

export const ROUTE_ROLES = {
  health: 'public',
  openapi: 'public',
  // The dashboard's sign-in: login takes an API key in its body, session and logout the session cookie (checked by the handlers).
  authLogin: 'public',
  authSession: 'public',
  authLogout: 'public',
  userMe: 'user',
  dockerRegistryPut: 'user',
  dockerRegistryDelete: 'user',
  // The teamId is optional, so the job's workspace membership is checked in the query; a read.
  jobGet: 'user',

  userSearch: 'viewer',
  projectList: 'viewer',
  workflowList: 'viewer',
  workflowGet: 'viewer',
  gitPublicRepo: 'viewer',
  gitWorkflowConfig: 'viewer',
  gitBranches: 'viewer',
  jobList: 'viewer',
  jobRequestPayload: 'viewer',
  jobArrayFileMetadata: 'viewer',
  jobEvents: 'viewer',
  storageObject: 'viewer',
  jobCosts: 'viewer',
  instanceTypeList: 'viewer',
  queueList: 'viewer',
  systemQueueList: 'viewer',
  datasetList: 'viewer',
  datasetItems: 'viewer',
  virtualFolderItems: 'viewer',
  folderList: 'viewer',
  bucketContents: 'viewer',
  containerContents: 'viewer',
  cloudAzure: 'viewer',
  // The engine server's status: any role, and the workspace's engine token (Bearer).
  cromwellStatus: 'viewer',
  // A private session is shown to its owner and the workspace's admins only (checked in the services).
  sessionList: 'viewer',
  sessionGet: 'viewer',
  sessionMounts: 'viewer',

  projectCreate: 'member',
  workflowImport: 'member',
  workflowImportLegacy: 'member',
  jobSubmit: 'member',
  // Own jobs only, unless admin (checked per job in the services).
  jobAbort: 'member',
  jobArchive: 'member',
  jobDataDelete: 'member',
  dataItemMove: 'member',
  fileRename: 'member',
  folderRename: 'member',
  virtualFolderCreate: 'member',
  s3FolderCreate: 'member',
  s3FileCreate: 'member',
  azureFolderCreate: 'member',
  azureFileCreate: 'member',
  fileDelete: 'member',
  folderDelete: 'member',
  datasetUpload: 'member',
  // Starting the engine is part of running a WDL job (the public client's job run does it), so a
  // member may; so may the engine token, which acts as a member.
  cromwellSwitch: 'member',
  sessionCreate: 'member',
  // Own sessions only, unless admin (checked per session in the services).
  sessionResume: 'member',
  sessionAbort: 'member',
  // Opening a session's UI runs code in it: a member who sees the session (checked per session, and on every proxied request).
  sessionUiLink: 'member',
  // Linking data into a session changes what runs there: own sessions only, unless admin (checked per session).
  sessionMount: 'member',
  sessionMountV1: 'member',

  // Hiding a workflow hides it from every member's job submission: a workspace decision.
  workflowArchive: 'admin',
  workflowUnarchive: 'admin',
  // The engine token starts and stops the workspace's engine server: a workspace credential.
  engineTokenShow: 'admin',
  engineTokenRotate: 'admin',

  adminUserList: 'platformAdmin',
  adminUserCreate: 'platformAdmin',
  adminUserRevoke: 'platformAdmin',
  adminWorkspaceList: 'platformAdmin',
  adminWorkspaceCreate: 'platformAdmin',
  adminMemberList: 'platformAdmin',
  adminMemberCreate: 'platformAdmin',
  adminMemberRevoke: 'platformAdmin',
  adminApiKeyList: 'platformAdmin',
  adminApiKeyCreate: 'platformAdmin',
  adminApiKeyRevoke: 'platformAdmin',
  adminDockerWorkflowCreate: 'platformAdmin',
  adminQueueCreate: 'platformAdmin',
  adminQueueList: 'platformAdmin',
  adminHpcCreate: 'platformAdmin',
  adminHpcList: 'platformAdmin',
  // The image cache is the host's, shared by every workspace's jobs.
  adminImageList: 'platformAdmin',
  adminImagePrune: 'platformAdmin',
  // The driver and the Cromwell URL (a host the server connects to) are the operator's choice.
  adminEngineSet: 'platformAdmin',
} as const satisfies Record<RouteId, RouteAccess>;
