/**
 * Every error code the server can answer with, its HTTP status and a default message.
 * docs/error-codes.md has one row per code; a test keeps the two in sync.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, message: 'Bad request.' },
  VALIDATION_FAILED: { status: 400, message: 'The request is not valid.' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request body must be application/json.' },
  BODY_TOO_LARGE: { status: 413, message: 'The request body is larger than 1 MiB.' },
  UNAUTHENTICATED: { status: 401, message: 'A valid API key is required in the apikey header.' },
  FORBIDDEN: { status: 403, message: 'You do not have permission to do this.' },
  ADMIN_REQUIRED: { status: 403, message: 'Only an administrator can do this.' },
  TEAM_ID_REQUIRED: { status: 400, message: 'The query parameter teamId is required.' },
  WORKSPACE_NOT_FOUND: { status: 404, message: 'Workspace not found.' },
  WORKSPACE_NAME_TAKEN: { status: 409, message: 'A workspace with this name already exists.' },
  LAST_ADMIN: { status: 409, message: 'The last active administrator cannot be deactivated.' },
  USER_NOT_FOUND: { status: 404, message: 'User not found.' },
  USERNAME_TAKEN: { status: 409, message: 'A user with this username already exists.' },
  EMAIL_TAKEN: { status: 409, message: 'A user with this email already exists.' },
  MEMBERSHIP_NOT_FOUND: { status: 404, message: 'Membership not found.' },
  MEMBERSHIP_EXISTS: { status: 409, message: 'The user is already a member of this workspace.' },
  LAST_OWNER: { status: 409, message: 'A workspace must keep at least one owner.' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API key not found.' },
  PROJECT_NOT_FOUND: { status: 404, message: 'Project not found.' },
  PROJECT_NAME_TAKEN: { status: 409, message: 'A project with this name already exists.' },
  WORKFLOW_NOT_FOUND: { status: 404, message: 'Workflow not found.' },
  WORKFLOW_EXISTS: { status: 409, message: 'A container workflow with this name already exists.' },
  WORKFLOW_NOT_DETECTED: { status: 400, message: 'No workflow could be found in the repository.' },
  GIT_URL_REFUSED: { status: 400, message: 'The repository URL is not allowed.' },
  REPOSITORY_NOT_FOUND: { status: 404, message: 'The repository could not be found or read.' },
  GIT_FAILED: { status: 400, message: 'git could not read the repository.' },
  JOB_NOT_FOUND: { status: 404, message: 'Job not found.' },
  JOB_STATE_CONFLICT: { status: 409, message: 'The job is not in a state that allows this.' },
  QUEUE_NOT_FOUND: { status: 404, message: 'Job queue not found.' },
  QUEUE_NAME_TAKEN: { status: 409, message: 'A job queue with this name already exists in the workspace.' },
  HPC_NOT_FOUND: { status: 404, message: 'HPC cluster not found.' },
  HPC_CLUSTER_NAME_TAKEN: { status: 409, message: 'An HPC cluster with this name is already registered.' },
  DATASET_NOT_FOUND: { status: 404, message: 'Dataset not found.' },
  FOLDER_NOT_FOUND: { status: 404, message: 'Folder not found.' },
  FILE_NOT_FOUND: { status: 404, message: 'File not found.' },
  ITEM_NAME_TAKEN: { status: 409, message: 'An item with this name already exists in this folder.' },
  ITEM_MANAGED: { status: 403, message: 'This item is managed by Runyard; add force=true to change it anyway.' },
  INVALID_DESTINATION: { status: 400, message: 'Items can only be placed in a dataset or a virtual folder.' },
  NOT_A_VIRTUAL_FOLDER: { status: 400, message: 'This folder is not a virtual folder.' },
  FOLDER_IN_USE: { status: 409, message: 'The folder is in use by an active job.' },
  DELETION_CONFLICT: { status: 409, message: 'The folder is already deleted or being deleted.' },
  STORAGE_NOT_FOUND: { status: 404, message: 'Bucket, container or path not found in this workspace.' },
  INVALID_STORAGE_PATH: { status: 400, message: 'The storage path or key is not valid.' },
  REGISTRY_NOT_FOUND: { status: 404, message: 'No docker registry account of yours at this registry.' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range is not within the object.' },
  UPLOAD_TOO_LARGE: { status: 413, message: 'The upload is larger than 5 GiB.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Route not found.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed.' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CODES, value);
}
