import { Link } from 'react-router';
import type { JobDocument } from '@runyard/client/core';
import { paths } from '../../app/paths';
import { StatusBadge } from '../../components/status-badge';
import { Time } from '../../components/time';
import { formatCents, isFinished, runTime } from './job-format';
import { jobView } from './job-view';
import { useNow } from './use-now';

/** One page of jobs; run times of running jobs tick. `busy`: another page is on its way. */
export function JobTable({ jobs, caption, busy }: { jobs: JobDocument[]; caption: string; busy: boolean }) {
  const now = useNow(
    1000,
    jobs.some((j) => !isFinished(j.status)),
  );
  return (
    <div className="table-wrap" aria-busy={busy}>
      <table className="job-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Project</th>
            <th scope="col">Workflow</th>
            <th scope="col">Owner</th>
            <th scope="col">Started</th>
            <th scope="col">Run time</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((doc) => {
            const job = jobView(doc);
            return (
              <tr key={job.id}>
                <td>
                  <Link to={paths.job(job.id)}>{job.name}</Link>
                </td>
                <td>
                  <StatusBadge status={job.status} />
                </td>
                <td>{job.projectName ?? '—'}</td>
                <td>{job.workflowName ?? '—'}</td>
                <td>{job.ownerName ?? '—'}</td>
                <td>
                  {job.startTime ? (
                    <Time iso={job.startTime} />
                  ) : (
                    <span className="muted">
                      created <Time iso={job.createdAt} />
                    </span>
                  )}
                </td>
                <td className="num">{runTime(job.startTime, job.endTime, now)}</td>
                <td className="num">{formatCents(job.costCents)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
