import { useState } from 'react';
import { Link } from 'react-router';
import { useWorkspace } from '../../api/workspace';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { StatusBadge } from '../../components/status-badge';
import { Time } from '../../components/time';
import { Pager } from '../projects/pager';
import { CreateSessionForm } from './create-session-form';
import { SessionActions } from './session-actions';
import { backendName, dollars, ownerOf, shownStatus } from './session-format';
import { useSessionList } from './use-sessions';
import '../data/area.css';

/** Filter names of the SDK's session list (SESSION_STATUS_NAMES). */
const STATUS_FILTERS = [
  { value: '', label: 'Any status' },
  { value: 'running', label: 'Running' },
  { value: 'provisioning', label: 'Starting' },
  { value: 'scheduled', label: 'Scheduled' },
  { value: 'paused', label: 'Paused' },
  { value: 'terminated', label: 'Terminated' },
];

/** Interactive sessions (Jupyter and others): the list, refreshed while any is on its way, and a new one. */
export function SessionsPage() {
  const { role } = useWorkspace();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [mine, setMine] = useState(false);
  const [message, setMessage] = useState('');
  const list = useSessionList({ page, status, mine });

  return (
    <>
      <PageHeader title="Interactive sessions">
        <p className="muted">Notebooks and editors that run beside your data; pause one to stop paying for it.</p>
      </PageHeader>
      <section aria-labelledby="session-list-title">
        <h2 id="session-list-title" className="visually-hidden">
          Session list
        </h2>
        <div className="toolbar">
          <label>
            Status
            <select
              value={status}
              onChange={(e) => {
                setStatus(e.target.value);
                setPage(1);
              }}
            >
              {STATUS_FILTERS.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </label>
          <span className="check">
            <input
              id="sessions-mine"
              type="checkbox"
              checked={mine}
              onChange={(e) => {
                setMine(e.target.checked);
                setPage(1);
              }}
            />{' '}
            <label htmlFor="sessions-mine">Only mine</label>
          </span>
        </div>
        <p role="status" className="status-line">
          {message}
        </p>
        {list.isError && <ErrorNotice error={list.error} title="Sessions" />}
        {list.isPending && <Loading what="the sessions" />}
        {list.data &&
          (list.data.sessions.length ? (
            <div className={`table-wrap${list.isPlaceholderData ? ' refreshing' : ''}`}>
              <table>
                <caption className="visually-hidden">Interactive sessions</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Application</th>
                    <th scope="col">Instance type</th>
                    <th scope="col">Cost</th>
                    <th scope="col">Owner</th>
                    <th scope="col">Created</th>
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.sessions.map((s) => (
                    <tr key={s._id}>
                      <th scope="row" className="name-cell">
                        <Link to={paths.session(s._id)}>{s.name}</Link>
                        <div className="muted">{s.project.name}</div>
                      </th>
                      <td>
                        <StatusBadge status={shownStatus(s.status)} />
                      </td>
                      <td>{backendName(s.backend)}</td>
                      <td>{s.resources.instanceType}</td>
                      <td>{dollars(s.totalCostInUsd)}</td>
                      <td>{ownerOf(s)}</td>
                      <td>
                        <Time iso={s.createdAt} />
                      </td>
                      <td>
                        <SessionActions session={s} onChanged={setMessage} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted empty-folder">No session{status || mine ? ' matches' : ' yet'}.</p>
          ))}
        {list.data && (
          <Pager
            page={page}
            pageCount={list.data.paginationMetadata.totalPages}
            total={list.data.paginationMetadata.count}
            noun="sessions"
            onPage={setPage}
          />
        )}
      </section>
      {role !== 'viewer' && <CreateSessionForm />}
    </>
  );
}
