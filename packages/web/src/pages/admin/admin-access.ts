import { useUser } from '../../api/session';
import { useWorkspace } from '../../api/workspace';

/** Who may use a part of the admin area: a platform administrator, or a least role in the selected workspace. */
export type Need = 'platformAdmin' | 'viewer' | 'member' | 'admin' | 'owner';

/** Workspace roles from least to most (the server's order). */
const ROLES = ['viewer', 'member', 'admin', 'owner'];

export interface AdminAccess {
  platformAdmin: boolean;
  /** The signed-in user's role in the selected workspace. */
  role: string;
  workspaceId: string;
  workspaceName: string;
  userId: string;
  has(need: Need): boolean;
}

/**
 * The server's rules (docs/roles.md) on the page's side, so that a control is not offered only to
 * be refused; the server checks every call anyway.
 */
export function useAdminAccess(): AdminAccess {
  const user = useUser();
  const { role, workspaceId, workspaceName } = useWorkspace();
  return {
    platformAdmin: user.isAdmin,
    role,
    workspaceId,
    workspaceName,
    userId: user.id,
    has: (need) => (need === 'platformAdmin' ? user.isAdmin : ROLES.indexOf(role) >= ROLES.indexOf(need)),
  };
}

/** How a need is said to a person. */
export function needName(need: Need): string {
  return need === 'platformAdmin' ? 'platform administrator' : need;
}
