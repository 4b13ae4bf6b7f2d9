import type { JobView } from './job-view';

/** A parameter as the document lists it: `--name value`, a file or a folder pattern. */
function parameterValue(p: Record<string, unknown>): string {
  switch (p.parameterKind) {
    case 'textValue':
      return String(p.textValue ?? '');
    case 'dataItem': {
      const item = (p.dataItem as { item?: Record<string, unknown> } | undefined)?.item ?? {};
      return String(item.name ?? item.s3ObjectKey ?? item.s3Prefix ?? item.blobName ?? JSON.stringify(item));
    }
    case 'globPattern':
      return String(p.globPattern ?? '');
    case 'arrayFileColumn':
      return `column ${String(p.columnName ?? p.columnIndex ?? '')}`;
    default:
      return JSON.stringify(p);
  }
}

export function JobParameters({ job }: { job: JobView }) {
  if (!job.parameters.length) return <p className="muted">No parameters.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Parameters</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody>
          {job.parameters.map((p, i) => (
            <tr key={`${String(p.name)}-${i}`}>
              <td className="mono">
                {String(p.prefix ?? '')}
                {String(p.name ?? '')}
              </td>
              <td className="mono">{parameterValue(p)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The revision it ran (branch, tag, commit, image digest: whichever the document has). */
function revisionText(revision: Record<string, unknown>): string {
  const parts = (['branch', 'tag', 'commit', 'digest'] as const)
    .filter((k) => typeof revision[k] === 'string' && revision[k])
    .map((k) => `${k} ${String(revision[k])}`);
  return parts.length ? parts.join(', ') : '—';
}

export function JobFacts({ job }: { job: JobView }) {
  return (
    <dl className="facts">
      <dt>Job id</dt>
      <dd className="mono">{job.id}</dd>
      <dt>Project</dt>
      <dd>{job.projectName ?? '—'}</dd>
      <dt>Workflow</dt>
      <dd>
        {job.workflowName ?? '—'}
        {job.workflowType && <span className="muted"> ({job.workflowType})</span>}
      </dd>
      <dt>Owner</dt>
      <dd>{job.ownerName ?? '—'}</dd>
      <dt>Revision</dt>
      <dd className="mono">{revisionText(job.revision)}</dd>
      {job.command !== null && (
        <>
          <dt>Command</dt>
          <dd className="mono">{job.command}</dd>
        </>
      )}
      <dt>Resources</dt>
      <dd>
        {job.cpu ?? '?'} CPU, {job.ramGiB ?? '?'} GiB memory
        {job.instanceType && <>, instance type {job.instanceType}</>}
      </dd>
      <dt>Queue</dt>
      <dd>{job.queue?.label ?? '—'}</dd>
      <dt>Cost limit</dt>
      <dd>{job.costLimit === null ? '—' : job.costLimit < 0 ? 'no limit' : `$${job.costLimit}`}</dd>
      {job.exitCode !== null && (
        <>
          <dt>Exit code</dt>
          <dd>{job.exitCode}</dd>
        </>
      )}
      {job.statusMessage && (
        <>
          <dt>Message</dt>
          <dd>{job.statusMessage}</dd>
        </>
      )}
    </dl>
  );
}
