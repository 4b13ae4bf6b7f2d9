import { useUser } from '../../api/session';

/** Workspace roles from least to most (the server's order: viewer < member < admin < owner). */
const ROLES = ['viewer', 'member', 'admin', 'owner'];

export function hasRole(role: string, needed: 'viewer' | 'member' | 'admin' | 'owner'): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** What the signed-in person may do with a job; a reason when not (shown beside the disabled button). */
export interface JobPermissions {
  /** The person's role in the job's workspace ('' when not a member: the page then shows nothing of it). */
  role: string;
  /** Abort, archive, delete data, resume: own jobs for a member, every job for an admin or owner. */
  act: Permission;
  /** Clone: any member (a read and a new submission). */
  submit: Permission;
}

export type Permission = { allowed: true } | { allowed: false; reason: string };

/** The server's rules (route-roles.ts, requireJobOwnerOrAdmin), so that a button is not offered only to be refused. */
export function useJobPermissions(workspaceId: string, ownerId: string | null): JobPermissions {
  const user = useUser();
  const role = user.workspaces.find((w) => w.id === workspaceId)?.role ?? '';
  const submit: Permission = hasRole(role, 'member')
    ? { allowed: true }
    : { allowed: false, reason: `You are a ${role || 'non-member'} in this workspace: running jobs needs the member role.` };
  let act: Permission = submit;
  if (submit.allowed && ownerId !== user.id && !hasRole(role, 'admin')) {
    act = { allowed: false, reason: 'This job belongs to another user: changing it needs the admin role in this workspace.' };
  }
  return { role, act, submit };
}
