import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { statusOf } from '../../api/errors';
import { useWorkspace } from '../../api/workspace';
import { isFinished } from './job-format';
import { jobView, type JobView } from './job-view';

/** While the job runs, its document is read again this often (the live log tells of changes sooner). */
const LIVE_REFRESH_MS = 3_000;

export function jobQueryKey(jobId: string) {
  return ['job', jobId] as const;
}

/**
 * The job, wherever it is among the user's workspaces: links printed by `runyard job run` carry no
 * workspace. The selected workspace is asked first, then the server looks in every workspace the
 * user is a member of (`teamId=None`); a job of a workspace the user is not in is a 404 from both,
 * so nothing of it reaches the page.
 */
export function useJobLookup(jobId: string) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  return useQuery({
    queryKey: jobQueryKey(jobId),
    queryFn: async (): Promise<JobView> => {
      try {
        return jobView(await api.getJobStatus(jobId, workspaceId));
      } catch (e) {
        if (statusOf(e) !== 404) throw e;
      }
      return jobView(await api.getJobStatus(jobId, null));
    },
    refetchInterval: (q) => (q.state.data && !isFinished(q.state.data.status) ? LIVE_REFRESH_MS : false),
  });
}
