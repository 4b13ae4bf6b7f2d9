import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { AdminUser } from '@runyard/contract';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';
import { ConfirmStep } from '../../components/confirm-step';
import { NewKeyForm } from './new-key-form';
import { RoleNeeded } from './role-needed';

/** Every user of the platform (a platform administrator's): list, create, disable, and a first API key for a new user. */
export function UsersSection() {
  const access = useAdminAccess();
  return (
    <section aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      {access.platformAdmin ? (
        <>
          <NewUserForm />
          <UserTable />
        </>
      ) : (
        <RoleNeeded need="platformAdmin" to="list, create or disable users" />
      )}
    </section>
  );
}

/** The users (every caller of the admin area shares this list: members' user picker too). */
export function useUsers() {
  const api = useApi();
  return useQuery({ queryKey: adminKeys.users(), queryFn: () => api.admin.listUsers(), placeholderData: keepPreviousData });
}

function NewUserForm() {
  const api = useApi();
  const queries = useQueryClient();
  const id = useId();
  const [form, setForm] = useState({ username: '', email: '', name: '', surname: '', isAdmin: false });
  const [made, setMade] = useState<AdminUser | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api.admin.createUser({
        username: form.username.trim(),
        email: form.email.trim(),
        ...(form.name.trim() && { name: form.name.trim() }),
        ...(form.surname.trim() && { surname: form.surname.trim() }),
        ...(form.isAdmin && { isAdmin: true }),
      }),
    onSuccess: (user) => {
      setMade(user);
      setForm({ username: '', email: '', name: '', surname: '', isAdmin: false });
      void queries.invalidateQueries({ queryKey: adminKeys.users() });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const field = (key: 'username' | 'email' | 'name' | 'surname', label: string, extra: Record<string, unknown> = {}) => (
    <>
      <label htmlFor={`${id}-${key}`}>{label}</label>
      <input
        id={`${id}-${key}`}
        value={form[key]}
        onChange={(e) => setForm((f) => ({ ...f, [key]: e.target.value }))}
        autoComplete="off"
        {...extra}
      />
    </>
  );
  return (
    <div className="card">
      <h3>New user</h3>
      <form className="admin-form" onSubmit={submit}>
        <div className="form-grid">
          {field('username', 'Username', { required: true, maxLength: 100, pattern: '[A-Za-z0-9][A-Za-z0-9._@\\-]*' })}
          {field('email', 'Email', { required: true, type: 'email', maxLength: 200 })}
          {field('name', 'First name', { maxLength: 200 })}
          {field('surname', 'Last name', { maxLength: 200 })}
          <span aria-hidden="true" />
          <label className="admin-check">
            <input type="checkbox" checked={form.isAdmin} onChange={(e) => setForm((f) => ({ ...f, isAdmin: e.target.checked }))} />{' '}
            Platform administrator
          </label>
        </div>
        {create.isError && <ErrorNotice error={create.error} title="User not created" />}
        <div className="actions">
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create user'}
          </button>
        </div>
      </form>
      {made && (
        <div className="admin-made" role="status">
          <p>
            User <strong>{made.username}</strong> created. Make an API key for them to sign in with (and add them to a workspace under{' '}
            <em>Members and roles</em>):
          </p>
          <NewKeyForm userId={made.id} forWhom={made.username} />
        </div>
      )}
    </div>
  );
}

function UserTable() {
  const users = useUsers();
  if (users.isPending) return <Loading what="users" />;
  if (users.isError) return <ErrorNotice error={users.error} title="Could not list users" />;
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Users</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Platform admin</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.data.map((user) => (
            <UserRow key={user.id} user={user} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function UserRow({ user }: { user: AdminUser }) {
  const api = useApi();
  const { userId } = useAdminAccess();
  const queries = useQueryClient();
  const [panel, setPanel] = useState<'' | 'disable' | 'key'>('');
  const disable = useMutation({
    mutationFn: () => api.admin.deactivateUser(user.id),
    onSuccess: () => {
      setPanel('');
      void queries.invalidateQueries({ queryKey: adminKeys.users() });
    },
  });
  const self = user.id === userId;
  return (
    <>
      <tr>
        <td className="admin-name">
          {user.username}
          {self && <span className="muted"> (you)</span>}
        </td>
        <td>{[user.name, user.surname].filter(Boolean).join(' ') || <span className="muted">—</span>}</td>
        <td>{user.email}</td>
        <td>{user.isAdmin ? 'yes' : 'no'}</td>
        <td>
          {user.active ? <span className="status status-ready">active</span> : <span className="status status-aborted">disabled</span>}
        </td>
        <td>
          <Time iso={user.createdAt} />
        </td>
        <td>
          {user.active && panel === '' && (
            <div className="admin-row-buttons">
              <button type="button" className="secondary" onClick={() => setPanel('key')} aria-label={`New API key for ${user.username}`}>
                New key
              </button>
              {!self && (
                <button type="button" className="secondary" onClick={() => setPanel('disable')} aria-label={`Disable ${user.username}`}>
                  Disable
                </button>
              )}
            </div>
          )}
        </td>
      </tr>
      {panel !== '' && (
        <tr className="admin-row-panel">
          <td colSpan={7}>
            {panel === 'disable' ? (
              <>
                <ConfirmStep
                  question={
                    <>
                      Disable <strong>{user.username}</strong>? Their API keys and sign-ins stop working at once; their jobs and data stay.
                    </>
                  }
                  confirmLabel="Disable user"
                  busy={disable.isPending}
                  onConfirm={() => disable.mutate()}
                  onCancel={() => setPanel('')}
                />
                {disable.isError && <ErrorNotice error={disable.error} title="Not disabled" />}
              </>
            ) : (
              <>
                <NewKeyForm userId={user.id} forWhom={user.username} />
                <button type="button" className="secondary" onClick={() => setPanel('')}>
                  Close
                </button>
              </>
            )}
          </td>
        </tr>
      )}
    </>
  );
}
