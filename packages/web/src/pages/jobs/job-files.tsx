import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import type { JobView } from './job-view';
import { StorageBrowser } from './storage-browser';

type View = 'results' | 'workdir';

/** The job's results (once completed) and its work directory, browsable, each file a download. */
export function JobFiles({ job }: { job: JobView }) {
  const [view, setView] = useState<View>('results');
  return (
    <>
      <div className="segmented" role="group" aria-label="Which files">
        <button type="button" aria-pressed={view === 'results'} onClick={() => setView('results')}>
          Results
        </button>
        <button type="button" aria-pressed={view === 'workdir'} onClick={() => setView('workdir')}>
          Work directory
        </button>
      </div>
      {view === 'results' ? <ResultsFolder job={job} /> : <WorkFolder job={job} />}
    </>
  );
}

function ResultsFolder({ job }: { job: JobView }) {
  const api = useApi();
  const completed = job.status === 'completed';
  const folder = useQuery({
    queryKey: ['job-results-folder', job.id, job.workspaceId],
    queryFn: () => api.getJobResultsFolder(job.id, job.workspaceId),
    enabled: completed,
  });
  if (!completed) return <p className="muted">Results can be browsed once the job has completed (it is {job.status}).</p>;
  if (folder.error) return <ErrorNotice error={folder.error} title="Results" />;
  if (!folder.data) return <Loading what="the results folder" />;
  return <StorageBrowser url={folder.data} workspaceId={job.workspaceId} label="Results" />;
}

function WorkFolder({ job }: { job: JobView }) {
  const api = useApi();
  const started = Boolean(job.startTime);
  const folder = useQuery({
    queryKey: ['job-workdir', job.id, job.workspaceId],
    queryFn: () => api.getJobWorkdir(job.id, job.workspaceId),
    enabled: started,
  });
  if (!started) return <p className="muted">The work directory exists once the job has started.</p>;
  if (folder.error) return <ErrorNotice error={folder.error} title="Work directory" />;
  if (!folder.data) return <Loading what="the work directory" />;
  return <StorageBrowser url={folder.data} workspaceId={job.workspaceId} label="Work directory" />;
}
