import { Link, useParams } from 'react-router';
import { statusOf } from '../../api/errors';
import { paths } from '../../app/paths';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { PageHeader } from '../../components/page-header';
import { StatusBadge } from '../../components/status-badge';
import { Time } from '../../components/time';
import { SessionActions } from './session-actions';
import { backendName, costLimit, dollars, duration, ownerOf, shownStatus } from './session-format';
import { SessionMounts } from './session-mounts';
import { useInteractiveSession } from './use-sessions';
import '../data/area.css';

const STOP_REASONS: Record<string, string> = {
  user: 'paused by a person',
  costLimit: 'its cost limit was reached',
  autoShutdown: 'its auto-shutdown time came',
  error: 'its server failed',
};

/** One session (the link `runyard interactive-session create` prints): status, configuration, costs, mounts and its actions. */
export function SessionPage() {
  const { sessionId = '' } = useParams();
  const session = useInteractiveSession(sessionId);
  const back = (
    <p>
      <Link to={paths.sessions}>All sessions</Link>
    </p>
  );
  if (session.isError) {
    return (
      <>
        <PageHeader title="Interactive session" />
        {statusOf(session.error) === 404 ? (
          <p role="alert" className="error-notice">
            Session not found in this workspace (it may belong to another workspace, or be another member's private session).
          </p>
        ) : (
          <ErrorNotice error={session.error} title="Session" />
        )}
        {back}
      </>
    );
  }
  if (!session.data) return <Loading what="the session" />;
  const s = session.data;
  const conf = s.interactiveSessionConfiguration;

  return (
    <>
      <PageHeader title={s.name} actions={<SessionActions session={s} />}>
        <p>
          <StatusBadge status={shownStatus(s.status)} /> <span className="muted">{backendName(s.backend)} session</span>
        </p>
      </PageHeader>
      {back}
      <div aria-live="polite">
        {s.statusMessage && <p className="notice">{s.statusMessage}</p>}
        {s.stopReason && s.status === 'aborted' && <p className="muted">Stopped because {STOP_REASONS[s.stopReason] ?? s.stopReason}.</p>}
      </div>
      <div className="side-by-side">
        <section className="card" aria-labelledby="session-status-title">
          <h2 id="session-status-title">Status</h2>
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              {shownStatus(s.status)} <span className="muted">({s.status})</span>
            </dd>
            <dt>Project</dt>
            <dd>{s.project.name}</dd>
            <dt>Owner</dt>
            <dd>{ownerOf(s)}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={s.createdAt} />
            </dd>
            <dt>Running since</dt>
            <dd>
              <Time iso={s.startedAt} />
            </dd>
            <dt>Home last saved</dt>
            <dd>
              <Time iso={s.lastSavedAt} />
            </dd>
            {s.endedAt && (
              <>
                <dt>Ended</dt>
                <dd>
                  <Time iso={s.endedAt} />
                </dd>
              </>
            )}
          </dl>
        </section>
        <section className="card" aria-labelledby="session-config-title">
          <h2 id="session-config-title">Configuration</h2>
          <dl className="facts">
            <dt>Application</dt>
            <dd>{backendName(s.backend)}</dd>
            <dt>Instance type</dt>
            <dd>
              {s.resources.instanceType} ({s.resources.vcpus} vCPU, {s.resources.memoryGiB} GiB)
            </dd>
            <dt>Visibility</dt>
            <dd>{s.visibility === 'workspace' ? 'every member of the workspace' : 'private'}</dd>
            <dt>Cost limit</dt>
            <dd>{costLimit(conf.execution.computeCostLimit)}</dd>
            <dt>Stops automatically</dt>
            <dd>{conf.execution.autoShutdownAtDate ? <Time iso={conf.execution.autoShutdownAtDate} /> : 'never'}</dd>
            <dt>Storage asked for</dt>
            <dd>{conf.storageSizeInGb} GB</dd>
            <dt>Platform asked for</dt>
            <dd>{conf.executionPlatform}</dd>
            {s.rVersion && (
              <>
                <dt>R version</dt>
                <dd>{s.rVersion}</dd>
              </>
            )}
          </dl>
        </section>
        <section className="card" aria-labelledby="session-cost-title">
          <h2 id="session-cost-title">Costs</h2>
          <dl className="facts">
            <dt>Cost so far</dt>
            <dd>{dollars(s.totalCostInUsd)}</dd>
            <dt>Price</dt>
            <dd>{dollars(s.costPerHour)} per hour</dd>
            <dt>Running time</dt>
            <dd>{duration(s.totalRunningTimeInSeconds)}</dd>
          </dl>
        </section>
      </div>
      {s.runyardNotes.length > 0 && (
        <section className="card" aria-labelledby="session-notes-title">
          <h2 id="session-notes-title">Options without effect on this server</h2>
          <ul className="notes">
            {s.runyardNotes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </section>
      )}
      <SessionMounts sessionId={s._id} />
    </>
  );
}
