import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { createFolder, explorerOf, type ExplorerItem } from './explorer-api';

/** Makes a (virtual) folder in a dataset or in a folder made here. */
export function NewFolderForm({
  projectId,
  parent,
  where,
  onCreated,
}: {
  projectId: string;
  parent: ExplorerItem;
  where: string;
  onCreated(name: string): void;
}) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: (folder: string) => createFolder(explorerOf(api, workspaceId, projectId), parent, folder),
    onSuccess: (_r, folder) => {
      setName('');
      onCreated(folder);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name.trim());
  };
  return (
    <form className="card inline-card" onSubmit={submit} aria-labelledby="new-folder-title">
      <h2 id="new-folder-title">New folder</h2>
      <p className="muted">In {where}.</p>
      <div className="form-grid">
        <label htmlFor="new-folder-name">Folder name</label>
        <input id="new-folder-name" value={name} required maxLength={200} onChange={(e) => setName(e.target.value)} />
      </div>
      {create.isError && <ErrorNotice error={create.error} title="Folder not created" />}
      <div className="actions">
        <button type="submit" disabled={create.isPending || !name.trim()}>
          {create.isPending ? 'Creating…' : 'Create folder'}
        </button>
      </div>
    </form>
  );
}
