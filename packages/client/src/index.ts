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
