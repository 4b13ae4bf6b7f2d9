import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/session';
import { useWorkspace } from '../../api/workspace';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { StatusBadge } from '../../components/status-badge';
import { sessionsKey } from './use-sessions';

/** The folders and files linked into a session (`runyard link`), with their state; asked again every 2 s while one is mounting. */
export function SessionMounts({ sessionId }: { sessionId: string }) {
  const api = useApi();
  const { workspaceId } = useWorkspace();
  const mounts = useQuery({
    queryKey: [...sessionsKey(workspaceId), 'mounts', sessionId],
    queryFn: () => api.getFuseFilesystemsStatus(sessionId, workspaceId),
    refetchInterval: (q) => (q.state.data?.some((m) => m.status === 'mounting') ? 2_000 : 30_000),
  });
  return (
    <section className="card" aria-labelledby="mounts-title">
      <h2 id="mounts-title">Mounts</h2>
      {mounts.isError && <ErrorNotice error={mounts.error} title="Mounts" />}
      {mounts.isPending && <Loading what="the mounts" />}
      {mounts.data &&
        (mounts.data.length === 0 ? (
          <p className="muted">
            Nothing is linked into this session (the CLI's <code>runyard link</code> adds folders and files).
          </p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Mounts of the session</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Where</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {mounts.data.map((m) => (
                  <tr key={m._id}>
                    <th scope="row" className="name-cell">
                      {m.mountName}
                    </th>
                    <td>
                      {m.itemType} ({m.storageProvider === 'file' ? 'File Explorer' : 'storage'}){m.readOnly ? ', read-only' : ''}
                    </td>
                    <td className="mono">{m.mountPoint}</td>
                    <td>
                      <StatusBadge status={m.status} />
                      {m.errorMessage && <div className="error-text">{m.errorMessage}</div>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}
