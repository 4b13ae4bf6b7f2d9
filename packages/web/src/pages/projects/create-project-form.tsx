import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { projectsKey } from './use-projects';

/** `runyard project create --new-project NAME`: a name taken already is the server's 409, shown as it says. */
export function CreateProjectForm({ onCreated }: { onCreated(name: string): void }) {
  const api = useApi();
  const qc = useQueryClient();
  const { workspaceId } = useWorkspace();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: (n: string) => api.createProject(workspaceId, n),
    onSuccess: (_id, n) => {
      setName('');
      onCreated(n);
      void qc.invalidateQueries({ queryKey: projectsKey(workspaceId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name.trim());
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="create-project-title">
      <h2 id="create-project-title">New project</h2>
      <div className="form-grid">
        <label htmlFor="project-name">Project name</label>
        <input id="project-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      {create.isError && <ErrorNotice error={create.error} title="Project not created" />}
      <div className="actions">
        <button type="submit" disabled={create.isPending || !name.trim()}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </div>
    </form>
  );
}
