import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { JobQueue, QueueCreateBody } from '@runyard/contract';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';

/** The workspace's job queues (every role reads them); a platform administrator also creates them. */
export function QueuesSection() {
  const api = useApi();
  const access = useAdminAccess();
  const queues = useQuery({
    queryKey: adminKeys.queues(access.workspaceId),
    queryFn: () => api.getJobQueues(access.workspaceId),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="queues-title">
      <h2 id="queues-title">Queues of {access.workspaceName}</h2>
      {access.platformAdmin ? (
        <NewQueueForm />
      ) : (
        <p className="muted">Queues are created by a platform administrator; the jobs of this workspace can use these.</p>
      )}
      {queues.isPending ? (
        <Loading what="queues" />
      ) : queues.isError ? (
        <ErrorNotice error={queues.error} title="Could not list the queues" />
      ) : (
        <QueueTable queues={queues.data} />
      )}
    </section>
  );
}

function QueueTable({ queues }: { queues: JobQueue[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Job queues</caption>
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Executor</th>
            <th scope="col">Runs on</th>
            <th scope="col">Concurrency</th>
            <th scope="col">Default</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {queues.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                No queues: jobs run on the server's own default.
              </td>
            </tr>
          )}
          {queues.map((q) => (
            <tr key={q.id ?? q._id}>
              <td className="admin-name">
                {q.label || q.name}
                {q.label && q.label !== q.name && <div className="muted mono">{q.name}</div>}
                {q.description && <div className="muted">{q.description}</div>}
              </td>
              <td>{q.executor}</td>
              <td>
                {q.backend === 'slurm' ? `Slurm${q.partition ? `, partition ${q.partition}` : ''}` : q.backend || 'local'}
                {q.resourceType === 'system' && <span className="muted"> (system)</span>}
              </td>
              <td>{q.concurrency}</td>
              <td>{q.isDefault ? 'yes' : 'no'}</td>
              <td>
                <span className={`status status-${q.status === 'Ready' ? 'ready' : 'stopped'}`}>{q.status}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewQueueForm() {
  const api = useApi();
  const { workspaceId, workspaceName } = useAdminAccess();
  const queries = useQueryClient();
  const id = useId();
  const empty = { name: '', label: '', executor: 'nextflow' as 'nextflow' | 'cromwell', concurrency: '', isDefault: false };
  const [form, setForm] = useState(empty);
  const [made, setMade] = useState('');
  const create = useMutation({
    mutationFn: () => {
      const body: QueueCreateBody = {
        workspaceId,
        name: form.name.trim(),
        executor: form.executor,
        ...(form.label.trim() && { label: form.label.trim() }),
        ...(form.concurrency && { concurrency: Number(form.concurrency) }),
        ...(form.isDefault && { isDefault: true }),
      };
      return api.request<JobQueue>('POST', '/api/runyard/admin/queues', { body });
    },
    onSuccess: (queue) => {
      setMade(`Queue ${queue.label || queue.name} created.`);
      setForm(empty);
      void queries.invalidateQueries({ queryKey: adminKeys.queues(workspaceId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMade('');
    create.mutate();
  };
  return (
    <div className="card">
      <h3>New queue in {workspaceName}</h3>
      <form className="admin-form" onSubmit={submit}>
        <div className="form-grid">
          <label htmlFor={`${id}-name`}>Queue name</label>
          <input
            id={`${id}-name`}
            value={form.name}
            required
            maxLength={100}
            pattern="[A-Za-z0-9][A-Za-z0-9_.\-]*"
            title="Letters, digits, and . _ - after the first character"
            onChange={(e) => setForm((f) => ({ ...f, name: e.target.value }))}
          />
          <label htmlFor={`${id}-label`}>Label</label>
          <input
            id={`${id}-label`}
            value={form.label}
            maxLength={200}
            onChange={(e) => setForm((f) => ({ ...f, label: e.target.value }))}
          />
          <label htmlFor={`${id}-executor`}>Executor</label>
          <select
            id={`${id}-executor`}
            value={form.executor}
            onChange={(e) => setForm((f) => ({ ...f, executor: e.target.value as 'nextflow' | 'cromwell' }))}
          >
            <option value="nextflow">nextflow (Nextflow and bash jobs)</option>
            <option value="cromwell">cromwell (WDL jobs)</option>
          </select>
          <label htmlFor={`${id}-concurrency`}>Jobs at once</label>
          <input
            id={`${id}-concurrency`}
            type="number"
            min={1}
            max={1024}
            inputMode="numeric"
            placeholder="server default"
            value={form.concurrency}
            onChange={(e) => setForm((f) => ({ ...f, concurrency: e.target.value }))}
          />
          <span aria-hidden="true" />
          <label className="admin-check">
            <input type="checkbox" checked={form.isDefault} onChange={(e) => setForm((f) => ({ ...f, isDefault: e.target.checked }))} /> The
            workspace's default queue
          </label>
        </div>
        {create.isError && <ErrorNotice error={create.error} title="Queue not created" />}
        <p className="admin-status" role="status">
          {made}
        </p>
        <div className="actions">
          <button type="submit" disabled={create.isPending || !form.name.trim()}>
            {create.isPending ? 'Creating…' : 'Create queue'}
          </button>
        </div>
      </form>
    </div>
  );
}
