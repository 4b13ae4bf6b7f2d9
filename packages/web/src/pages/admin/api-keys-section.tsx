import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { AdminApiKey } from '@runyard/contract';
import { useApi, useSession } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { Loading } from '../../components/loading';
import { Time } from '../../components/time';
import { useAdminAccess } from './admin-access';
import { adminKeys } from './admin-queries';
import { ConfirmStep } from '../../components/confirm-step';
import { NewKeyForm } from './new-key-form';
import { RoleNeeded } from './role-needed';

/** The signed-in person's own API keys: list, create (the secret shown once), revoke. */
export function ApiKeysSection() {
  const access = useAdminAccess();
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Your API keys</h2>
      {access.platformAdmin ? (
        <>
          <div className="card">
            <h3>New API key</h3>
            <NewKeyForm userId={access.userId} />
          </div>
          <KeyTable userId={access.userId} />
        </>
      ) : (
        <RoleNeeded need="platformAdmin" to="list, create or revoke API keys (the server's admin/apikeys routes)" />
      )}
    </section>
  );
}

function KeyTable({ userId }: { userId: string }) {
  const api = useApi();
  const keys = useQuery({
    queryKey: adminKeys.apikeys(userId),
    queryFn: () => api.admin.listApiKeys(userId),
    placeholderData: keepPreviousData,
  });
  if (keys.isPending) return <Loading what="your API keys" />;
  if (keys.isError) return <ErrorNotice error={keys.error} title="Could not list your API keys" />;
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Your API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Starts with</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.data.length === 0 && (
            <tr>
              <td colSpan={6} className="muted">
                You have no API keys.
              </td>
            </tr>
          )}
          {keys.data.map((key) => (
            <KeyRow key={key.id} apikey={key} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function KeyRow({ apikey }: { apikey: AdminApiKey }) {
  const api = useApi();
  const { refresh } = useSession();
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const revoke = useMutation({
    mutationFn: () => api.admin.revokeApiKey(apikey.id),
    onSuccess: async () => {
      setConfirming(false);
      await queries.invalidateQueries({ queryKey: adminKeys.apikeys(apikey.userId) });
      // Revoking the key this sign-in was made with ends the session: find out now, not on the next click.
      await refresh();
    },
  });
  const label = apikey.name || `${apikey.prefix}…`;
  return (
    <>
      <tr>
        <td className="admin-name">{apikey.name || <span className="muted">(no name)</span>}</td>
        <td>
          <code>{apikey.prefix}…</code>
        </td>
        <td>
          <Time iso={apikey.createdAt} />
        </td>
        <td>{apikey.lastUsedAt ? <Time iso={apikey.lastUsedAt} /> : <span className="muted">never</span>}</td>
        <td>
          {apikey.revokedAt ? <span className="status status-aborted">revoked</span> : <span className="status status-ready">active</span>}
        </td>
        <td>
          {!apikey.revokedAt && !confirming && (
            <button type="button" className="secondary" onClick={() => setConfirming(true)} aria-label={`Revoke ${label}`}>
              Revoke
            </button>
          )}
        </td>
      </tr>
      {confirming && (
        <tr className="admin-row-panel">
          <td colSpan={6}>
            <ConfirmStep
              question={
                <>
                  Revoke the key <strong>{label}</strong>? Programs that use it stop working at once; if you signed in with it, you are
                  signed out.
                </>
              }
              confirmLabel="Revoke key"
              busy={revoke.isPending}
              onConfirm={() => revoke.mutate()}
              onCancel={() => setConfirming(false)}
            />
            {revoke.isError && <ErrorNotice error={revoke.error} title="Not revoked" />}
          </td>
        </tr>
      )}
    </>
  );
}
