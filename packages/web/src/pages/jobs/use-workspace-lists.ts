import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';

/** What the filters and forms choose from changes rarely: read once a minute at most. */
const STALE = 60_000;

export function useProjects(workspaceId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs-area', 'projects', workspaceId],
    queryFn: () => api.getProjectList(workspaceId),
    staleTime: STALE,
  });
}

/** The workspace's workflows that are not archived. */
export function useWorkflows(workspaceId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs-area', 'workflows', workspaceId],
    queryFn: () => api.getWorkflowList(workspaceId),
    staleTime: STALE,
  });
}

export function useQueues(workspaceId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs-area', 'queues', workspaceId],
    queryFn: () => api.getJobQueues(workspaceId),
    staleTime: STALE,
  });
}

/** The instance-type catalogue, with each type's size and hourly price. */
export function useInstanceTypes(workspaceId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs-area', 'instance-types', workspaceId],
    queryFn: () => api.getInstanceTypes(workspaceId),
    staleTime: 10 * STALE,
  });
}
