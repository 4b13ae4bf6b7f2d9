import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { UserMe } from '@runyard/contract';
import { makeApi, type RunyardApi } from './client';

type SessionState = { status: 'loading' } | { status: 'signed-out' } | { status: 'signed-in'; user: UserMe; expiresAt: string };

interface SessionValue {
  state: SessionState;
  api: RunyardApi;
  /** Exchanges an API key for the session cookie; throws the server's error (shown by the form). */
  signIn(apikey: string): Promise<void>;
  signOut(): Promise<void>;
  /** Reads the user again (after a change to their workspaces). */
  refresh(): Promise<void>;
  /** The CSRF token for a write sent outside the SDK (an upload through XMLHttpRequest: header x-runyard-csrf). */
  csrfToken(): string | undefined;
}

const SessionContext = createContext<SessionValue | null>(null);

/** Who is signed in: asked of the server once on load (the cookie is invisible to the page). */
export function SessionProvider({ children }: { children: ReactNode }) {
  const csrf = useRef<string | undefined>(undefined);
  const api = useMemo(() => makeApi(() => csrf.current), []);
  const queries = useQueryClient();
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const refresh = useCallback(async () => {
    const session = await api.currentSession().catch(() => null);
    if (!session) {
      csrf.current = undefined;
      setState({ status: 'signed-out' });
      return;
    }
    csrf.current = session.csrfToken;
    setState({ status: 'signed-in', user: session.user as UserMe, expiresAt: session.expiresAt });
  }, [api]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const signIn = useCallback(
    async (apikey: string) => {
      const session = await api.login(apikey);
      csrf.current = session.csrfToken;
      queries.clear();
      setState({ status: 'signed-in', user: session.user as UserMe, expiresAt: session.expiresAt });
    },
    [api, queries],
  );

  const signOut = useCallback(async () => {
    await api.logout().catch(() => undefined);
    csrf.current = undefined;
    queries.clear();
    setState({ status: 'signed-out' });
  }, [api, queries]);

  const csrfToken = useCallback(() => csrf.current, []);
  const value = useMemo(() => ({ state, api, signIn, signOut, refresh, csrfToken }), [state, api, signIn, signOut, refresh, csrfToken]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}

/** The SDK of the signed-in person. */
export function useApi(): RunyardApi {
  return useSession().api;
}

/** The signed-in user (only under RequireSession). */
export function useUser(): UserMe {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useUser outside a signed-in page');
  return state.user;
}
