import type { AddressInfo } from 'node:net';
import { platformUrlOf, sessionsOriginKind, sessionsUrlOf, type Config } from '../config.js';

/**
 * Where sessions' web UIs are served (docs/sessions.md): on an origin of their own, another host
 * name than the platform's, so that a session's pages never get (nor can use) the dashboard's
 * cookie; or, when the configuration gives none, on the platform's origin. The default origin's
 * port is the one the server listens on, which a server on port 0 learns only once it listens:
 * hence a function of the listening address, asked at each use.
 */
export interface SessionOrigins {
  /** Whether sessions have an origin of their own (known from the configuration). */
  readonly own: boolean;
  /** The sessions' origin (`http://localhost:8080`) when they have their own and the server's port is known; null otherwise. */
  sessionsUrl(): string | null;
  /** The platform's URL (the public URL, else the listen address), once the port is known. */
  platformUrl(): string | null;
  /**
   * Whether a request's Host header names the sessions' origin: the same host name (in any letter
   * case) and port (the scheme's default when absent). A browser always sends the host and port it
   * connected to, so this is where a session's pages and their own requests arrive.
   */
  isSessionsHost(host: string | string[] | undefined): boolean;
}

/** The origins of a server with this configuration, whose listening address `address()` gives (null before it listens). */
export function sessionOrigins(config: Config, address: () => AddressInfo | string | null): SessionOrigins {
  const own = sessionsOriginKind(config) === 'own';
  const port = (): number | null => {
    const a = address();
    if (a && typeof a === 'object') return a.port;
    return config.port || null;
  };
  const platformUrl = () => {
    if (config.publicUrl) return platformUrlOf(config, 0);
    const p = port();
    return p === null ? null : platformUrlOf(config, p);
  };
  const sessionsUrl = () => {
    if (!own) return null;
    if (config.sessionsUrl) return config.sessionsUrl;
    const platform = platformUrl();
    return platform === null ? null : sessionsUrlOf(config, platform);
  };
  return {
    own,
    sessionsUrl,
    platformUrl,
    isSessionsHost(host) {
      const sessions = own ? sessionsUrl() : null;
      const value = Array.isArray(host) ? host[0] : host;
      // A browser's Host is a host and a port, nothing else.
      if (sessions === null || !value || /[/@?#\\\s]/.test(value)) return false;
      try {
        const url = new URL(sessions);
        return new URL(`${url.protocol}//${value}`).host === url.host;
      } catch {
        return false;
      }
    },
  };
}
