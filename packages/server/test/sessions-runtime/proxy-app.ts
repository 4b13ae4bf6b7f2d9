import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandler } from '../../src/http/error-handler.js';
import { registerJsonBodyParser } from '../../src/http/json-body.js';
import { RequestLogController, requestSerializers } from '../../src/http/request-log.js';
import { registerSessionProxy, type SessionProxy, type SessionUpstream } from '../../src/http/session-proxy.js';
import { SessionUiTokens } from '../../src/http/session-ui-token.js';
import { registerTextGuard } from '../../src/http/text-guard.js';

/** A session as the route layer would know it: where it listens, and who may open it. */
export interface KnownSession {
  upstream: SessionUpstream;
  members: Set<string>;
}

export interface ProxyApp {
  app: FastifyInstance;
  config: Config;
  /** http://127.0.0.1:<port> */
  url: string;
  /** The tokens of this server (same key file as the proxy's). */
  tokens: SessionUiTokens;
  sessions: Map<string, KnownSession>;
  proxy: SessionProxy;
  logs: string[];
  close(): Promise<void>;
}

/**
 * A Fastify server set up as buildApp sets up the platform's (logger with its redaction and request
 * log, the JSON body parser, the text guard, the wire error handler and 404), with the session proxy
 * registered, listening on a loopback port. Not buildApp itself: the routes of the platform are not
 * what is tested here, and the app will register the proxy itself once it is wired.
 */
export async function startProxyApp(env: NodeJS.ProcessEnv = {}): Promise<ProxyApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-proxy-'));
  const config = loadConfig({ RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0', RUNYARD_LOG_LEVEL: 'debug', PATH: process.env.PATH, ...env });
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.apikey', 'req.headers.authorization', 'apikey', '*.apikey'], censor: '[redacted]' },
      serializers: requestSerializers,
      stream,
    },
    logController: new RequestLogController(),
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  }) as unknown as FastifyInstance;
  registerJsonBodyParser(app);
  registerTextGuard(app);
  registerErrorHandler(app);
  app.get('/api/runyard/health', async () => ({ ok: true }));
  const sessions = new Map<string, KnownSession>();
  const tokens = SessionUiTokens.fromKeyFile(config.secretKeyFile);
  const proxy = registerSessionProxy(app, {
    tokens: SessionUiTokens.fromKeyFile(config.secretKeyFile),
    resolve: (sessionId, userId) => {
      const known = sessions.get(sessionId);
      return Promise.resolve(known && known.members.has(userId) ? known.upstream : null);
    },
    // Open WebSockets checked again often: a revocation's effect is awaited, not slept for.
    recheckMs: 100,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, config, url, tokens, sessions, proxy, logs, close: () => app.close() };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with node:http (fetch would refuse to send some of the headers tested here, and follows redirects). */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; socketPath?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, ...(options.socketPath && { socketPath: options.socketPath }) },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(options.body);
  });
}

/** The proxy's cookie from a launch answer's Set-Cookie, as a Cookie header value. */
export function cookieOf(answer: Answer): string {
  const set = answer.headers['set-cookie'] ?? [];
  const ours = set.find((c) => c.startsWith('runyard-session-ui='));
  if (!ours) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return ours.split(';', 1)[0]!;
}
