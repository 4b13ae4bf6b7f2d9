import { useId } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Workflow } from '@runyard/client/core';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';

export type RevisionKind = 'default' | 'branch' | 'tag' | 'commit';
export interface Revision {
  kind: RevisionKind;
  value: string;
}

/** The revision as sendJob takes it: at most one of branch, tag or commit. */
export function revisionOptions(r: Revision): { gitBranch?: string; gitTag?: string; gitCommit?: string } {
  const value = r.value.trim();
  if (r.kind === 'default' || !value) return {};
  return r.kind === 'branch' ? { gitBranch: value } : r.kind === 'tag' ? { gitTag: value } : { gitCommit: value };
}

/** The branches of a git workflow's repository (getBranches, as `runyard workflow branches` lists them). */
function useBranches(workspaceId: string, workflow: Workflow) {
  const api = useApi();
  const repo = workflow.repository;
  return useQuery({
    queryKey: ['jobs-area', 'branches', workspaceId, workflow._id],
    queryFn: () =>
      api.getBranches(workspaceId, {
        repositoryIdentifier: repo!.repositoryId,
        owner: repo!.owner.login,
        workflowOwnerId: workflow.owner.id,
        strategy: repo!.platform,
      }),
    enabled: Boolean(repo),
    staleTime: 60_000,
  });
}

/** Which revision of a git workflow runs: its default branch, another branch (listed), a tag or a commit. */
export function RevisionFields({
  workspaceId,
  workflow,
  value,
  onChange,
}: {
  workspaceId: string;
  workflow: Workflow;
  value: Revision;
  onChange(r: Revision): void;
}) {
  const id = useId();
  const branches = useBranches(workspaceId, workflow);
  const choose = (kind: RevisionKind) =>
    onChange({ kind, value: kind === 'branch' ? (workflow.repository?.branch ?? branches.data?.branches[0]?.name ?? '') : '' });
  return (
    <fieldset className="jobs-revision">
      <legend>Revision</legend>
      {(['default', 'branch', 'tag', 'commit'] as const).map((kind) => (
        <label key={kind} className="check">
          <input type="radio" name={`${id}-kind`} checked={value.kind === kind} onChange={() => choose(kind)} />
          <span>
            {kind === 'default'
              ? `Default branch (${workflow.repository?.branch || 'of the repository'})`
              : kind[0].toUpperCase() + kind.slice(1)}
          </span>
        </label>
      ))}
      {value.kind === 'branch' && (
        <label className="jobs-revision-value">
          <span>Branch</span>
          <select value={value.value} onChange={(e) => onChange({ kind: 'branch', value: e.target.value })} required>
            {branches.data?.branches.map((b) => (
              <option key={b.name} value={b.name}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {(value.kind === 'tag' || value.kind === 'commit') && (
        <label className="jobs-revision-value">
          <span>{value.kind === 'tag' ? 'Tag' : 'Commit'}</span>
          <input value={value.value} onChange={(e) => onChange({ ...value, value: e.target.value })} required maxLength={300} />
        </label>
      )}
      {branches.error !== null && <ErrorNotice error={branches.error} title="Could not list the branches" />}
    </fieldset>
  );
}
