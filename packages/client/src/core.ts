// The browser-safe SDK (`@runyard/client/core`): RunyardApi over any ApiTransport (FetchTransport in a
// page), and the types and helpers of its operations. Nothing here imports node (core-bundle.test.ts).
export { RunyardApi, type ApiOptions, type FetchIdByNameOptions } from './api.js';
export { AdminClient } from './admin.js';
export {
  encodeQuery,
  type ApiTransport,
  type ByteStream,
  type HeaderValues,
  type Query,
  type QueryValue,
  type RequestOptions,
  type RawResponse,
  type StreamOptions,
} from './api-transport.js';
export { FetchTransport, type FetchTransportOptions } from './fetch-transport.js';
export * from './errors.js';
export { processProjectList, PROJECT_COLUMNS, type ProjectListOptions } from './projects.js';
export {
  processWorkflowList,
  parseRepositoryUrl,
  WORKFLOW_COLUMNS,
  type WorkflowListOptions,
  type WorkflowIdLookup,
  type ImportOptions,
  type LegacyImportOptions,
  type BranchOptions,
} from './workflows.js';
export { toTable, tableToCsv, flatten, cellText, type Table } from './table.js';
export type * from '@runyard/contract';
export type { WorkflowType, ExecutionPlatform } from './jobs/job-types.js';
export { EXECUTION_PLATFORMS, WORKFLOW_TYPES } from './jobs/job-types.js';
export { parseJobConfig, stripTrailingComment, type JobConfig, type JobConfigOptions } from './jobs/job-config-parser.js';
export {
  parseParameter,
  defaultPrefix,
  prefixOf,
  stripDashes,
  buildTextParameter,
  buildDataItemParameter,
  buildGlobPatternParameter,
  classifyParameterValue,
  arrayFileColumnParameter,
  FILE_EXPLORER_ROOTS,
  type JobParameter,
  type TextValueParameter,
  type DataItemParameter,
  type GlobPatternParameter,
  type ArrayFileColumnParameter,
  type ParameterPrefix,
  type ParsedParameter,
  type ParameterValueClass,
  type ArrayFileColumnResult,
} from './jobs/parameters.js';
export { fixBooleanStrings } from './jobs/boolean-strings.js';
export {
  resolveNextflowVersion,
  defaultNextflowVersion,
  NEXTFLOW_VERSIONS,
  LATEST_NEXTFLOW_VERSION,
  MODULE_NEXTFLOW_VERSION,
  USER_WORKFLOW_NEXTFLOW_VERSION,
  type NextflowVersionRequest,
  type ResolvedNextflowVersion,
} from './jobs/nextflow-version.js';
export {
  convertNextflowToJson,
  DEFAULT_INSTANCE_TYPE,
  ARRAY_FILE_SEPARATORS,
  type JobBodyInput,
  type ArrayFileSeparator,
} from './jobs/job-body.js';
export { parametersFilePayload, type ParametersFilePayload, type FileExplorerIdResolver } from './jobs/parameters-file.js';
export { isStorageFile, parseS3FolderUrl, parseS3FileUrl, type S3FolderItem, type S3FileItem } from './storage/storage-url.js';
export {
  applyCloneOverrides,
  overrideParameter,
  overrideNeedsResolution,
  inferRevision,
  type CloneOverrides,
  type ClonedPayload,
} from './jobs/clone-overrides.js';
export { type JobDocument, type JobPaginationMetadata, type WarningSink, FINISHED_JOB_STATUSES } from './jobs-api/types.js';
export { archivalTimestamp, type ArchiveStatusCheck } from './jobs-api/archive.js';
export { type WaitOptions, type JobCompletion } from './jobs-api/wait.js';
export { JOB_LIST_STATUSES, MAX_JOB_LIST_PAGE_SIZE, type JobListOptions, type JobListResult } from './jobs-api/job-list.js';
export { findQueueByName, queueId, type JobQueueListOptions, type FetchJobQueueIdOptions } from './jobs-api/queues.js';
export { fixPayloadBooleans, JOB_BODY_TEXT_FIELDS } from './jobs-api/payload-booleans.js';
export { type SendJobOptions, type JobConfigReader } from './jobs-api/send-job.js';
export { listObjects, storageObjectPath, STORAGE_OBJECT_ROUTE, type StoredObject } from './storage/list-objects.js';
export { followJob, type FollowJobOptions, type JobEvent } from './jobs-api/job-events.js';
export { retrieveArrayFileColumns, type ArrayFileColumn, type ArrayFileColumns } from './jobs-api/array-file.js';
export { revisionFromJob, type CloneOrResumeOptions } from './jobs-api/clone.js';
export {
  processJobList,
  reorderJobList,
  formatJobTime,
  formatRunTime,
  JOB_COLUMNS,
  JOB_COLUMN_TITLES,
  JOB_CSV_ORDER,
} from './jobs-api/job-table.js';
export { JobHandle } from './jobs-api/job-handle.js';
export { JobNotCompletedError, NoCloudForWorkspaceError, NoResultDirectoriesError } from './job-data/errors.js';
export { findCloud, storageUrl, azureHost, type FoundCloud } from './job-data/cloud.js';
export { getStorageContents } from './job-data/storage-contents.js';
export { parseStorageAddress, type StorageAddress } from './job-data/storage-address.js';
export { LOG_DISPLAY_NAMES } from './job-data/job-logs.js';
export { type WorkdirOptions } from './job-data/job-workdir.js';
export { JOB_DATA_MODES, type JobDataMode, type JobDataDeletion } from './job-data/delete-job-data.js';
export { type ResultsDeletionStatus, type WorkdirDeletionStatus, type StatusItem } from './job-data/deletion-status.js';
export { type ParentJob, type RelatedJob } from './job-data/related-jobs.js';
export {
  DELETION_STATUSES,
  type StorageLocation,
  type JobFolderRef,
  type StorageContent,
  type CloudName,
  type CloudMeta,
  type CloudStorageKeys,
  type FolderRecord,
  type FolderItemsStatus,
} from './job-data/types.js';
export { FileExplorer, UPLOAD_ROUTE, destinationOf, checkName, type Destination, type FoundItem } from './datasets/file-explorer.js';
export { pathSegments, splitParent, requireDataPath, ANALYSES_RESULTS, ANALYSES_RESULTS_ALIAS } from './datasets/paths.js';
export { isFolder, kindOf, type ExplorerItem, type FolderContent, type ItemKind, type ParentKind } from './datasets/types.js';
export type { JobCostsOptions } from './jobs-api/costs.js';
export type { DockerRegistryAccount } from './users.js';
export { type WaitForEngineOptions } from './cromwell.js';
export {
  parseStoragePath,
  type JobLinkOptions,
  type JobLinkResult,
  type LinkOptions,
  type MountPayload,
  type WaitForMountOptions,
} from './session-links.js';
export { SESSION_STATUS_NAMES, wireSessionStatuses, type SessionListOptions, type SessionListResult } from './interactive-sessions.js';
