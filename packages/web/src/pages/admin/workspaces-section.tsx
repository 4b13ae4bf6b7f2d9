import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useApi, useSession } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';
import { RoleNeeded } from './role-needed';
import { useUsers } from './users-section';

/** Every workspace of the platform (a platform administrator's): list and create. */
export function WorkspacesSection() {
  const access = useAdminAccess();
  return (
    <section aria-labelledby="workspaces-title">
      <h2 id="workspaces-title">Workspaces</h2>
      {access.platformAdmin ? (
        <>
          <NewWorkspaceForm />
          <WorkspaceTable />
        </>
      ) : (
        <RoleNeeded need="platformAdmin" to="list or create workspaces" />
      )}
    </section>
  );
}

/** Every workspace (also the members section's workspace picker). */
export function useWorkspaces(enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: adminKeys.workspaces(),
    queryFn: () => api.admin.listWorkspaces(),
    placeholderData: keepPreviousData,
    enabled,
  });
}

function NewWorkspaceForm() {
  const api = useApi();
  const { refresh } = useSession();
  const queries = useQueryClient();
  const users = useUsers();
  const id = useId();
  const [name, setName] = useState('');
  const [ownerId, setOwnerId] = useState('');
  const [made, setMade] = useState('');
  const create = useMutation({
    mutationFn: () => api.admin.createWorkspace(name.trim(), ownerId || undefined),
    onSuccess: async (workspace) => {
      setMade(workspace.name);
      setName('');
      await queries.invalidateQueries({ queryKey: adminKeys.all });
      // The owner may be the person here: the workspace picker should list it at once.
      await refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMade('');
    create.mutate();
  };
  return (
    <div className="card">
      <h3>New workspace</h3>
      <form className="admin-form" onSubmit={submit}>
        <div className="form-grid">
          <label htmlFor={`${id}-name`}>Workspace name</label>
          <input id={`${id}-name`} value={name} required maxLength={200} onChange={(e) => setName(e.target.value)} />
          <label htmlFor={`${id}-owner`}>Owner</label>
          <select id={`${id}-owner`} value={ownerId} onChange={(e) => setOwnerId(e.target.value)}>
            <option value="">You</option>
            {(users.data ?? [])
              .filter((u) => u.active)
              .map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
          </select>
        </div>
        {create.isError && <ErrorNotice error={create.error} title="Workspace not created" />}
        <p className="admin-status" role="status">
          {made && `Workspace ${made} created.`}
        </p>
        <div className="actions">
          <button type="submit" disabled={create.isPending || !name.trim()}>
            {create.isPending ? 'Creating…' : 'Create workspace'}
          </button>
        </div>
      </form>
    </div>
  );
}

function WorkspaceTable() {
  const workspaces = useWorkspaces();
  if (workspaces.isPending) return <Loading what="workspaces" />;
  if (workspaces.isError) return <ErrorNotice error={workspaces.error} title="Could not list workspaces" />;
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Workspaces</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Members</th>
            <th scope="col">Created</th>
            <th scope="col">Id</th>
          </tr>
        </thead>
        <tbody>
          {workspaces.data.map((w) => (
            <tr key={w.id}>
              <td className="admin-name">{w.name}</td>
              <td>{w.memberCount}</td>
              <td>
                <Time iso={w.createdAt} />
              </td>
              <td>
                <code>{w.id}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
