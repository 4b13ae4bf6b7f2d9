import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { AdminApiKeyCreated } from '@runyard/contract';
import { useApi } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { adminKeys } from './admin-queries';
import { SecretField } from './secret-field';

/**
 * Makes an API key for a user and shows its secret once (the server keeps only a hash of it): the
 * person copies it, then Done forgets it in the page too.
 */
export function NewKeyForm({ userId, forWhom }: { userId: string; forWhom?: string }) {
  const api = useApi();
  const queries = useQueryClient();
  const nameId = useId();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<AdminApiKeyCreated | null>(null);
  const create = useMutation({
    mutationFn: (keyName: string) => api.admin.createApiKey(userId, keyName || undefined),
    onSuccess: (key) => {
      setName('');
      setCreated(key);
      void queries.invalidateQueries({ queryKey: adminKeys.apikeys(userId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(name.trim());
  };

  if (created) {
    return (
      <div className="admin-new-key">
        <SecretField
          label={`New API key${created.name ? ` “${created.name}”` : ''}${forWhom ? ` for ${forWhom}` : ''}`}
          value={created.apikey}
          warning="Copy this key now: it will not be shown again. Anyone who has it can act as its user."
        />
        <div className="actions">
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      </div>
    );
  }
  return (
    <form className="admin-form" onSubmit={submit}>
      <div className="form-grid">
        <label htmlFor={nameId}>Key name</label>
        <input
          id={nameId}
          value={name}
          maxLength={200}
          placeholder="e.g. laptop, CI"
          aria-describedby={`${nameId}-hint`}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <p id={`${nameId}-hint`} className="muted">
        A name helps you recognise the key later; the secret is shown once, right after it is made.
      </p>
      {create.isError && <ErrorNotice error={create.error} title="No key made" />}
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create API key'}
        </button>
      </div>
    </form>
  );
}
