import type { JobSubmitBody } from '@runyard/contract';
import type { Config } from '../config.js';
import { AppError } from '../errors/app-error.js';
import { quoted } from '../errors/quoted.js';
import { remoteRefs, resolveRepository } from './repositories.js';
import type { WorkflowRow } from './workflows.js';

export interface ResolvedRevision {
  revisionType: 'commit' | 'tag' | 'branch' | 'digest';
  commit: string | null;
  tag: string | null;
  branch: string | null;
  digest?: string;
}

const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * The exact commit a job runs, so it is reproducible: a branch or tag is resolved with
 * ls-remote; a commit must be a full sha; nothing given means the default branch's head.
 * Container workflows have an image instead: `{digest, tag}`.
 */
export async function resolveRevision(
  config: Config,
  workflow: WorkflowRow,
  requested: JobSubmitBody['revision'],
): Promise<ResolvedRevision> {
  // A revisionType names the field to use (a cloned job's revision carries its branch and the
  // commit it resolved to); without one, only one of commit, tag and branch may be given.
  const type = requested?.revisionType;
  if (type && !['commit', 'tag', 'branch', 'digest'].includes(type)) {
    throw new AppError('VALIDATION_FAILED', `revision.revisionType must be commit, tag or branch, not ${quoted(type)}.`);
  }
  const pick = (field: 'commit' | 'tag' | 'branch') => (!type || type === field ? requested?.[field] || null : null);
  const commit = pick('commit');
  const tag = pick('tag');
  const branch = pick('branch');
  if ([commit, tag, branch].filter(Boolean).length > 1) {
    throw new AppError('VALIDATION_FAILED', 'revision: give only one of commit, tag and branch, or say which in revisionType.');
  }
  if (workflow.workflow_type === 'docker') {
    const image = workflow.container_name ?? '';
    const imageTag = image.includes(':') ? image.slice(image.lastIndexOf(':') + 1) : 'latest';
    return { revisionType: 'digest', digest: requested?.digest || '', tag: imageTag, commit: null, branch: null };
  }
  if (!workflow.repository_url) throw new AppError('VALIDATION_FAILED', `Workflow ${quoted(workflow.name)} has no repository to run.`);
  if (commit) {
    if (!FULL_SHA.test(commit))
      throw new AppError('VALIDATION_FAILED', `revision.commit must be a full 40-character commit sha, not ${quoted(commit)}.`);
    return { revisionType: 'commit', commit, tag: null, branch: null };
  }
  const refs = await remoteRefs(resolveRepository(config, workflow.repository_url));
  if (tag) {
    const found = refs.tags.find((t) => t.name === tag);
    if (!found) throw new AppError('VALIDATION_FAILED', `Tag ${quoted(tag)} does not exist in ${workflow.repository_url}.`);
    return { revisionType: 'tag', commit: found.sha, tag, branch: null };
  }
  const name = branch ?? refs.defaultBranch;
  const found = refs.branches.find((b) => b.name === name);
  if (!found) throw new AppError('VALIDATION_FAILED', `Branch ${quoted(name ?? '')} does not exist in ${workflow.repository_url}.`);
  return { revisionType: 'branch', commit: found.sha, tag: null, branch: found.name };
}
