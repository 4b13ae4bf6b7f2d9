import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { EngineDriver, EngineServer } from '@runyard/contract';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';

const DRIVERS: EngineDriver[] = ['toil', 'cromwell', 'miniwdl'];

/** Which WDL engine the workspace's server runs (a platform administrator's choice; the server must be stopped). */
export function EngineDriverForm({ server }: { server: EngineServer }) {
  const api = useApi();
  const { workspaceId } = useAdminAccess();
  const queries = useQueryClient();
  const id = useId();
  const [driver, setDriver] = useState<EngineDriver>(server.driver);
  const [url, setUrl] = useState(server.url ?? '');
  const set = useMutation({
    mutationFn: () => api.admin.setWorkspaceEngine(workspaceId, driver, driver === 'cromwell' && url.trim() ? url.trim() : undefined),
    onSuccess: (s) => queries.setQueryData(adminKeys.engine(workspaceId), s),
  });
  const stopped = server.status === 'Stopped';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate();
  };
  return (
    <div className="card">
      <h3>Engine driver</h3>
      {!stopped && <p className="muted">Stop the engine server to change its driver.</p>}
      <form className="admin-form" onSubmit={submit}>
        <div className="form-grid">
          <label htmlFor={`${id}-driver`}>Driver</label>
          <select id={`${id}-driver`} value={driver} disabled={!stopped} onChange={(e) => setDriver(e.target.value as EngineDriver)}>
            {DRIVERS.map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
          {driver === 'cromwell' && (
            <>
              <label htmlFor={`${id}-url`}>Cromwell URL</label>
              <input
                id={`${id}-url`}
                type="url"
                value={url}
                disabled={!stopped}
                placeholder="empty: the server's own Cromwell"
                onChange={(e) => setUrl(e.target.value)}
              />
            </>
          )}
        </div>
        {set.isError && <ErrorNotice error={set.error} title="Driver not changed" />}
        <p className="admin-status" role="status">
          {set.isSuccess && `The engine server now uses ${set.data.driver}.`}
        </p>
        <div className="actions">
          <button type="submit" disabled={!stopped || set.isPending}>
            {set.isPending ? 'Saving…' : 'Save driver'}
          </button>
        </div>
      </form>
    </div>
  );
}
