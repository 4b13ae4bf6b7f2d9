import { useState, type FormEvent } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { useSession } from '../../api/session';
import { ErrorNotice } from '../../components/error-notice';
import { paths } from '../../app/paths';

/** Where a page sends a signed-out person: only a path of this dashboard (never another site). */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : paths.jobs;
}

/**
 * The API key is exchanged for an HttpOnly session cookie and forgotten: it is never kept in the
 * browser (no storage, no URL), so the field is cleared whatever the answer.
 */
export function SignInPage() {
  const { state, signIn } = useSession();
  const [params] = useSearchParams();
  const [apikey, setApikey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (state.status === 'signed-in') return <Navigate to={safeNext(params.get('next'))} replace />;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const key = apikey.trim();
    setApikey('');
    try {
      await signIn(key);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <form onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Runyard</h1>
        <p>
          Use an API key of yours (<code>runyard configure</code> shows where to make one). It is exchanged for a session and not kept in
          this browser.
        </p>
        <label htmlFor="apikey">API key</label>
        <input
          id="apikey"
          name="apikey"
          type="password"
          autoComplete="off"
          required
          value={apikey}
          onChange={(e) => setApikey(e.target.value)}
        />
        {error !== null && <ErrorNotice error={error} title="Could not sign in" />}
        <button type="submit" disabled={busy || state.status === 'loading'}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
