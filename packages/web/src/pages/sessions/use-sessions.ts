import type { InteractiveSession } from '@runyard/client/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { isMoving } from './session-format';

/** Queries about the workspace's sessions start so (an action refreshes lists and pages alike). */
export const sessionsKey = (teamId: string) => ['sessions', teamId] as const;

/** While a session is on its way somewhere its status is asked every 2 s; otherwise every 30 s (its cost grows while it runs). */
const refreshEvery = (moving: boolean) => (moving ? 2_000 : 30_000);

export interface SessionListFilter {
  page: number;
  status: string;
  mine: boolean;
}

export const SESSION_PAGE_SIZE = 20;

export function useSessionList(f: SessionListFilter) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  return useQuery({
    queryKey: [...sessionsKey(workspaceId), 'list', f],
    queryFn: () =>
      api.getInteractiveSessionList(workspaceId, {
        page: f.page,
        limit: SESSION_PAGE_SIZE,
        ownerOnly: f.mine,
        ...(f.status && { status: [f.status] }),
      }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => refreshEvery(Boolean(q.state.data?.sessions.some(isMoving))),
  });
}

export function useInteractiveSession(sessionId: string) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  return useQuery<InteractiveSession>({
    queryKey: [...sessionsKey(workspaceId), 'one', sessionId],
    queryFn: () => api.getInteractiveSession(sessionId, workspaceId),
    refetchInterval: (q) => (q.state.error ? false : refreshEvery(q.state.data ? isMoving(q.state.data) : false)),
  });
}
