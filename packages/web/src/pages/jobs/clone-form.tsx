import { useId, useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useApi } from '../../api/session';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { InstanceTypeSelect } from './instance-type-select';
import type { JobView } from './job-view';
import { ParameterRows, parameterStrings, type ParameterRow } from './parameter-rows';
import { useInstanceTypes, useQueues } from './use-workspace-lists';

/**
 * A new job from this one's request (`cloneOrResumeJob`, as `runyard job clone`), with overrides: its
 * name, parameters (a row replaces the parameter of that name, or adds one), queue, instance type and
 * cost limit. What is left empty stays as it was.
 */
export function CloneForm({ job, onCancel }: { job: JobView; onCancel(): void }) {
  const api = useApi();
  const navigate = useNavigate();
  const id = useId();
  const queues = useQueues(job.workspaceId);
  const types = useInstanceTypes(job.workspaceId);
  const [name, setName] = useState(job.name);
  const [rows, setRows] = useState<ParameterRow[]>([]);
  const [queue, setQueue] = useState('');
  const [instanceType, setInstanceType] = useState('');
  const [costLimit, setCostLimit] = useState('');
  const clone = useMutation({
    mutationFn: () =>
      api.cloneOrResumeJob({
        workspaceId: job.workspaceId,
        sourceJobId: job.id,
        mode: 'clone',
        jobName: name.trim() || undefined,
        parameters: parameterStrings(rows),
        queueName: queue || undefined,
        masterInstance: instanceType || undefined,
        costLimit: costLimit.trim() === '' ? undefined : Number(costLimit),
      }),
    onSuccess: (newId) => navigate(paths.job(newId)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    clone.mutate();
  };

  return (
    <form className="card jobs-clone" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Clone this job</h2>
      <div className="form-grid">
        <label htmlFor={`${id}-name`}>New job name</label>
        <input id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        <label htmlFor={`${id}-queue`}>Queue</label>
        <select id={`${id}-queue`} value={queue} onChange={(e) => setQueue(e.target.value)}>
          <option value="">As the job ({job.queue?.label ?? 'none'})</option>
          {queues.data?.map((q) => (
            <option key={q.id} value={q.label || q.name}>
              {q.label || q.name}
            </option>
          ))}
        </select>
        <label htmlFor={`${id}-type`}>Instance type</label>
        <InstanceTypeSelect
          id={`${id}-type`}
          types={types.data?.instanceTypes ?? []}
          value={instanceType}
          onChange={setInstanceType}
          keepLabel={`As the job (${job.instanceType ?? 'default'})`}
        />
        <label htmlFor={`${id}-limit`}>Cost limit (dollars, -1 for none)</label>
        <input
          id={`${id}-limit`}
          type="number"
          min={-1}
          step="any"
          placeholder={job.costLimit === null ? '' : String(job.costLimit)}
          value={costLimit}
          onChange={(e) => setCostLimit(e.target.value)}
        />
      </div>
      <ParameterRows legend="Parameter changes (replace or add)" rows={rows} onChange={setRows} />
      {clone.error !== null && <ErrorNotice error={clone.error} title="Could not clone the job" />}
      <div className="actions">
        <button type="submit" disabled={clone.isPending}>
          {clone.isPending ? 'Cloning…' : 'Run the clone'}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
