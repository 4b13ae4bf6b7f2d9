import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useUser } from './session';

const STORAGE_KEY = 'runyard.workspace';

interface WorkspaceValue {
  /** The selected workspace's id (the `teamId` of every workspace route). */
  workspaceId: string;
  workspaceName: string;
  /** The signed-in user's role in it (viewer, member, admin, owner...). */
  role: string;
  select(workspaceId: string): void;
}

const WorkspaceContext = createContext<WorkspaceValue | null>(null);

/**
 * The workspace the pages work in: the last one picked (kept in localStorage: an id, not a secret)
 * when the user is still a member of it, else their first.
 */
export function WorkspaceProvider({ children }: { children: ReactNode }) {
  const user = useUser();
  const [picked, setPicked] = useState<string | null>(() => localStorage.getItem(STORAGE_KEY));
  const current = user.workspaces.find((w) => w.id === picked) ?? user.workspaces[0];
  const select = useCallback((id: string) => {
    localStorage.setItem(STORAGE_KEY, id);
    setPicked(id);
  }, []);
  const value = useMemo(
    () => (current ? { workspaceId: current.id, workspaceName: current.name, role: current.role, select } : null),
    [current, select],
  );
  if (!value) return <p role="alert">You are not a member of any workspace yet: ask an administrator to add you to one.</p>;
  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}

export function useWorkspace(): WorkspaceValue {
  const value = useContext(WorkspaceContext);
  if (!value) throw new Error('useWorkspace outside WorkspaceProvider');
  return value;
}
