import { useState } from 'react';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import type { JobView } from './job-view';
import { Segmented, type Segment } from './segmented';
import { StorageBrowser } from './storage-browser';
import { logsFolderQuery } from './use-log-file';

type View = 'results' | 'workdir' | 'logs';
const VIEWS: ReadonlyArray<Segment<View>> = [
  { value: 'results', label: 'Results' },
  { value: 'workdir', label: 'Work directory' },
  { value: 'logs', label: 'Logs' },
];

/** The job's results (once completed), its work directory and its logs folder, browsable, each file a download. */
export function JobFiles({ job }: { job: JobView }) {
  const [view, setView] = useState<View>('results');
  return (
    <>
      <Segmented label="Which files" segments={VIEWS} value={view} onChange={setView} />
      {view === 'results' && <ResultsFolder job={job} />}
      {view === 'workdir' && <WorkFolder job={job} />}
      {view === 'logs' && <LogsFolder job={job} />}
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
  return <Folder folder={folder} job={job} label="Results" what="the results folder" />;
}

function WorkFolder({ job }: { job: JobView }) {
  const api = useApi();
  const folder = useQuery({
    queryKey: ['job-workdir', job.id, job.workspaceId],
    queryFn: () => api.getJobWorkdir(job.id, job.workspaceId),
    enabled: Boolean(job.startTime),
  });
  if (!job.startTime) return <p className="muted">The work directory exists once the job has started.</p>;
  return <Folder folder={folder} job={job} label="Work directory" what="the work directory" />;
}

/** The logs folder: the job log (stdout.txt), and a WDL job's engine.log and its calls' call-<task>.stdout/.stderr. */
function LogsFolder({ job }: { job: JobView }) {
  const folder = useQuery(logsFolderQuery(useApi(), job));
  if (!job.startTime) return <p className="muted">The logs folder exists once the job has started.</p>;
  return <Folder folder={folder} job={job} label="Logs" what="the logs folder" />;
}

/** A job's folder once its storage URL is known: browsed, or why not. */
function Folder({ folder, job, label, what }: { folder: UseQueryResult<string>; job: JobView; label: string; what: string }) {
  if (folder.error) return <ErrorNotice error={folder.error} title={label} />;
  if (!folder.data) return <Loading what={what} />;
  return <StorageBrowser url={folder.data} workspaceId={job.workspaceId} label={label} />;
}
