import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance, type FastifyServerFactory } from 'fastify';
import { sharedSessionsOriginWarning, type Config } from './config.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandler } from './http/error-handler.js';
import type { AppDeps } from './http/handler.js';
import { BODY_LIMIT_BYTES, registerJsonBodyParser } from './http/json-body.js';
import { readCachesOf } from './http/read-caches.js';
import { registerRoutes } from './http/register-routes.js';
import { sessionOrigins } from './http/session-origins.js';
import { registerSessionProxy } from './http/session-proxy.js';
import { SessionUiTokens } from './http/session-ui-token.js';
import { RequestLogController, requestSerializers } from './http/request-log.js';
import { registerTextGuard } from './http/text-guard.js';
import { registerWebApp } from './http/web-app.js';
import { HSTS_VALUE } from './http/hsts.js';
import { secureCookies } from './http/web-auth.js';
import { adminHandlers } from './routes/admin.js';
import { authHandlers } from './routes/auth.js';
import { costHandlers } from './routes/costs.js';
import { cromwellHandlers } from './routes/cromwell.js';
import { datasetHandlers, registerUploadBodyParser } from './routes/datasets.js';
import { folderHandlers } from './routes/folders.js';
import { registerHomePage } from './routes/home-page.js';
import { jobDataHandlers } from './routes/job-data.js';
import { sessionHandlers } from './routes/interactive-sessions.js';
import { jobHandlers } from './routes/jobs.js';
import { projectHandlers } from './routes/projects.js';
import { storageBrowseHandlers } from './routes/storage-browse.js';
import { systemHandlers } from './routes/system.js';
import { userHandlers } from './routes/users.js';
import { workflowHandlers } from './routes/workflows.js';
import { sessionUpstream } from './services/interactive-session-ui.js';
import { storageDepsOf } from './services/storage-access.js';
import type { BlobStore } from './storage/blob-store.js';
import { createBlobStore } from './storage/registry.js';
import type { Store } from './store/database.js';
import { VERSION } from './version.js';

export interface BuildDeps {
  store: Store;
  /** Log lines go here; defaults to stdout at the configured level. */
  logStream?: NodeJS.WritableStream;
  /** The job scheduler, woken by submissions and aborts (main.ts starts it after listening). */
  scheduler?: { wake(): void };
  /** The blob store; default: the one the configuration chooses. */
  blobs?: BlobStore;
  /** The deletion worker, woken when a deletion is scheduled (main.ts starts it). */
  deletionWorker?: { wake(): void };
  /** An HTTP(S) server that is already listening (main.ts binds it first); default: Fastify's own. */
  serverFactory?: FastifyServerFactory;
}

/** Builds the HTTP application on an open, migrated store. It never listens: main.ts does. */
export async function buildApp(
  config: Config,
  { store, logStream, scheduler, blobs, deletionWorker, serverFactory }: BuildDeps,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      // Credentials never reach a log line, whatever a serializer decides to include.
      // The dashboard's session cookie and CSRF token too (web-auth.ts), and the API key of its sign-in body.
      redact: {
        paths: [
          'req.headers.apikey',
          'req.headers.authorization',
          'req.headers.cookie',
          'req.headers["x-runyard-csrf"]',
          'res.headers["set-cookie"]',
          'apikey',
          '*.apikey',
          'body.apikey',
          '*.body.apikey',
        ],
        censor: '[redacted]',
      },
      serializers: requestSerializers,
      ...(logStream && { stream: logStream }),
    },
    logController: new RequestLogController(),
    ...(serverFactory
      ? { serverFactory }
      : config.tlsCertFile && { https: { cert: readFileSync(config.tlsCertFile), key: readFileSync(config.tlsKeyFile) } }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: true } },
  }) as unknown as FastifyInstance;
  const storage = storageDepsOf(blobs ?? createBlobStore(config));
  // Long-lived replies (event streams) end when the server closes, so that close does not wait for their clients.
  const closing = new AbortController();
  app.addHook('preClose', async () => closing.abort());
  const sessionUi = SessionUiTokens.fromKeyFile(config.secretKeyFile);
  // The default sessions' origin takes the port the server listens on, known once it listens (port 0).
  const origins = sessionOrigins(config, () => app.server.address());
  if (!origins.own) app.log.warn(sharedSessionsOriginWarning(config.publicUrl || config.host));
  const deps: AppDeps = {
    sessionOrigins: origins,
    closing: closing.signal,
    sessionUi,
    store,
    db: store.db,
    config,
    version: VERSION,
    storage,
    readCaches: readCachesOf(store),
    ...(scheduler && { scheduler }),
    ...(deletionWorker && { deletionWorker }),
  };
  registerJsonBodyParser(app);
  registerUploadBodyParser(app);
  registerTextGuard(app);
  registerErrorHandler(app);
  registerHomePage(app, VERSION);
  // Cheap defence in depth: no API answer is shown in a frame (the session proxy's own answers are the sessions').
  // Served over HTTPS (directly or behind a proxy that speaks it): browsers are told to keep to it (HSTS).
  const hsts = secureCookies(config);
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api/') && !reply.hasHeader('x-frame-options')) void reply.header('x-frame-options', 'DENY');
    if (hsts) void reply.header('strict-transport-security', HSTS_VALUE);
  });
  await registerWebApp(app, config.webDir, {
    elsewhere: (host) => (origins.isSessionsHost(host) ? `${origins.platformUrl() ?? ''}/app/` : null),
  });
  registerRoutes(app, deps, {
    ...systemHandlers,
    ...authHandlers,
    ...userHandlers,
    ...projectHandlers,
    ...adminHandlers,
    ...workflowHandlers,
    ...jobHandlers,
    ...datasetHandlers,
    ...folderHandlers,
    ...storageBrowseHandlers,
    ...jobDataHandlers,
    ...costHandlers,
    ...cromwellHandlers,
    ...sessionHandlers,
  });
  // Sessions' web UIs: checked again on every request (the person may still use the session, which still runs).
  // On their own origin, they are served there only, to pages of that origin.
  const publicOrigin = config.publicUrl ? [new URL(config.publicUrl).origin] : [];
  registerSessionProxy(app, {
    tokens: sessionUi,
    resolve: (sessionId, userId, keyId) => sessionUpstream(store.db, config, sessionId, userId, keyId),
    // Secure where sessions are reached over HTTPS: their own URL's scheme, else the platform's.
    secureCookies: config.sessionsUrl ? config.sessionsUrl.startsWith('https:') : secureCookies(config),
    ...(origins.own
      ? {
          servesHost: (host) => origins.isSessionsHost(host),
          allowedOrigins: () => {
            const sessions = origins.sessionsUrl();
            return sessions ? [sessions] : [];
          },
        }
      : // Behind a reverse proxy the browser's Origin is the public URL's.
        { allowedOrigins: publicOrigin }),
  });
  return app;
}
