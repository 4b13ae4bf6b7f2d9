import {
  type BranchesQuery,
  type BranchesReply,
  type GitPlatform,
  type PublicRepoQuery,
  type PublicRepoReply,
  type WorkflowImportBody,
} from '@runyard/contract';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { detectWorkflow, WorkflowDetectionError } from '../git/detect.js';
import { ownerNumericId, repositoryNumericId } from '../git/url-policy.js';
import type { Database } from '../store/schema.js';
import type { Context } from './context.js';
import { canonicalPlatform, remoteRefs, repositoryUrlOf, resolveRepository, snapshotOf } from './repositories.js';
import { DEFAULT_WORKFLOW_COST_LIMIT_USD, insertWorkflow } from './workflows.js';

/**
 * Imports a workflow from git: the URL is checked against the policy, the repository is read
 * with git (default branch, files), its type and main file detected, then the workflow stored.
 */
export async function importWorkflow(
  db: Kysely<Database>,
  config: Config,
  ctx: Context,
  body: WorkflowImportBody,
): Promise<{ _id: string }> {
  const repo = resolveRepository(config, body.repository.url);
  const refs = await remoteRefs(repo);
  const ref = body.repository.commit || body.repository.branch || refs.defaultBranch;
  if (!ref) throw new AppError('WORKFLOW_NOT_DETECTED', `The repository ${repo.url} has no default branch; name a branch.`);
  const snapshot = await snapshotOf(config, ctx.workspaceId, repo, ref);
  let detected;
  try {
    detected = await detectWorkflow(snapshot, { mainFile: body.mainFile || undefined, importsFile: body.importsFile || undefined });
  } catch (e) {
    if (e instanceof WorkflowDetectionError) throw new AppError('WORKFLOW_NOT_DETECTED', e.message);
    throw e;
  }
  // The same repository may be imported again under the same name, as CloudOS allows: clients pick the newest with `last`.
  const platform = canonicalPlatform(body.repository.platform ?? body.platform ?? 'github');
  const id = await insertWorkflow(db, {
    workspace_id: ctx.workspaceId,
    user_id: ctx.user.id,
    name: body.name,
    description: body.description ?? '',
    workflow_type: detected.workflowType,
    group_name: 'user',
    main_file: detected.mainFile,
    imports_file: detected.importsFile ?? null,
    platform,
    repository_url: repo.url,
    repository_name: repo.name,
    repository_owner: repo.ownerPath,
    repository_id: String(repositoryNumericId(repo.url)),
    repository_owner_id: String(ownerNumericId(repo.host, repo.ownerPath)),
    default_branch: body.repository.branch || refs.defaultBranch,
    is_private: body.repository.isPrivate ? 1 : 0,
    container_name: null,
    default_command: null,
    docs_link: body.docsLink ?? '',
    is_public: body.isPublic ? 1 : 0,
    cost_limit_usd: body.executionConfiguration?.costLimitsInUsd?.value ?? DEFAULT_WORKFLOW_COST_LIMIT_USD,
    archived: 0,
    archived_at: null,
  });
  return { _id: id };
}

/** getPublicRepo: the repository exists and is readable; its ids in the platform's shape. */
export async function getPublicRepo(config: Config, platform: GitPlatform, q: PublicRepoQuery): Promise<PublicRepoReply> {
  const repo = resolveRepository(config, repositoryUrlOf(platform, q.host, q.repoOwner, q.repoName));
  const refs = await remoteRefs(repo);
  const id = repositoryNumericId(repo.url);
  const ownerId = ownerNumericId(repo.host, repo.ownerPath);
  const base = { id, name: repo.name, defaultBranch: refs.defaultBranch, url: repo.url };
  switch (canonicalPlatform(platform)) {
    case 'gitlab':
      return { ...base, namespace: { id: ownerId, full_path: repo.ownerPath } };
    case 'bitbucketServer':
      return { ...base, project: { id: ownerId, key: repo.ownerPath } };
    default:
      return { ...base, owner: { id: ownerId, login: repo.ownerPath } };
  }
}

/** getWorkflowConfig: the main file and type found on the default branch (nulls when none is found). */
export async function getWorkflowConfig(
  config: Config,
  ctx: Context,
  platform: GitPlatform,
  repoName: string,
  repoOwner: string,
  host: string | undefined,
): Promise<{ mainFile: string | null; workflowType: string | null }> {
  const repo = resolveRepository(config, repositoryUrlOf(platform, host, repoOwner, repoName));
  const refs = await remoteRefs(repo);
  if (!refs.defaultBranch) return { mainFile: null, workflowType: null };
  const snapshot = await snapshotOf(config, ctx.workspaceId, repo, refs.defaultBranch);
  try {
    const found = await detectWorkflow(snapshot, {});
    return { mainFile: found.mainFile, workflowType: found.workflowType };
  } catch (e) {
    if (e instanceof WorkflowDetectionError) return { mainFile: null, workflowType: null };
    throw e;
  }
}

/** getBranches: branches of a repository that a workflow of this workspace was imported from. */
export async function getBranches(db: Kysely<Database>, config: Config, ctx: Context, q: BranchesQuery): Promise<BranchesReply> {
  let source = db
    .selectFrom('workflows')
    .select(['repository_url'])
    .where('workspace_id', '=', ctx.workspaceId)
    .where('repository_url', 'is not', null)
    .where((eb) => eb.or([eb('repository_id', '=', q.repositoryIdentifier), eb('repository_name', '=', q.repositoryIdentifier)]));
  if (q.owner) source = source.where('repository_owner', '=', q.owner);
  const row = await source.executeTakeFirst();
  if (!row?.repository_url) {
    throw new AppError(
      'REPOSITORY_NOT_FOUND',
      `No workflow of this workspace was imported from repository ${quoted(q.repositoryIdentifier)}.`,
    );
  }
  const repo = resolveRepository(config, row.repository_url);
  const refs = await remoteRefs(repo);
  const wanted = (q.branchName ?? '').toLowerCase();
  const all = refs.branches.filter((b) => !wanted || b.name.toLowerCase().includes(wanted)).sort((a, b) => a.name.localeCompare(b.name));
  const limit = q.limit ?? 100;
  const page = q.page ?? 1;
  return {
    branches: all
      .slice((page - 1) * limit, page * limit)
      .map((b) => ({ name: b.name, commit: { sha: b.sha, url: `${repo.url}/commit/${b.sha}` }, protected: false })),
    total: all.length,
  };
}
