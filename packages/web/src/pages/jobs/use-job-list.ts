import { useQuery } from '@tanstack/react-query';
import type { JobDocument, JobPaginationMetadata, Query } from '@runyard/client/core';
import { useApi, useUser } from '../../api/session';
import { isFinished } from './job-format';
import type { JobListParams } from './job-list-params';

/** While a shown job can still change, the list is read again this often. */
export const LIVE_REFRESH_MS = 3_000;
/** Otherwise, now and then (new jobs appear). */
const IDLE_REFRESH_MS = 15_000;

export interface JobPage {
  jobs: JobDocument[];
  /** How many jobs match, over every page. */
  total: number;
  /** The page and page size these jobs are (while the next page loads, this one stays shown). */
  page: number;
  size: number;
}

/** The owner filter's member id: the search route, asked once per name (the SDK's resolveUserId). */
function useOwnerId(workspaceId: string, owner: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['jobs-area', 'owner', workspaceId, owner],
    queryFn: () => api.resolveUserId(owner, workspaceId),
    enabled: owner !== '',
    staleTime: Infinity,
  });
}

/**
 * One page of `GET /api/v2/jobs` with the server-side filters of `job list` (the query getJobList builds,
 * with ids straight from the filter's lists, so one request per read): the server pages, the page never
 * holds more than `size` jobs whatever the number of jobs.
 */
export function useJobList(workspaceId: string, p: JobListParams) {
  const api = useApi();
  const me = useUser();
  const owner = useOwnerId(workspaceId, p.mine ? '' : p.owner.trim());
  const userId = p.mine ? me.id : p.owner.trim() ? owner.data : undefined;
  const waitingForOwner = !p.mine && p.owner.trim() !== '' && !owner.data;
  const list = useQuery({
    queryKey: ['jobs', workspaceId, { ...p, userId }],
    queryFn: async (): Promise<JobPage> => {
      const query: Query = {
        teamId: workspaceId,
        'archived.status': p.archived,
        limit: p.size,
        page: p.page,
        status: p.status || undefined,
        name: p.name.trim() || undefined,
        'project.id': p.project || undefined,
        'workflow.id': p.workflow || undefined,
        'user.id': userId,
        'batch.jobQueue.id': p.queue || undefined,
      };
      const reply = await api.request<{ jobs?: JobDocument[]; paginationMetadata?: JobPaginationMetadata }>('GET', '/api/v2/jobs', {
        query,
      });
      const jobs = reply.jobs ?? [];
      const total = Number(reply.paginationMetadata?.['Pagination-Count'] ?? jobs.length);
      return { jobs, total, page: p.page, size: p.size };
    },
    enabled: !waitingForOwner,
    // The previous page stays while the next loads (nothing jumps), but never another workspace's jobs.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === workspaceId ? previous : undefined),
    refetchInterval: (q) => (q.state.data?.jobs.some((j) => !isFinished(j.status)) ? LIVE_REFRESH_MS : IDLE_REFRESH_MS),
  });
  return { list, ownerError: owner.error };
}
