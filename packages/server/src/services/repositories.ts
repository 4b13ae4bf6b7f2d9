import path from 'node:path';
import type { GitPlatform } from '@runyard/contract';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { GitCommandError } from '../git/run-git.js';
import { listRemoteRefs, RepositoryUnreachableError } from '../git/ls-remote.js';
import { fetchSnapshot, GitRefError, SnapshotFileError, type RepositorySnapshot } from '../git/snapshot.js';
import { GitUrlError, resolveRepositoryUrl, type GitPolicy, type ResolvedRepository } from '../git/url-policy.js';

/** Default host of each platform, used when the client sends no `host`. */
const PLATFORM_HOSTS: Record<GitPlatform, string> = {
  github: 'https://github.com',
  gitlab: 'https://gitlab.com',
  bitbucket: 'https://bitbucket.org',
  bitbucketServer: 'https://bitbucket.org',
};

/** bitbucket is the other name of bitbucketServer on the wire. */
export function canonicalPlatform(platform: string): string {
  return platform === 'bitbucket' ? 'bitbucketServer' : platform;
}

export function gitPolicy(config: Config): GitPolicy {
  return { allowedHosts: [...config.gitAllowedHosts], rewrites: { ...config.gitUrlRewrites } };
}

/** Refuses a URL the policy does not allow, before any connection, with a 400 that says why. */
export function resolveRepository(config: Config, url: string): ResolvedRepository {
  try {
    return resolveRepositoryUrl(url, gitPolicy(config));
  } catch (e) {
    if (e instanceof GitUrlError) throw new AppError('GIT_URL_REFUSED', e.message);
    throw e;
  }
}

/** The repository URL that getPublicRepo / getWorkflowConfig name by platform, host, owner and name. */
export function repositoryUrlOf(platform: GitPlatform, host: string | undefined, owner: string, name: string): string {
  const base = (host || PLATFORM_HOSTS[platform]).replace(/\/+$/, '');
  if (canonicalPlatform(platform) === 'bitbucketServer' && !base.includes('bitbucket.org'))
    return `${base}/projects/${owner}/repos/${name}`;
  return `${base}/${owner}/${name}`;
}

/** Runs a git operation and turns its failures into clear 4xx errors. */
export async function withGitErrors<T>(repo: ResolvedRepository, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof RepositoryUnreachableError)
      throw new AppError('REPOSITORY_NOT_FOUND', `The repository ${repo.url} could not be found or read: ${e.message}`);
    if (e instanceof GitRefError) throw new AppError('GIT_FAILED', `${repo.url}: ${e.message}`);
    if (e instanceof SnapshotFileError) throw new AppError('WORKFLOW_NOT_DETECTED', `${repo.url}: ${e.message}`);
    if (e instanceof GitCommandError && e.reason !== 'spawn' && e.reason !== 'arguments') {
      throw new AppError('GIT_FAILED', `git could not read ${repo.url}: ${e.message}`);
    }
    throw e;
  }
}

export function remoteRefs(repo: ResolvedRepository) {
  return withGitErrors(repo, () => listRemoteRefs(repo));
}

/** The repository's files at a ref, through the workspace's own git cache. */
export function snapshotOf(config: Config, workspaceId: string, repo: ResolvedRepository, ref: string): Promise<RepositorySnapshot> {
  return withGitErrors(repo, () => fetchSnapshot(repo, ref, path.join(config.dataDir, 'git-cache', workspaceId)));
}
