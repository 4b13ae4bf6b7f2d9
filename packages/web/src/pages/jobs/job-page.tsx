import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { statusOf } from '../../api/errors';
import { useWorkspace } from '../../api/workspace';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { StatusBadge } from '../../components/status-badge';
import { DataDeletionStatus } from './data-deletion';
import { JobActions } from './job-actions';
import { JobCost } from './job-cost';
import { JobFacts, JobParameters } from './job-details';
import { JobFiles } from './job-files';
import { isFinished } from './job-format';
import { JobLogCard } from './job-log-card';
import { useJobPermissions } from './job-permissions';
import { JobTimeline } from './job-timeline';
import type { JobView } from './job-view';
import { jobQueryKey, useJobLookup } from './use-job-lookup';
import { useJobLog } from './use-job-log';
import './jobs.css';

/** A job's page, at the link `runyard job run` prints (which names no workspace). */
export function JobPage() {
  const { jobId = '' } = useParams();
  const job = useJobLookup(jobId);
  if (job.data) return <JobDetails key={job.data.id} job={job.data} />;
  if (job.error && statusOf(job.error) === 404) return <JobNotFound jobId={jobId} />;
  return (
    <>
      <PageHeader title="Job" />
      {job.error ? <ErrorNotice error={job.error} title="Could not read the job" /> : <Loading what="the job" />}
    </>
  );
}

function JobNotFound({ jobId }: { jobId: string }) {
  return (
    <>
      <PageHeader title="Job not found" />
      <p role="alert" className="card">
        There is no job <code>{jobId}</code> in your workspaces. It may have been mistyped, or belong to a workspace you are not a member
        of. Go back to <Link to={paths.jobs}>the jobs</Link>.
      </p>
    </>
  );
}

function JobDetails({ job }: { job: JobView }) {
  const queries = useQueryClient();
  const { workspaceId, select } = useWorkspace();
  const permissions = useJobPermissions(job.workspaceId, job.ownerId);
  // A status change on the stream: read the document again at once (times, cost, buttons).
  const onStatus = useCallback(
    (status: string) => {
      const shown = queries.getQueryData<JobView>(jobQueryKey(job.id))?.status;
      if (status !== shown) void queries.invalidateQueries({ queryKey: jobQueryKey(job.id) });
    },
    [queries, job.id],
  );
  const log = useJobLog(job.id, job.workspaceId, onStatus);
  const otherWorkspace = job.workspaceId !== workspaceId;

  return (
    <>
      <PageHeader title={job.name} actions={<StatusBadge status={job.status} />}>
        <p className="muted">
          Job <code>{job.id}</code>
          {job.archived && ' · archived'}
        </p>
      </PageHeader>
      {otherWorkspace && (
        <p className="notice" role="status">
          This job is in another of your workspaces than the one selected.{' '}
          <button type="button" className="secondary" onClick={() => select(job.workspaceId)}>
            Switch to its workspace
          </button>
        </p>
      )}
      <JobActions job={job} permissions={permissions} />
      <div className="jobs-grid">
        <section className="card" aria-labelledby="job-status-title">
          <h2 id="job-status-title">Status</h2>
          <JobTimeline job={job} />
        </section>
        <section className="card" aria-labelledby="job-cost-title">
          <h2 id="job-cost-title">Cost</h2>
          <JobCost job={job} />
        </section>
      </div>
      <JobLogCard job={job} log={log} />
      <div className="jobs-grid">
        <section className="card" aria-labelledby="job-facts-title">
          <h2 id="job-facts-title">Details</h2>
          <JobFacts job={job} />
        </section>
        <section className="card" aria-labelledby="job-params-title">
          <h2 id="job-params-title">Parameters</h2>
          <JobParameters job={job} />
        </section>
      </div>
      <section className="card" aria-labelledby="job-files-title">
        <h2 id="job-files-title">Files</h2>
        {isFinished(job.status) && job.results && (
          <DataDeletionStatus label="Results folder" folder={job.results} workspaceId={job.workspaceId} />
        )}
        {isFinished(job.status) && job.workDirectory?.deletedBy && (
          <DataDeletionStatus label="Work directory" folder={job.workDirectory} workspaceId={job.workspaceId} />
        )}
        <JobFiles job={job} />
      </section>
    </>
  );
}
