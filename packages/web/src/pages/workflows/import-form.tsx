import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { BranchList } from './branch-list';
import { checkRepository, PLATFORMS, workflowsKey, type Platform, type RepositoryCheck } from './workflows-api';

interface Fields {
  url: string;
  name: string;
  platform: Platform;
  mainFile: string;
}

const EMPTY: Fields = { url: '', name: '', platform: 'github', mainFile: '' };

/**
 * Imports a workflow from git in two steps, as `runyard workflow import` does: the repository is
 * checked first (it exists, its default branch, its branches), then the workflow is imported.
 */
export function ImportForm() {
  const api = useApi();
  const qc = useQueryClient();
  const { workspaceId } = useWorkspace();
  const [fields, setFields] = useState<Fields>(EMPTY);
  const [imported, setImported] = useState<string | null>(null);
  const [after, setAfter] = useState<RepositoryCheck | null>(null);
  const check = useMutation({ mutationFn: (f: Fields) => checkRepository(api, workspaceId, f.url.trim(), f.platform) });
  const importing = useMutation({
    mutationFn: async (f: Fields) => {
      await api.importWorkflow(workspaceId, {
        workflowUrl: f.url.trim(),
        workflowName: f.name.trim(),
        repositoryPlatform: f.platform,
        ...(f.mainFile.trim() && { mainFile: f.mainFile.trim() }),
      });
      // Now that a workflow comes from it, the server lists the repository's branches.
      return checkRepository(api, workspaceId, f.url.trim(), f.platform);
    },
    onSuccess: (after, f) => {
      setImported(f.name.trim());
      setFields(EMPTY);
      check.reset();
      setAfter(after);
      void qc.invalidateQueries({ queryKey: workflowsKey(workspaceId) });
    },
  });

  const set = (key: keyof Fields) => (e: { target: { value: string } }) => {
    setFields((f) => ({ ...f, [key]: e.target.value }));
    // A change of repository needs a new check.
    if (key === 'url' || key === 'platform') check.reset();
  };
  const checked = check.data;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setImported(null);
    setAfter(null);
    if (!checked) check.mutate(fields);
    else importing.mutate(fields);
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="import-title">
      <h2 id="import-title">Import a workflow from git</h2>
      <div className="form-grid">
        <label htmlFor="import-url">Repository URL</label>
        <input
          id="import-url"
          type="url"
          required
          placeholder="https://github.com/owner/repository"
          value={fields.url}
          onChange={set('url')}
        />
        <label htmlFor="import-platform">Platform</label>
        <select id="import-platform" value={fields.platform} onChange={set('platform')}>
          {PLATFORMS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
        <label htmlFor="import-name">Workflow name</label>
        <input id="import-name" maxLength={100} value={fields.name} onChange={set('name')} />
        <label htmlFor="import-main">Main file (optional)</label>
        <input id="import-main" placeholder="found on the default branch when empty" value={fields.mainFile} onChange={set('mainFile')} />
      </div>
      {checked && (
        <div className="notice" role="status">
          <p>
            Repository{' '}
            <strong>
              {checked.owner}/{checked.repo.name}
            </strong>
            , default branch <code>{checked.repo.defaultBranch ?? 'none'}</code>.
          </p>
          {checked.branches ? (
            <BranchList reply={checked.branches} defaultBranch={checked.repo.defaultBranch} label="Branches of the repository" />
          ) : (
            <p className="muted">{checked.branchesNote}</p>
          )}
        </div>
      )}
      {check.isError && <ErrorNotice error={check.error} title="Repository not readable" />}
      {importing.isError && <ErrorNotice error={importing.error} title="Not imported" />}
      <div className="actions">
        {checked ? (
          <>
            <button type="submit" disabled={importing.isPending || !fields.name.trim()}>
              {importing.isPending ? 'Importing…' : 'Import workflow'}
            </button>
            <button type="button" className="secondary" onClick={() => check.reset()}>
              Back
            </button>
          </>
        ) : (
          <button type="submit" disabled={check.isPending || !fields.url.trim()}>
            {check.isPending ? 'Reading the repository…' : 'List branches'}
          </button>
        )}
      </div>
      <div role="status" className="status-line">
        {imported && `Imported the workflow "${imported}".`}
      </div>
      {after?.branches && (
        <BranchList reply={after.branches} defaultBranch={after.repo.defaultBranch} label={`Branches of ${imported ?? 'the workflow'}`} />
      )}
    </form>
  );
}
