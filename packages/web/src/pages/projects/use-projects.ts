import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';

/** Queries about the workspace's projects start so (a new project refreshes every list of them). */
export const projectsKey = (teamId: string) => ['projects', teamId] as const;

/** Every project of the workspace (for pickers): get_project_list with getAll. */
export function useAllProjects() {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  return useQuery({
    queryKey: [...projectsKey(workspaceId), 'all'],
    queryFn: () => api.getProjectList(workspaceId),
    staleTime: 30_000,
  });
}
