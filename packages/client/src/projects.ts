import type { Project, ProjectListReply } from '@runyard/contract';
import { RunyardValueError } from './errors.js';
import { toTable, type Table } from './table.js';
import type { ApiTransport } from './api-transport.js';

export interface ProjectListOptions {
  /** Every project, across pages (default true); otherwise the one page asked for. */
  getAll?: boolean;
  page?: number;
  /** 1 to 1000, default 10. */
  pageSize?: number;
  /** The page size used when fetching everything, default 100. */
  maxPageSize?: number;
}

function checkPageSize(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > 1000)
    throw new RunyardValueError(`${name} must be an integer from 1 to 1000, not ${value}.`);
}

/** create_project: the new project's id. */
export async function createProject(t: ApiTransport, workspaceId: string, projectName: string): Promise<string> {
  const p = await t.request<Project>('POST', '/api/v1/projects', { query: { teamId: workspaceId }, body: { name: projectName } });
  return p._id;
}

/** get_project_id_from_name: the project named exactly `projectName` (its `_id` is the id). */
export async function getProjectIdFromName(t: ApiTransport, workspaceId: string, projectName: string): Promise<Project> {
  const reply = await t.request<ProjectListReply>('GET', '/api/v2/projects', { query: { teamId: workspaceId, search: projectName } });
  const match = reply.projects.find((p) => p.name === projectName);
  if (!match) throw new RunyardValueError(`Project '${projectName}' was not found in workspace '${workspaceId}'.`);
  return match;
}

/**
 * get_project_list. With getAll it follows the public client's algorithm: one call for `total`,
 * then a single call of that size when it fits in maxPageSize, otherwise pages of maxPageSize.
 */
export async function getProjectList(t: ApiTransport, workspaceId: string, options: ProjectListOptions = {}): Promise<Project[]> {
  const { getAll = true, page = 1, pageSize = 10, maxPageSize = 100 } = options;
  checkPageSize('page_size', pageSize);
  checkPageSize('max_page_size', maxPageSize);
  if (!Number.isInteger(page) || page < 1) throw new RunyardValueError(`page must be a positive integer, not ${page}.`);
  const fetchPage = (size: number, p: number) =>
    t.request<ProjectListReply>('GET', '/api/v2/projects', { query: { teamId: workspaceId, pageSize: size, page: p } });
  if (!getAll) return (await fetchPage(pageSize, page)).projects;
  const first = await fetchPage(10, 1);
  if (first.total <= maxPageSize) return (await fetchPage(first.total, 1)).projects;
  const pages = Math.ceil(first.total / maxPageSize);
  const out: Project[] = [];
  for (let p = 1; p <= pages; p++) {
    const batch = (await fetchPage(maxPageSize, p)).projects;
    out.push(...batch);
    if (batch.length === 0) break;
  }
  return out;
}

export const PROJECT_COLUMNS = [
  '_id',
  'name',
  'user.id',
  'user.name',
  'user.surname',
  'user.email',
  'createdAt',
  'updatedAt',
  'workflowCount',
  'jobCount',
  'notebookSessionCount',
] as const;

/** process_project_list: the selected columns, or every field with allFields. */
export function processProjectList(projects: Project[], allFields = false): Table {
  return toTable(projects, PROJECT_COLUMNS, allFields);
}
