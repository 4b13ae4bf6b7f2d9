import type { ReadCaches } from './read-caches.js';
import type { SessionOrigins } from './session-origins.js';
import type { SessionUiTokens } from './session-ui-token.js';
import type { Kysely } from 'kysely';
import type { RouteId } from '@runyard/contract';
import type { Config } from '../config.js';
import type { AuthUser, Context } from '../services/context.js';
import type { StorageDeps } from '../services/storage-access.js';
import type { Database } from '../store/schema.js';
import type { Store } from '../store/database.js';

/** What a route handler may use: the open store, the configuration, the server version. */
export interface AppDeps {
  store: Store;
  db: Kysely<Database>;
  config: Config;
  version: string;
  /** The job scheduler of this process, when one runs: wake() after queueing a job or requesting an abort. */
  scheduler?: { wake(): void };
  /** The blob store (and the Azure account when it is Azure): job data and the File Explorer. */
  storage: StorageDeps;
  /** The deletion worker of this process, when one runs: wake() after scheduling a deletion. */
  deletionWorker?: { wake(): void };
  /** Aborted when the server starts to close: long-lived replies (event streams) end then. */
  closing?: AbortSignal;
  /** Issues the launch tokens of sessions' web UIs (the proxy verifies them: session-proxy.ts). */
  sessionUi: SessionUiTokens;
  /** SQLite files: what is kept between requests until the next commit (read-caches.ts). */
  readCaches?: ReadCaches;
  /** Where sessions' web UIs are served: the launch link's origin, and the host where the dashboard's cookie is refused. */
  sessionOrigins: SessionOrigins;
}

/** A request after authentication, the workspace check and schema validation. */
export interface RouteRequest<Q = any, B = any, P = any> {
  user: AuthUser | null;
  /** Set on workspace routes only. */
  ctx: Context;
  query: Q;
  body: B;
  params: P;
  /** The request's headers (names lowercased). */
  headers: Record<string, string | string[] | undefined>;
}

export type Handler = (req: RouteRequest, deps: AppDeps) => Promise<unknown>;
export type Handlers = Partial<Record<RouteId, Handler>>;
