import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { formatCents, formatUsd, isFinished } from './job-format';
import type { JobView } from './job-view';

/** What the job cost so far (the document's figure) and its machine's price (getJobCosts). */
export function JobCost({ job }: { job: JobView }) {
  const api = useApi();
  const costs = useQuery({
    queryKey: ['job-costs', job.id, job.workspaceId],
    queryFn: () => api.getJobCosts(job.id, job.workspaceId),
    placeholderData: keepPreviousData,
    refetchInterval: isFinished(job.status) ? false : 10_000,
  });
  const master = costs.data?.master;
  return (
    <>
      <dl className="facts">
        <dt>Cost so far</dt>
        <dd>{formatCents(job.costCents)}</dd>
        <dt>Machine</dt>
        <dd>{master?.machineType ?? job.instanceType ?? '—'}</dd>
        <dt>Price per hour</dt>
        <dd>{master ? formatUsd(master.instancePricePerHour.amount) : '—'}</dd>
        {master && (
          <>
            <dt>Machine total</dt>
            <dd>{formatUsd(master.totalPrice.amount)}</dd>
          </>
        )}
        {costs.data && costs.data.workers.length > 0 && (
          <>
            <dt>Workers</dt>
            <dd>
              {costs.data.workers.length}, {formatUsd(costs.data.workers.reduce((sum, w) => sum + w.totalPrice.amount, 0))}
            </dd>
          </>
        )}
      </dl>
      {costs.error !== null && <ErrorNotice error={costs.error} title="Costs" />}
    </>
  );
}
