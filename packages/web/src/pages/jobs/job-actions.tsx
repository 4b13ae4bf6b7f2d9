import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/session';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { CloneForm } from './clone-form';
import { ConfirmAction } from './confirm-action';
import { isFinished } from './job-format';
import type { JobPermissions } from './job-permissions';
import type { JobView } from './job-view';
import { jobQueryKey } from './use-job-lookup';

type Action = 'abort' | 'force-abort' | 'archive' | 'unarchive' | 'delete-results' | 'delete-workdir' | 'resume';

const DONE: Record<Action, string> = {
  abort: 'Abort asked: the job stops gracefully.',
  'force-abort': 'Force abort asked: the job stops at once.',
  archive: 'The job is archived (the list shows it under "Archived jobs").',
  unarchive: 'The job is no longer archived.',
  'delete-results': 'The deletion of the results is scheduled.',
  'delete-workdir': 'The deletion of the work directory is scheduled.',
  resume: 'Resumed.',
};

/** Resume continues a Nextflow job's work directory after it failed or was aborted. */
function canResume(job: JobView): boolean {
  return job.jobType.startsWith('nextflow') && (job.status === 'failed' || job.status === 'aborted') && Boolean(job.resumeWorkDir);
}

/** The job's buttons: abort (and force), clone, resume, archive, delete data; destructive ones ask first. */
export function JobActions({ job, permissions }: { job: JobView; permissions: JobPermissions }) {
  const api = useApi();
  const queries = useQueryClient();
  const navigate = useNavigate();
  const [cloning, setCloning] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const ws = job.workspaceId;
  const act = useMutation({
    mutationFn: async (action: Action): Promise<string | void> => {
      switch (action) {
        case 'abort':
        case 'force-abort':
          return void (await api.abortJob(job.id, ws, action === 'force-abort'));
        case 'archive':
          return void (await api.archiveJobs([job.id], ws));
        case 'unarchive':
          return void (await api.unarchiveJobs([job.id], ws));
        case 'delete-results':
          return void (await api.deleteJobResults(job.id, 'analysisResults', ws));
        case 'delete-workdir':
          return void (await api.deleteJobResults(job.id, 'workDirectory', ws));
        case 'resume':
          return api.cloneOrResumeJob({ workspaceId: ws, sourceJobId: job.id, mode: 'resume' });
      }
    },
    onMutate: () => setDone(null),
    onSuccess: async (newJobId, action) => {
      if (action === 'resume' && newJobId) return void navigate(paths.job(newJobId));
      setDone(DONE[action]);
      await Promise.all([
        queries.invalidateQueries({ queryKey: jobQueryKey(job.id) }),
        queries.invalidateQueries({ queryKey: ['folder-status'] }),
        queries.invalidateQueries({ queryKey: ['jobs', ws] }),
      ]);
    },
  });
  const run = (action: Action) => () => act.mutate(action);
  const finished = isFinished(job.status);
  const busy = act.isPending;
  const canAct = permissions.act.allowed;
  // What the person's role cannot do is not offered; one line says why.
  const reason = !permissions.submit.allowed ? permissions.submit.reason : !permissions.act.allowed ? permissions.act.reason : null;

  return (
    <section aria-label="Job actions" className="jobs-actions">
      <div className="actions">
        {canAct && !finished && job.status !== 'aborting' && (
          <ConfirmAction
            label="Abort"
            confirmLabel="Yes, abort the job"
            question={`Abort job "${job.name}"? It is stopped gracefully and cannot be continued (a Nextflow job can be resumed later).`}
            busy={busy}
            onConfirm={run('abort')}
          />
        )}
        {canAct && !finished && (
          <ConfirmAction
            label="Force abort"
            confirmLabel="Yes, stop it now"
            question={`Stop job "${job.name}" at once, without letting it finish its current step?`}
            busy={busy}
            onConfirm={run('force-abort')}
          />
        )}
        {permissions.submit.allowed && (
          <button type="button" className="secondary" disabled={cloning} aria-expanded={cloning} onClick={() => setCloning(true)}>
            Clone
          </button>
        )}
        {canAct && canResume(job) && (
          <button type="button" className="secondary" disabled={busy} onClick={run('resume')}>
            Resume
          </button>
        )}
        {canAct && (
          <button type="button" className="secondary" disabled={busy} onClick={run(job.archived ? 'unarchive' : 'archive')}>
            {job.archived ? 'Unarchive' : 'Archive'}
          </button>
        )}
        {canAct && finished && job.results && !job.results.deletedBy && (
          <ConfirmAction
            label="Delete results"
            confirmLabel="Yes, delete the results"
            question={`Delete the results of "${job.name}"? The files are removed for good once the deletion runs.`}
            busy={busy}
            onConfirm={run('delete-results')}
          />
        )}
        {canAct && finished && job.workDirectory && !job.workDirectory.deletedBy && (
          <ConfirmAction
            label="Delete work directory"
            confirmLabel="Yes, delete the work directory"
            question={`Delete the work directory of "${job.name}"? A resume of this job is then no longer possible.`}
            busy={busy}
            onConfirm={run('delete-workdir')}
          />
        )}
      </div>
      {reason && <p className="muted">{reason}</p>}
      <p role="status" className="jobs-done">
        {done}
      </p>
      {act.error !== null && <ErrorNotice error={act.error} title="The action failed" />}
      {cloning && <CloneForm job={job} onCancel={() => setCloning(false)} />}
    </section>
  );
}
