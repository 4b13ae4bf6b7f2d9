import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROUTES, type RouteId, type RouteSpec } from '@runyard/contract';
import { AppError } from '../errors/app-error.js';
import { authenticate } from '../services/api-keys.js';
import type { AuthUser, Context } from '../services/context.js';
import { authenticateEngineToken } from '../services/engine-servers.js';
import { requireRole } from '../services/roles.js';
import { workspaceContext } from '../services/workspaces.js';
import { compileBodyValidator } from './body-validator.js';
import { EventStream } from '../services/event-stream.js';
import { RawReply } from '../services/raw-reply.js';
import type { AppDeps, Handlers } from './handler.js';
import { neededRole } from './route-access.js';
import { cookieUser, SessionReply, sessionTokenOf } from './web-auth.js';

declare module 'fastify' {
  interface FastifyRequest {
    user: AuthUser | null;
    ctx: Context | null;
    /** Set when an engine token authenticated the request: the one workspace it may act in. */
    engineWorkspace: string | null;
  }
}

/** The apikey header, in any letter case (Node lowercases header names). */
function apikeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers.apikey;
  return Array.isArray(value) ? value[0] : value;
}

/** The token of `Authorization: Bearer <token>`, or undefined when the header is absent or another scheme. */
function bearerOf(request: FastifyRequest): string | undefined {
  const value = request.headers.authorization;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value ?? '');
  return match?.[1];
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The dashboard's sign-in routes (routes/auth.ts): not served on the sessions' host. */
const AUTH_PREFIX = '/api/runyard/auth/';

/** Registers every route of the contract's table with its handler and roles entry; a row without both is a startup error. */
export function registerRoutes(app: FastifyInstance, deps: AppDeps, handlers: Handlers): void {
  app.decorateRequest('user', null);
  app.decorateRequest('ctx', null);
  app.decorateRequest('engineWorkspace', null);
  for (const [id, spec] of Object.entries(ROUTES) as [RouteId, RouteSpec][]) {
    const handler = handlers[id];
    if (!handler) throw new Error(`Route ${id} (${spec.method} ${spec.path}) has no handler`);
    if (spec.admin && spec.auth !== 'apikey') throw new Error(`Admin route ${id} must require an API key`);
    const role = neededRole(id, spec);
    const checkBody = spec.body && compileBodyValidator(spec.body);
    const keptReplies = deps.readCaches?.keepsReplies(id) ? deps.readCaches : undefined;
    app.route({
      method: spec.method,
      url: spec.path,
      schema: {
        ...(spec.params && { params: spec.params }),
        ...(spec.querystring && { querystring: spec.querystring }),
        ...(spec.response && { response: { [spec.status]: spec.response } }),
      },
      onRequest: spec.path.startsWith(AUTH_PREFIX)
        ? async (request) => {
            // A session's pages would sign the person in where their own scripts run.
            if (deps.sessionOrigins.isSessionsHost(request.headers.host))
              throw new AppError(
                'CSRF_FAILED',
                `The dashboard's sign-in is not served on the interactive sessions' host: sign in at ${deps.sessionOrigins.platformUrl() ?? 'the platform URL'}/app/.`,
              );
          }
        : spec.auth === 'apikey'
          ? async (request) => {
              // The Cromwell routes also take the workspace's engine token (wire-api §1.2); it wins
              // over an apikey sent with it, as in the public client. Other routes ignore it.
              const bearer = spec.engineToken ? bearerOf(request) : undefined;
              if (bearer !== undefined) {
                const engine = await authenticateEngineToken(deps.db, bearer);
                if (!engine) throw new AppError('UNAUTHENTICATED', 'The engine token is not valid or has been rotated.');
                request.user = engine.user;
                request.engineWorkspace = engine.workspaceId;
                return;
              }
              const key = apikeyOf(request);
              // Without an apikey header, the dashboard's session cookie (web-auth.ts); with one (even empty), the cookie is ignored.
              // Never on the sessions' host: there it could only come from a session's pages.
              const cookie =
                key === undefined && !deps.sessionOrigins.isSessionsHost(request.headers.host)
                  ? sessionTokenOf(request.headers)
                  : undefined;
              let user: AuthUser | null;
              if (cookie !== undefined) user = await cookieUser(deps.db, deps.config, request.method, request.headers, cookie);
              else {
                if (!key) throw new AppError('UNAUTHENTICATED', 'Missing API key: send it in the apikey header.');
                user = deps.readCaches
                  ? await deps.readCaches.user(key, () => authenticate(deps.db, key))
                  : await authenticate(deps.db, key);
                if (!user) throw new AppError('UNAUTHENTICATED', 'The API key is not valid or has been revoked.');
              }
              request.user = user;
              // Before the body is even parsed: a non-admin learns nothing about admin routes.
              if (spec.admin && !user.isAdmin) throw new AppError('ADMIN_REQUIRED');
            }
          : undefined,
      // The body is checked here, not by Fastify's Ajv, which converts types (see body-validator.ts).
      preValidation: checkBody
        ? async (request) => {
            const [body, problems] = checkBody(request.body);
            if (problems) throw new AppError('VALIDATION_FAILED', problems);
            request.body = body;
          }
        : undefined,
      preHandler: async (request) => {
        if (spec.workspace) {
          const teamId = (request.query as { teamId?: string }).teamId;
          if (!teamId) throw new AppError('TEAM_ID_REQUIRED');
          if (request.engineWorkspace !== null) {
            // An engine token acts as a member of its own workspace, and knows no other.
            if (teamId !== request.engineWorkspace)
              throw new AppError('WORKSPACE_NOT_FOUND', `Workspace ${teamId} not found, or the engine token is not one of it.`);
            request.ctx = { user: request.user!, workspaceId: teamId, role: 'member' };
          } else if (deps.readCaches) {
            const user = request.user!;
            const role = await deps.readCaches.role(user.id, teamId, async () => (await workspaceContext(deps.db, user, teamId)).role);
            request.ctx = { user, workspaceId: teamId, role };
          } else request.ctx = await workspaceContext(deps.db, request.user!, teamId);
          // Before the handler reads the body (an upload's stream included): a refusal changes nothing.
          requireRole(request.ctx, role!);
        }
      },
      handler: async (request, reply) => {
        const run = () =>
          handler(
            {
              user: request.user,
              ctx: request.ctx!,
              query: request.query,
              body: request.body,
              params: request.params,
              headers: request.headers,
            },
            deps,
          );
        if (keptReplies) {
          // A function of the database, the caller and the query (read-caches.ts): the same bytes until the next commit.
          const { user, ctx } = request;
          const key = `${id} ${user?.id} ${ctx?.workspaceId} ${ctx?.role} ${JSON.stringify(request.query)}`;
          void reply.status(spec.status);
          const payload = await keptReplies.reply(key, async () => reply.serialize(await run()) as string);
          return reply.type(JSON_CONTENT_TYPE).send(payload);
        }
        const result = await run();
        if (result instanceof SessionReply) {
          // The sign-in routes: a cookie to set, and a CSRF token that no cache may keep.
          void reply.header('cache-control', 'no-store');
          if (result.setCookie) void reply.header('set-cookie', result.setCookie);
          void reply.status(spec.status);
          return result.body;
        }
        if (result instanceof RawReply) return reply.status(result.status).headers(result.headers).send(result.body);
        if (result instanceof EventStream) {
          // Answered by the stream itself (text/event-stream), not serialized.
          void reply.hijack();
          await result.send(reply.raw);
          return;
        }
        void reply.status(spec.status);
        return result;
      },
    });
  }
}
