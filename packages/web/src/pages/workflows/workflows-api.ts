import { parseRepositoryUrl, type BranchesReply, type PublicRepoReply, type Workflow, type WorkflowListReply } from '@runyard/client/core';
import type { RunyardApi } from '../../api/client';

export type Platform = 'github' | 'gitlab' | 'bitbucketServer';
export const PLATFORMS: ReadonlyArray<{ value: Platform; label: string }> = [
  { value: 'github', label: 'GitHub' },
  { value: 'gitlab', label: 'GitLab' },
  { value: 'bitbucketServer', label: 'Bitbucket Server' },
];

/** Queries about the workspace's workflows start so (an import or archive refreshes them all). */
export const workflowsKey = (teamId: string) => ['workflows', teamId] as const;

export type ArchivedFilter = 'active' | 'archived' | 'all';

export interface WorkflowPageQuery {
  page: number;
  pageSize: number;
  search: string;
  archived: ArchivedFilter;
}

/** One page of `GET /api/v3/workflows` with its total (getWorkflowList returns the rows only). */
export async function workflowPage(
  api: RunyardApi,
  teamId: string,
  q: WorkflowPageQuery,
): Promise<{ workflows: Workflow[]; total: number }> {
  const reply = await api.request<WorkflowListReply>('GET', '/api/v3/workflows', {
    query: {
      teamId,
      page: q.page,
      pageSize: q.pageSize,
      ...(q.search.trim() && { search: q.search.trim() }),
      ...(q.archived !== 'all' && { 'archived.status': q.archived === 'archived' }),
    },
  });
  return { workflows: reply.workflows, total: reply.paginationMetadata['Pagination-Count'] };
}

/** The branches of a workflow's repository (the CLI's `workflow branches`). */
export function branchesOf(api: RunyardApi, teamId: string, w: Workflow): Promise<BranchesReply> {
  const repo = w.repository!;
  return api.getBranches(teamId, {
    repositoryIdentifier: repo.repositoryId,
    owner: repo.owner.login,
    workflowOwnerId: w.owner.id,
    strategy: repo.platform,
  });
}

export interface RepositoryCheck {
  repo: PublicRepoReply;
  owner: string;
  /** Null when the server lists branches only of repositories a workflow was imported from. */
  branches: BranchesReply | null;
  /** Why branches could not be listed. */
  branchesNote?: string;
}

/**
 * Before an import: the repository exists and can be read (getPublicRepo, as `runyard workflow
 * import` asks first), and its branches (getBranches).
 */
export async function checkRepository(api: RunyardApi, teamId: string, url: string, platform: Platform): Promise<RepositoryCheck> {
  const { host, owner, repo } = parseRepositoryUrl(url, platform);
  const info = await api.request<PublicRepoReply>('GET', `/api/v1/git/${platform}/getPublicRepo`, {
    query: { repoName: repo, repoOwner: owner, host, teamId },
  });
  const login = info.owner?.login ?? info.namespace?.full_path ?? info.project?.key ?? owner;
  try {
    const branches = await api.getBranches(teamId, {
      repositoryIdentifier: platform === 'bitbucketServer' ? info.name : info.id,
      owner: login,
      strategy: platform,
    });
    return { repo: info, owner: login, branches };
  } catch (e) {
    if ((e as { code?: string }).code !== 'REPOSITORY_NOT_FOUND') throw e;
    return {
      repo: info,
      owner: login,
      branches: null,
      branchesNote: 'This server lists the branches of a repository once a workflow has been imported from it.',
    };
  }
}
