import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { useAdminAccess } from './admin-access';
import { ConfirmStep } from '../../components/confirm-step';
import { SecretField } from './secret-field';

/**
 * The workspace's engine token (Bearer token of the Cromwell routes; acts as a member of this
 * workspace): shown on request only, hidden again by a button, and rotated after a confirmation.
 */
export function EngineTokenCard() {
  const api = useApi();
  const { workspaceId } = useAdminAccess();
  const [token, setToken] = useState<string | null>(null);
  const [rotating, setRotating] = useState(false);
  const show = useMutation({
    mutationFn: () => api.showEngineToken(workspaceId),
    onSuccess: (t) => setToken(t.token),
  });
  const rotate = useMutation({
    mutationFn: () => api.rotateEngineToken(workspaceId),
    onSuccess: (t) => {
      setRotating(false);
      setToken(t.token);
    },
  });
  return (
    <div className="card">
      <h3>Engine token</h3>
      <p className="muted">
        Programs that drive this workspace's engine server (the Cromwell routes) send it as <code>Authorization: Bearer …</code>; it acts as
        a member of this workspace only.
      </p>
      {token !== null ? (
        <SecretField
          label={rotate.isSuccess ? 'New engine token' : 'Engine token'}
          value={token}
          warning={
            rotate.isSuccess
              ? 'The old token no longer works: give this one to the programs that used it.'
              : 'Keep it secret: anyone who has it can run WDL jobs in this workspace.'
          }
        />
      ) : null}
      <div className="actions">
        {token === null ? (
          <button type="button" className="secondary" disabled={show.isPending} onClick={() => show.mutate()}>
            {show.isPending ? 'Reading…' : 'Show token'}
          </button>
        ) : (
          <button type="button" className="secondary" onClick={() => setToken(null)}>
            Hide token
          </button>
        )}
        {!rotating && (
          <button type="button" className="secondary" onClick={() => setRotating(true)}>
            Rotate token
          </button>
        )}
      </div>
      {rotating && (
        <ConfirmStep
          question="Make a new engine token? The current one stops working at once."
          confirmLabel="Rotate engine token"
          busy={rotate.isPending}
          onConfirm={() => rotate.mutate()}
          onCancel={() => setRotating(false)}
        />
      )}
      {show.isError && <ErrorNotice error={show.error} title="Could not read the token" />}
      {rotate.isError && <ErrorNotice error={rotate.error} title="Token not rotated" />}
    </div>
  );
}
