export { RunyardClient, type ClientOptions, type FetchIdByNameOptions } from './client.js';
export { AdminClient } from './admin.js';
export { Transport, encodeQuery, type Verify, type Query, type RequestOptions, type RawResponse } from './transport.js';
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
export { parseJobConfig, readJobConfigFile, stripTrailingComment, type JobConfig, type JobConfigOptions } from './jobs/job-config.js';
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
export { convertNextflowToJson, DEFAULT_INSTANCE_TYPE, ARRAY_FILE_SEPARATORS, type JobBodyInput, type ArrayFileSeparator } from './jobs/job-body.js';
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
