import { useState, type FormEvent } from 'react';
import { JOB_LIST_STATUSES } from '@runyard/client/core';
import { NO_FILTERS, type JobFilters, type JobListParams } from './job-list-params';
import { useProjects, useQueues, useWorkflows } from './use-workspace-lists';

interface Props {
  workspaceId: string;
  params: JobListParams;
  onChange(change: Partial<JobListParams>): void;
}

/**
 * The filters of `job list`. A choice in a list applies at once; typed text (name, owner) when the
 * form is submitted (Enter or "Apply"), so that the list is not read again at every key.
 */
export function JobListFilters({ workspaceId, params, onChange }: Props) {
  const projects = useProjects(workspaceId);
  const workflows = useWorkflows(workspaceId);
  const queues = useQueues(workspaceId);
  const [name, setName] = useState(params.name);
  const [owner, setOwner] = useState(params.owner);
  // The URL changed under the form (back button, a link): show what it says.
  const [shown, setShown] = useState({ name: params.name, owner: params.owner });
  if (shown.name !== params.name || shown.owner !== params.owner) {
    setShown({ name: params.name, owner: params.owner });
    setName(params.name);
    setOwner(params.owner);
  }

  const apply = (change: Partial<JobFilters>) => onChange({ name, owner, ...change });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply({});
  };

  return (
    <form className="job-filters card" onSubmit={submit} aria-label="Filter jobs">
      <label>
        <span>Status</span>
        <select value={params.status} onChange={(e) => apply({ status: e.target.value })}>
          <option value="">Any status</option>
          {JOB_LIST_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Name contains</span>
        <input type="search" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      </label>
      <label>
        <span>Project</span>
        <select value={params.project} onChange={(e) => apply({ project: e.target.value })}>
          <option value="">Any project</option>
          {projects.data?.map((p) => (
            <option key={p._id} value={p._id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Workflow</span>
        <select value={params.workflow} onChange={(e) => apply({ workflow: e.target.value })}>
          <option value="">Any workflow</option>
          {workflows.data?.map((w) => (
            <option key={w._id} value={w._id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Owner</span>
        <input
          value={params.mine ? '' : owner}
          onChange={(e) => setOwner(e.target.value)}
          disabled={params.mine}
          placeholder="username or name"
          maxLength={200}
        />
      </label>
      <label>
        <span>Queue</span>
        <select value={params.queue} onChange={(e) => apply({ queue: e.target.value })}>
          <option value="">Any queue</option>
          {queues.data?.map((q) => (
            <option key={q.id} value={q.id}>
              {q.label || q.name}
            </option>
          ))}
        </select>
      </label>
      <label className="check">
        <input type="checkbox" checked={params.mine} onChange={(e) => apply({ mine: e.target.checked, owner: '' })} />
        <span>Only my jobs</span>
      </label>
      <label className="check">
        <input type="checkbox" checked={params.archived} onChange={(e) => apply({ archived: e.target.checked })} />
        <span>Archived jobs</span>
      </label>
      <div className="actions">
        <button type="submit">Apply</button>
        <button type="button" className="secondary" onClick={() => onChange(NO_FILTERS)}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
