import type { BranchesReply, PublicRepoReply, Workflow, WorkflowListReply } from '@runyard/contract';
import { RunyardValueError } from './errors.js';
import { toTable, type Table } from './table.js';
import type { ApiTransport } from './api-transport.js';
import { MODULE_GROUPS } from '@runyard/contract';

export interface WorkflowListOptions {
  getAll?: boolean;
  page?: number;
  /** 1 to 1000, default 10. */
  pageSize?: number;
  maxPageSize?: number;
  /** true lists archived workflows, false (default) the others. */
  archivedStatus?: boolean;
}

function checkPageSize(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1 || value > 1000)
    throw new RunyardValueError(`${name} must be an integer from 1 to 1000, not ${value}.`);
}

/** get_workflow_list: the public client's count-then-fetch algorithm. */
export async function getWorkflowList(t: ApiTransport, workspaceId: string, options: WorkflowListOptions = {}): Promise<Workflow[]> {
  const { getAll = true, page = 1, pageSize = 10, maxPageSize = 100, archivedStatus = false } = options;
  checkPageSize('page_size', pageSize);
  checkPageSize('max_page_size', maxPageSize);
  if (!Number.isInteger(page) || page < 1) throw new RunyardValueError(`page must be a positive integer, not ${page}.`);
  const fetchPage = (size: number, p: number) =>
    t.request<WorkflowListReply>('GET', '/api/v3/workflows', {
      query: { teamId: workspaceId, pageSize: size, page: p, 'archived.status': archivedStatus },
    });
  if (!getAll) return (await fetchPage(pageSize, page)).workflows;
  const first = await fetchPage(10, 1);
  const count = first.paginationMetadata['Pagination-Count'];
  if (count <= maxPageSize) return (await fetchPage(count, 1)).workflows;
  const out: Workflow[] = [];
  for (let p = 1; p <= Math.ceil(count / maxPageSize); p++) {
    const batch = (await fetchPage(maxPageSize, p)).workflows;
    out.push(...batch);
    if (!batch.length) break;
  }
  return out;
}

/** get_workflow_max_pagination: how many workflows the name search matches (0 is an error). */
export async function getWorkflowMaxPagination(t: ApiTransport, workspaceId: string, workflowName: string): Promise<number> {
  const r = await t.request<WorkflowListReply>('GET', '/api/v3/workflows', { query: { teamId: workspaceId, search: workflowName } });
  const count = r.paginationMetadata['Pagination-Count'];
  if (!count) throw new RunyardValueError(`No workflow found with name "${workflowName}" in workspace "${workspaceId}".`);
  return count;
}

/** Every workflow the name search returns: the count, then one call of that size (or pages). */
async function searchWorkflows(t: ApiTransport, workspaceId: string, workflowName: string, maxPageSize: number): Promise<Workflow[]> {
  const count = await getWorkflowMaxPagination(t, workspaceId, workflowName);
  if (count <= maxPageSize) {
    return (
      await t.request<WorkflowListReply>('GET', '/api/v3/workflows', {
        query: { teamId: workspaceId, search: workflowName, pageSize: count },
      })
    ).workflows;
  }
  const out: Workflow[] = [];
  for (let p = 1; p <= Math.ceil(count / maxPageSize); p++) {
    const r = await t.request<WorkflowListReply>('GET', '/api/v3/workflows', {
      query: { teamId: workspaceId, search: workflowName, pageSize: maxPageSize, page: p },
    });
    out.push(...r.workflows);
  }
  return out;
}

function newest(workflows: Workflow[]): Workflow {
  const time = (w: Workflow) => Date.parse(w.createdAt ?? w.updatedAt) || Date.parse(w.updatedAt) || 0;
  return workflows.reduce((a, b) => (time(b) > time(a) ? b : a));
}

/** Exactly one workflow of that name; with `last` the newest of several. */
function pickOne(matches: Workflow[], workflowName: string, last: boolean): Workflow {
  if (!matches.length) throw new RunyardValueError(`No workflow found with name "${workflowName}".`);
  if (matches.length > 1 && !last) {
    throw new RunyardValueError(
      `More than one workflow found with name "${workflowName}". Use "last" to choose the most recently imported one.`,
    );
  }
  return matches.length === 1 ? matches[0] : newest(matches);
}

/** get_workflow_content: the workflow named exactly `workflowName`. */
export async function getWorkflowContent(
  t: ApiTransport,
  workspaceId: string,
  workflowName: string,
  { last = false, maxPageSize = 100 }: { last?: boolean; maxPageSize?: number } = {},
): Promise<Workflow> {
  checkPageSize('max_page_size', maxPageSize);
  const matches = (await searchWorkflows(t, workspaceId, workflowName, maxPageSize)).filter((w) => w.name === workflowName);
  if (!last && new Set(matches.map((w) => w.workflowType)).size > 1) {
    throw new RunyardValueError(
      `Workflows named "${workflowName}" have different types: ${[...new Set(matches.map((w) => w.workflowType))].join(', ')}.`,
    );
  }
  return pickOne(matches, workflowName, last);
}

/** workflow_content_query: one field of the named workflow (dotted paths such as `repository.url` allowed). */
export async function workflowContentQuery(
  t: ApiTransport,
  workspaceId: string,
  workflowName: string,
  query = 'workflowType',
  last = false,
): Promise<unknown> {
  const workflow = await getWorkflowContent(t, workspaceId, workflowName, { last });
  let value: unknown = workflow;
  for (const key of query.split('.')) {
    if (value === null || typeof value !== 'object' || !(key in value)) {
      throw new RunyardValueError(`Field "${query}" not found in workflow "${workflowName}".`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export async function detectWorkflow(t: ApiTransport, workflowName: string, workspaceId: string, last = false): Promise<string> {
  return String(await workflowContentQuery(t, workspaceId, workflowName, 'workflowType', last));
}

/** is_module: true for a platform module (its group is one of the module groups). */
export async function isModule(t: ApiTransport, workflowName: string, workspaceId: string, last = false): Promise<boolean> {
  const group = await workflowContentQuery(t, workspaceId, workflowName, 'group', last);
  return (MODULE_GROUPS as readonly string[]).includes(String(group));
}

export interface WorkflowIdLookup {
  workspaceId: string;
  name: string;
  mainfile?: string;
  importsfile?: string;
  repositoryPlatform?: string;
  last?: boolean;
}

/**
 * fetch id by name for workflows: a docker workflow of that name wins; otherwise the platform
 * must match (default github), and the main and imports files when given. Archived ones never match.
 */
export async function fetchWorkflowId(t: ApiTransport, lookup: WorkflowIdLookup): Promise<string> {
  const { workspaceId, name, mainfile, importsfile, repositoryPlatform = 'github', last = false } = lookup;
  const all = (await searchWorkflows(t, workspaceId, name, 100)).filter((w) => w.name === name && !w.archived.status);
  const docker = all.find((w) => w.workflowType === 'docker');
  if (docker) return docker._id;
  const matches = all.filter(
    (w) =>
      w.repository?.platform === repositoryPlatform &&
      (!mainfile || w.mainFile === mainfile) &&
      (!importsfile || !w.importsFile || w.importsFile === importsfile),
  );
  if (!matches.length) throw new RunyardValueError(`No workflow found with name "${name}" on platform "${repositoryPlatform}".`);
  return pickOne(matches, name, last)._id;
}

export const WORKFLOW_COLUMNS = [
  '_id',
  'name',
  'archived.status',
  'mainFile',
  'workflowType',
  'group',
  'repository.name',
  'repository.platform',
  'repository.url',
  'repository.isPrivate',
] as const;

/** process_workflow_list: the selected columns that are present in the list, or every field. */
export function processWorkflowList(workflows: Workflow[], allFields = false): Table {
  const table = toTable(workflows, WORKFLOW_COLUMNS, allFields);
  if (allFields) return table;
  const present = table.columns.filter((c) => table.rows.some((r) => r[c] !== undefined));
  return { columns: present, rows: table.rows.map((r) => Object.fromEntries(present.map((c) => [c, r[c]]))) };
}

export interface BranchOptions {
  repositoryIdentifier: string | number;
  owner: string;
  workflowOwnerId?: string;
  strategy?: string;
  branchName?: string;
  page?: number;
  limit?: number;
}

/** get_branches: every page until `total` branches are fetched (or a page comes back empty). */
export async function getBranches(t: ApiTransport, workspaceId: string, o: BranchOptions): Promise<BranchesReply> {
  const { strategy = 'github', branchName = '', limit = 100 } = o;
  let page = o.page ?? 1;
  const branches: BranchesReply['branches'] = [];
  let total = 0;
  for (;;) {
    const r = await t.request<BranchesReply>('GET', `/api/v1/git/${encodeURIComponent(strategy)}/getBranches`, {
      query: {
        repositoryIdentifier: String(o.repositoryIdentifier),
        owner: o.owner,
        workflowOwnerId: o.workflowOwnerId ?? '',
        branchName,
        page,
        limit,
        teamId: workspaceId,
      },
    });
    total = r.total;
    branches.push(...r.branches);
    if (!r.branches.length || branches.length >= total) break;
    page += 1;
  }
  return { branches, total };
}

/** Owner and repository name as the public client reads them from a repository URL. */
export function parseRepositoryUrl(workflowUrl: string, platform: string): { host: string; owner: string; repo: string } {
  let url: URL;
  try {
    url = new URL(workflowUrl);
  } catch {
    throw new RunyardValueError(`"${workflowUrl}" is not a repository URL.`);
  }
  const parts = url.pathname
    .replace(/\.git$/, '')
    .split('/')
    .filter(Boolean);
  if (platform === 'bitbucketServer') {
    const i = parts.indexOf('projects');
    if (i < 0 || parts[i + 2] !== 'repos' || !parts[i + 3]) {
      throw new RunyardValueError(`"${workflowUrl}" is not a Bitbucket Server repository URL (…/projects/KEY/repos/NAME).`);
    }
    return { host: url.origin, owner: parts[i + 1], repo: parts[i + 3] };
  }
  if (parts.length < 2) throw new RunyardValueError(`"${workflowUrl}" does not name an owner and a repository.`);
  return { host: url.origin, owner: parts.slice(0, -1).join('/'), repo: parts[parts.length - 1] };
}

export interface ImportOptions {
  workflowUrl: string;
  workflowName: string;
  repositoryPlatform?: 'github' | 'gitlab' | 'bitbucketServer';
  docsLink?: string;
  costLimit?: number;
  description?: string;
  /** The main file; found by the server when not given. */
  mainFile?: string;
  importsFile?: string;
}

/** The CLI's import: getPublicRepo, then getWorkflowConfig for the main file, then POST /api/v2/workflows. */
export async function importWorkflow(t: ApiTransport, workspaceId: string, o: ImportOptions): Promise<string> {
  const platform = o.repositoryPlatform ?? 'github';
  const { host, owner, repo } = parseRepositoryUrl(o.workflowUrl, platform);
  const info = await t.request<PublicRepoReply>('GET', `/api/v1/git/${platform}/getPublicRepo`, {
    query: { repoName: repo, repoOwner: owner, host, teamId: workspaceId },
  });
  let mainFile = o.mainFile ?? null;
  if (!mainFile) {
    const cfg = await t.request<{ mainFile: string | null }>(
      'GET',
      `/api/v1/git/${platform}/getWorkflowConfig/${encodeURIComponent(repo)}/${owner.split('/').map(encodeURIComponent).join('%2F')}`,
      { query: { host, teamId: workspaceId } },
    );
    mainFile = cfg.mainFile;
  }
  const ownerInfo =
    info.owner ??
    (info.namespace && { id: info.namespace.id, login: info.namespace.full_path }) ??
    (info.project && { id: info.project.id, login: info.project.key });
  const body = {
    workflowType: 'nextflow',
    repository: {
      platform,
      repositoryId: platform === 'bitbucketServer' ? info.name : info.id,
      name: info.name,
      owner: { login: ownerInfo?.login ?? owner, id: ownerInfo?.id ?? null },
      isPrivate: true,
      url: o.workflowUrl.replace(/\.git$/, ''),
      commit: '',
      branch: '',
    },
    name: o.workflowName,
    description: o.description ?? '',
    isPublic: false,
    mainFile,
    ...(o.importsFile && { importsFile: o.importsFile }),
    defaultContainer: null,
    processes: [],
    docsLink: o.docsLink ?? '',
    team: workspaceId,
    executionConfiguration: { costLimitsInUsd: { value: o.costLimit ?? 30, editable: true } },
  };
  return (await t.request<{ _id: string }>('POST', '/api/v2/workflows', { query: { teamId: workspaceId }, body }))._id;
}

export interface LegacyImportOptions {
  workflowUrl: string;
  workflowName: string;
  repositoryProjectId: number;
  workflowDocsLink?: string;
  repositoryId?: number;
}

/** workflow_import: the legacy library call, POST /api/v1/workflows (github and bitbucket URLs only). */
export async function workflowImport(t: ApiTransport, workspaceId: string, o: LegacyImportOptions): Promise<string> {
  const host = new URL(o.workflowUrl).hostname.toLowerCase();
  const platform = host === 'github.com' ? 'github' : host === 'bitbucket.org' ? 'bitbucketServer' : null;
  if (!platform) throw new RunyardValueError(`Only github.com and bitbucket.org URLs can be imported this way, not "${host}".`);
  if (platform === 'github' && o.repositoryId === undefined)
    throw new RunyardValueError('repository_id is required for github repositories.');
  const { owner, repo } = parseRepositoryUrl(o.workflowUrl, 'github');
  const body = {
    workflowType: 'nextflow',
    repository: {
      platform,
      repositoryId: o.repositoryId ?? repo,
      name: repo,
      owner: { login: owner, id: o.repositoryProjectId },
      isPrivate: true,
      url: o.workflowUrl.replace(/\.git$/, ''),
      commit: '',
      branch: '',
    },
    name: o.workflowName,
    description: '',
    isPublic: false,
    mainFile: null,
    defaultContainer: null,
    processes: [],
    docsLink: o.workflowDocsLink ?? '',
    team: workspaceId,
  };
  return (await t.request<{ _id: string }>('POST', '/api/v1/workflows', { query: { teamId: workspaceId }, body }))._id;
}

export function archiveWorkflow(t: ApiTransport, workspaceId: string, workflowId: string, archived: boolean): Promise<Workflow> {
  return t.request('PUT', `/api/runyard/workflows/${encodeURIComponent(workflowId)}/${archived ? 'archive' : 'unarchive'}`, {
    query: { teamId: workspaceId },
  });
}
