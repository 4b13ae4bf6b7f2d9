import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { AdminMember, Role } from '@runyard/contract';
import { useApi, useSession } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';
import { ConfirmStep } from '../../components/confirm-step';
import { RoleNeeded } from './role-needed';
import { useUsers } from './users-section';
import { useWorkspaces } from './workspaces-section';

const ROLES: Role[] = ['viewer', 'member', 'admin', 'owner'];

/** The members of a workspace and their roles: add a user, change a role, remove. */
export function MembersSection() {
  const access = useAdminAccess();
  const [picked, setPicked] = useState(access.workspaceId);
  const workspaces = useWorkspaces(access.platformAdmin);
  const pickerId = useId();
  if (!access.platformAdmin) {
    return (
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members and roles</h2>
        <RoleNeeded
          need="platformAdmin"
          to="add members to a workspace or change their roles (the server keeps this to platform administrators)"
        />
      </section>
    );
  }
  const options = workspaces.data ?? [{ id: access.workspaceId, name: access.workspaceName }];
  const name = options.find((w) => w.id === picked)?.name ?? access.workspaceName;
  return (
    <section aria-labelledby="members-title">
      <h2 id="members-title">Members and roles</h2>
      <div className="admin-toolbar">
        <label htmlFor={pickerId}>Workspace</label>
        <select id={pickerId} value={picked} onChange={(e) => setPicked(e.target.value)}>
          {options.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </div>
      <Members workspaceId={picked} workspaceName={name} />
    </section>
  );
}

function useMembers(workspaceId: string) {
  const api = useApi();
  return useQuery({
    queryKey: adminKeys.members(workspaceId),
    queryFn: () => api.admin.listMembers(workspaceId),
    placeholderData: keepPreviousData,
  });
}

/** After a change of memberships: the lists, and the signed-in user's own workspaces and roles (the picker, the menus). */
function useMembershipChanged() {
  const queries = useQueryClient();
  const { refresh } = useSession();
  const { userId } = useAdminAccess();
  return async (member: { userId: string }) => {
    await queries.invalidateQueries({ queryKey: adminKeys.all });
    if (member.userId === userId) await refresh();
  };
}

function Members({ workspaceId, workspaceName }: { workspaceId: string; workspaceName: string }) {
  const members = useMembers(workspaceId);
  return (
    <>
      <AddMemberForm workspaceId={workspaceId} workspaceName={workspaceName} members={members.data ?? []} />
      {members.isPending ? (
        <Loading what="members" />
      ) : members.isError ? (
        <ErrorNotice error={members.error} title="Could not list the members" />
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Members of {workspaceName}</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Role</th>
                <th scope="col">Member since</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.length === 0 && (
                <tr>
                  <td colSpan={4} className="muted">
                    No members.
                  </td>
                </tr>
              )}
              {members.data.map((m) => (
                <MemberRow key={`${m.workspaceId}:${m.userId}`} member={m} workspaceName={workspaceName} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function AddMemberForm({ workspaceId, workspaceName, members }: { workspaceId: string; workspaceName: string; members: AdminMember[] }) {
  const api = useApi();
  const users = useUsers();
  const changed = useMembershipChanged();
  const id = useId();
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [added, setAdded] = useState('');
  const add = useMutation({
    mutationFn: () => api.admin.addMember(workspaceId, userId, role),
    onSuccess: async (member) => {
      setAdded(`${member.username} is now ${member.role} of ${workspaceName}.`);
      setUserId('');
      await changed(member);
    },
  });
  const inWorkspace = new Set(members.map((m) => m.userId));
  const candidates = (users.data ?? []).filter((u) => u.active && !inWorkspace.has(u.id));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAdded('');
    add.mutate();
  };
  return (
    <div className="card">
      <h3>Add a member</h3>
      <form className="admin-form" onSubmit={submit}>
        <div className="form-grid">
          <label htmlFor={`${id}-user`}>User</label>
          <select id={`${id}-user`} value={userId} required onChange={(e) => setUserId(e.target.value)}>
            <option value="">{candidates.length ? 'Choose a user…' : 'Every active user is a member'}</option>
            {candidates.map((u) => (
              <option key={u.id} value={u.id}>
                {u.username} ({u.email})
              </option>
            ))}
          </select>
          <label htmlFor={`${id}-role`}>Role</label>
          <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        {add.isError && <ErrorNotice error={add.error} title="Member not added" />}
        <p className="admin-status" role="status">
          {added}
        </p>
        <div className="actions">
          <button type="submit" disabled={add.isPending || !userId}>
            {add.isPending ? 'Adding…' : 'Add member'}
          </button>
        </div>
      </form>
    </div>
  );
}

function MemberRow({ member, workspaceName }: { member: AdminMember; workspaceName: string }) {
  const api = useApi();
  const changed = useMembershipChanged();
  const [role, setRole] = useState<Role>(member.role);
  const [removing, setRemoving] = useState(false);
  const [saved, setSaved] = useState('');
  const change = useMutation({
    mutationFn: () => api.admin.addMember(member.workspaceId, member.userId, role),
    onSuccess: async (m) => {
      setSaved(`Now ${m.role}.`);
      await changed(m);
    },
  });
  const remove = useMutation({
    mutationFn: () => api.admin.removeMember(member.workspaceId, member.userId),
    onSuccess: async () => {
      setRemoving(false);
      await changed(member);
    },
  });
  return (
    <>
      <tr>
        <td className="admin-name">{member.username}</td>
        <td>
          <form
            className="admin-inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              setSaved('');
              change.mutate();
            }}
          >
            <select
              aria-label={`Role of ${member.username}`}
              value={role}
              onChange={(e) => {
                setSaved('');
                setRole(e.target.value as Role);
              }}
            >
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button
              type="submit"
              className="secondary"
              disabled={change.isPending || role === member.role}
              aria-label={`Save the role of ${member.username}`}
            >
              {change.isPending ? 'Saving…' : 'Save'}
            </button>
            <span className="admin-status" role="status">
              {saved}
            </span>
          </form>
          {change.isError && <ErrorNotice error={change.error} title="Role not changed" />}
        </td>
        <td>
          <Time iso={member.createdAt} />
        </td>
        <td>
          {!removing && (
            <button type="button" className="secondary" onClick={() => setRemoving(true)} aria-label={`Remove ${member.username}`}>
              Remove
            </button>
          )}
        </td>
      </tr>
      {removing && (
        <tr className="admin-row-panel">
          <td colSpan={4}>
            <ConfirmStep
              question={
                <>
                  Remove <strong>{member.username}</strong> from {workspaceName}? They lose access to its projects, jobs and data at once.
                </>
              }
              confirmLabel="Remove member"
              busy={remove.isPending}
              onConfirm={() => remove.mutate()}
              onCancel={() => setRemoving(false)}
            />
            {remove.isError && <ErrorNotice error={remove.error} title="Not removed" />}
          </td>
        </tr>
      )}
    </>
  );
}
