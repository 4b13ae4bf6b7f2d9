import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { EngineAction, EngineServer } from '@runyard/contract';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';
import { ConfirmStep } from '../../components/confirm-step';
import { EngineDriverForm } from './engine-driver-form';
import { EngineTokenCard } from './engine-token-card';
import { RoleNeeded } from './role-needed';

const MOVING = new Set(['Starting', 'Stopping']);

/**
 * The workspace's WDL engine server: its status (every role), start and stop (member), the engine
 * token (admin), and its driver (a platform administrator, while it is stopped).
 */
export function EngineSection() {
  const api = useApi();
  const access = useAdminAccess();
  const queries = useQueryClient();
  const key = adminKeys.engine(access.workspaceId);
  const [stopping, setStopping] = useState(false);
  const switchEngine = useMutation({
    mutationFn: (action: EngineAction) => api.cromwellSwitch(access.workspaceId, action),
    onSuccess: (server) => {
      setStopping(false);
      queries.setQueryData(key, server);
    },
    onSettled: () => void queries.invalidateQueries({ queryKey: key }),
  });
  const engine = useQuery({
    queryKey: key,
    queryFn: () => api.getCromwellStatus(access.workspaceId),
    placeholderData: keepPreviousData,
    // While it starts or stops (or a switch is waiting for that), read it every 2 s.
    refetchInterval: (q) => (switchEngine.isPending || MOVING.has(q.state.data?.status ?? '') ? 2000 : false),
  });

  return (
    <section aria-labelledby="engine-title">
      <h2 id="engine-title">Engine server of {access.workspaceName}</h2>
      <div className="card">
        {engine.isPending ? (
          <Loading what="the engine server" />
        ) : engine.isError ? (
          <ErrorNotice error={engine.error} title="Could not read the engine server" />
        ) : (
          <EngineFacts server={engine.data} />
        )}
        {access.has('member') ? (
          <>
            <div className="actions admin-engine-actions">
              <button
                type="button"
                disabled={switchEngine.isPending || !engine.data || engine.data.status !== 'Stopped'}
                onClick={() => switchEngine.mutate('restart')}
              >
                {switchEngine.isPending && switchEngine.variables === 'restart' ? 'Starting…' : 'Start'}
              </button>
              <button
                type="button"
                className="secondary"
                disabled={switchEngine.isPending || stopping || !engine.data || engine.data.status === 'Stopped'}
                onClick={() => setStopping(true)}
              >
                Stop
              </button>
            </div>
            {stopping && (
              <ConfirmStep
                question="Stop the engine server? Running WDL jobs finish first; new WDL jobs start it again."
                confirmLabel="Stop engine server"
                busy={switchEngine.isPending}
                onConfirm={() => switchEngine.mutate('stop')}
                onCancel={() => setStopping(false)}
              />
            )}
            {switchEngine.isError && <ErrorNotice error={switchEngine.error} title="The engine server did not switch" />}
          </>
        ) : (
          <RoleNeeded need="member" to="start or stop the engine server" />
        )}
      </div>
      {access.has('admin') ? <EngineTokenCard /> : <RoleNeeded need="admin" to="show or rotate the workspace's engine token" />}
      {access.platformAdmin && engine.data && <EngineDriverForm server={engine.data} />}
    </section>
  );
}

function EngineFacts({ server }: { server: EngineServer }) {
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <span className={`status status-${server.status.toLowerCase() === 'running' ? 'running' : server.status.toLowerCase()}`}>
          {server.status}
        </span>
        {server.statusMessage && <div className="muted">{server.statusMessage}</div>}
      </dd>
      <dt>Driver</dt>
      <dd>{server.driver}</dd>
      {server.url && (
        <>
          <dt>Cromwell URL</dt>
          <dd className="mono">{server.url}</dd>
        </>
      )}
      {server.managedProcess && (
        <>
          <dt>Process</dt>
          <dd>
            {server.managedProcess.host}:{server.managedProcess.port}, since <Time iso={server.managedProcess.startedAt} />
          </dd>
        </>
      )}
      <dt>Changed</dt>
      <dd>
        <Time iso={server.updatedAt} />
      </dd>
      <dt>Id</dt>
      <dd>
        <code>{server._id}</code> <span className="muted">(a WDL job's cromwellCloudResources)</span>
      </dd>
    </dl>
  );
}
