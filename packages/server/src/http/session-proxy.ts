import { Agent, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createProxyServer } from 'http-proxy-3';
import { cookieValues } from './cookies.js';
import { routeNotFoundBody, wireErrorBody } from './error-handler.js';
import type { SessionUiTokens } from './session-ui-token.js';
import { HSTS_VALUE } from './hsts.js';

/**
 * The platform's proxy to the web UI of interactive sessions: `/api/runyard/interactive-sessions/{id}/ui/...`
 * (HTTP, and WebSocket: Jupyter's kernels talk over it) goes to the session's own server on its
 * unix socket, which serves under the same path (so nothing is rewritten), with the session's own
 * token added (`Authorization: token <t>`).
 *
 * Who may pass: a person with a launch token the platform issued for this session (session-ui-token.ts),
 * taken once on the first visit (`?token=`) in exchange for a cookie (HttpOnly, SameSite=Strict,
 * scoped to the session's path), and then with that cookie; on every request, resolve() must
 * still give the session for that person (a member of its workspace, the session running), and
 * an open WebSocket is asked again every few seconds (closed once it no longer would).
 * Anything else answers exactly what a path no route serves (404), so that nobody learns whether
 * a session exists.
 *
 * What the session's server gets of a request: neither the platform's credentials (apikey,
 * Authorization, Runyard's cookies: every cookie named runyard*) nor the launch token. What the
 * browser gets of its answers: no CORS permission (Jupyter grants any origin to token-authenticated
 * requests, which every proxied request is) and no cookie named runyard*. Since Jupyter checks
 * neither Origin nor XSRF for token-authenticated requests, the proxy refuses a request whose
 * Origin is not the sessions' own (cross-site WebSocket hijacking, CSRF from a sibling origin).
 *
 * Where: when sessions have an origin of their own (session-origins.ts), only requests sent to it
 * (servesHost) are served; the same path on the platform's host answers 404.
 */

export const SESSION_UI_PATH_PREFIX = '/api/runyard/interactive-sessions/';
/** Name of the proxy's cookie; its path scopes it to one session. */
export const SESSION_UI_COOKIE = 'runyard-session-ui';
/** The query key of the launch token. */
export const LAUNCH_TOKEN_PARAM = 'token';

/** Where a running session listens, and the token its server takes. */
export interface SessionUpstream {
  socketPath: string;
  /** The session's own token (Jupyter's); a secret: sent only to the session's socket. */
  token: string;
}

export interface SessionProxyOptions {
  /** Verifies launch tokens and issues and verifies cookies: SessionUiTokens.fromKeyFile(config.secretKeyFile). */
  tokens: SessionUiTokens;
  /**
   * Where session `sessionId` listens, when the person `userId` may use it now (the route layer
   * checks from the database that the session is running and the person is a member of its
   * workspace, and that a private session is theirs); null otherwise (the proxy answers 404).
   * Called for every request and WebSocket, after the person's token or cookie was checked: cache
   * briefly if the database must be spared (a notebook page loads dozens of files).
   */
  resolve(sessionId: string, userId: string, keyId?: string): Promise<SessionUpstream | null>;
  /** Lifetime of the cookie a launch token is exchanged for; default 12 hours. */
  cookieTtlSeconds?: number;
  /** Marks the cookie Secure: set when the platform is served over HTTPS (directly or behind a proxy). */
  secureCookies?: boolean;
  /**
   * Origins (`https://runyard.example.org`) accepted besides the request's own Host: the sessions'
   * origin, or the platform's public URL when sessions share it (a reverse proxy in front may change
   * the Host header). A function when it is known only once the server listens.
   */
  allowedOrigins?: readonly string[] | (() => readonly string[]);
  /**
   * Whether requests sent to this Host are the proxy's (the sessions' own origin); others answer
   * 404. Default: every Host (sessions share the platform's origin).
   */
  servesHost?: (host: string | undefined) => boolean;
  /** How long the session's server may take to answer a request; default 5 minutes. */
  upstreamTimeoutMs?: number;
  /**
   * How often open WebSockets are checked again with resolve() (a kernel's channel stays open for
   * hours): one whose person may no longer use the session (deactivated, removed, demoted, the key
   * revoked, the session stopped) is closed. Default 5 s.
   */
  recheckMs?: number;
}

interface Target {
  sessionId: string;
  /** The path after the session's prefix and its query, without the launch token: what the session's server is asked. */
  forwardUrl: string;
  /** The launch token of the query, if any. */
  launchToken: string | null;
  /** The session's base path (the cookie's path). */
  basePath: string;
}

/** The path a person opens to launch a session's UI (the sessions' origin before it): its base path with a launch token. */
export function sessionUiLaunchPath(sessionId: string, launchToken: string): string {
  return `${SESSION_UI_PATH_PREFIX}${sessionId}/ui/?${LAUNCH_TOKEN_PARAM}=${encodeURIComponent(launchToken)}`;
}

const TARGET = /^\/api\/runyard\/interactive-sessions\/([0-9a-f]{24})\/ui(\/[^?#]*)?(?:\?([^#]*))?$/;

/** The session and path a request URL names, or null when it is not a session UI URL. */
export function parseSessionUiUrl(url: string): Target | null {
  const m = TARGET.exec(url);
  if (!m) return null;
  const sessionId = m[1]!;
  const basePath = `${SESSION_UI_PATH_PREFIX}${sessionId}/ui/`;
  let launchToken: string | null = null;
  const kept: string[] = [];
  for (const pair of (m[3] ?? '').split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    if (key === LAUNCH_TOKEN_PARAM) {
      if (launchToken === null) launchToken = safeDecode(eq < 0 ? '' : pair.slice(eq + 1));
    } else kept.push(pair);
  }
  // `.../ui` (no slash): the session's server redirects it to its base path.
  const rest = m[2] ?? '';
  const forwardUrl = `${SESSION_UI_PATH_PREFIX}${sessionId}/ui${rest}${kept.length ? `?${kept.join('&')}` : ''}`;
  return { sessionId, forwardUrl, launchToken, basePath };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return '';
  }
}

/** Cookies named runyard* are the platform's: never sent to a session. */
const isPlatformCookie = (name: string) => /^runyard/i.test(name.trim());

/** The Cookie header without the platform's cookies (undefined when none is left). */
function sessionCookies(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const kept = header
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p && !isPlatformCookie(p.split('=', 1)[0]!));
  return kept.length ? kept.join('; ') : undefined;
}

/** Headers that carry the platform's credentials, or claims about the client the session must not take from the proxy's caller. */
const DROPPED_REQUEST_HEADERS = [
  'apikey',
  'authorization',
  'proxy-authorization',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
];

/** The request's headers as the session's server gets them (in place: http-proxy copies them from the request). */
function sanitizeRequestHeaders(headers: IncomingHttpHeaders, upstream: SessionUpstream): void {
  for (const name of DROPPED_REQUEST_HEADERS) delete headers[name];
  const cookies = sessionCookies(headers.cookie);
  if (cookies) headers.cookie = cookies;
  else delete headers.cookie;
  headers.authorization = `token ${upstream.token}`;
}

/** The answer's headers as the browser gets them: no CORS grant, no cookie named runyard*. */
function sanitizeResponseHeaders(headers: IncomingHttpHeaders): void {
  for (const name of Object.keys(headers)) if (name.toLowerCase().startsWith('access-control-')) delete headers[name];
  const setCookie = headers['set-cookie'];
  if (setCookie) {
    const kept = setCookie.filter((c) => !isPlatformCookie(c.split('=', 1)[0]!));
    if (kept.length) headers['set-cookie'] = kept;
    else delete headers['set-cookie'];
  }
}

/** Whether the request's Origin, when it has one, is the Host it was sent to or an allowed origin. */
function originAllowed(headers: IncomingHttpHeaders, allowed: readonly string[]): boolean {
  const origin = headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === headers.host;
  } catch {
    return false;
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The interstitial page of a launch: it sets the cookie and goes on to the same URL without the token. */
function launchPage(url: string): string {
  const escaped = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="0; url=${escaped}">
<title>Opening the session</title>
</head>
<body>
<p>Opening the session... <a href="${escaped}">Continue</a></p>
</body>
</html>
`;
}

/** A registered proxy: close() ends its open WebSockets (the app's close also does); recheck() checks them at once. */
export interface SessionProxy {
  close(): void;
  recheck(): Promise<void>;
}

/** Who an open WebSocket was let through for, and to where. */
interface OpenSocket {
  sessionId: string;
  userId: string;
  keyId?: string;
  socketPath: string;
}

/**
 * Serves `/api/runyard/interactive-sessions/{id}/ui` and everything below it, for every method,
 * and the WebSocket upgrades of those paths (a listener on app.server's 'upgrade'; other upgrade
 * requests answer 404). Register it while building the app, before it is ready.
 */
export function registerSessionProxy(app: FastifyInstance, options: SessionProxyOptions): SessionProxy {
  const { tokens, resolve } = options;
  const cookieTtlSeconds = options.cookieTtlSeconds ?? 12 * 3600;
  const allowed = options.allowedOrigins ?? [];
  const allowedOrigins = typeof allowed === 'function' ? allowed : () => allowed;
  const servesHost = options.servesHost ?? (() => true);
  /** Sent to the sessions' host, from a page of the sessions' origin (or none). */
  const acceptable = (headers: IncomingHttpHeaders) => servesHost(headers.host) && originAllowed(headers, allowedOrigins());
  // Kept-alive connections to the sessions' servers (pooled per socket path). Without an agent each
  // request goes on a new connection with `Connection: close`, and under load Node sometimes still
  // had the request's end to write when Jupyter, having answered, closed: the write failed (EPIPE)
  // and the answer was lost (a kernel started, and the person got 502). Idle ones close after 30 s.
  const upstreamAgent = new Agent({ keepAlive: true, timeout: 30_000 });
  const proxy = createProxyServer({
    xfwd: false,
    changeOrigin: false,
    proxyTimeout: options.upstreamTimeoutMs ?? 300_000,
  });
  proxy.on('proxyRes', (proxyRes) => {
    sanitizeResponseHeaders(proxyRes.headers);
    // Sessions served over HTTPS: browsers keep to it (the platform's own answers say the same).
    if (options.secureCookies) proxyRes.headers['strict-transport-security'] = HSTS_VALUE;
    // Hop-by-hop: the answer keeps the browser's connection as the browser asked (http-proxy sets it from the request).
    delete proxyRes.headers.connection;
    delete proxyRes.headers['keep-alive'];
  });
  proxy.on('proxyReqWs', (proxyReq) => {
    // Registered before http-proxy's own listener: the 101 answer's headers are cleaned before it relays them.
    proxyReq.on('upgrade', (proxyRes: IncomingMessage) => sanitizeResponseHeaders(proxyRes.headers));
  });
  // Errors are answered by the callbacks of web() and ws(); without a listener an error would be thrown.
  proxy.on('error', () => {});

  /** Launch tokens taken already (nonce -> expiry): each is taken once by this process. */
  const usedLaunches = new Map<string, number>();
  const takeLaunch = (nonce: string, expiresAt: number): boolean => {
    const now = Date.now();
    for (const [n, at] of usedLaunches) if (at <= now) usedLaunches.delete(n);
    if (usedLaunches.has(nonce)) return false;
    usedLaunches.set(nonce, expiresAt);
    return true;
  };

  /** The person and session of a request that carries a valid cookie for this session, or null. */
  async function fromCookie(
    target: Target,
    headers: IncomingHttpHeaders,
  ): Promise<(SessionUpstream & { userId: string; keyId?: string }) | null> {
    for (const value of cookieValues(firstValue(headers.cookie), SESSION_UI_COOKIE)) {
      const claims = tokens.verify(value, 'cookie', target.sessionId);
      if (!claims) continue;
      const upstream = await resolve(target.sessionId, claims.userId, claims.keyId);
      return upstream && { ...upstream, userId: claims.userId, ...(claims.keyId !== undefined && { keyId: claims.keyId }) };
    }
    return null;
  }

  const sockets = new Map<Duplex, OpenSocket>();
  /** Each open WebSocket asked again, once per person and session; those no longer let through are closed. */
  const recheck = async () => {
    const verdicts = new Map<string, Promise<SessionUpstream | null>>();
    await Promise.all(
      [...sockets].map(async ([socket, open]) => {
        const who = `${open.sessionId} ${open.userId} ${open.keyId ?? ''}`;
        if (!verdicts.has(who))
          verdicts.set(
            who,
            resolve(open.sessionId, open.userId, open.keyId).catch(() => null),
          );
        const upstream = await verdicts.get(who)!;
        if (upstream?.socketPath !== open.socketPath) socket.destroy();
      }),
    );
  };
  const recheckTimer = setInterval(() => void recheck(), options.recheckMs ?? 5000);
  recheckTimer.unref();
  const closeAll = () => {
    clearInterval(recheckTimer);
    for (const s of sockets.keys()) s.destroy();
    sockets.clear();
    upstreamAgent.destroy();
  };
  app.addHook('preClose', async () => closeAll());

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.raw;
    const target = parseSessionUiUrl(raw.url ?? '');
    const hidden = () => reply.callNotFound();
    if (!target || !acceptable(raw.headers)) return hidden();
    if (target.launchToken !== null && (raw.method === 'GET' || raw.method === 'HEAD')) {
      const claims = tokens.verify(target.launchToken, 'launch', target.sessionId);
      // A spent launch token goes on as if it were not there (a reload of the launch URL, with the cookie).
      if (claims && takeLaunch(claims.nonce, claims.expiresAt)) {
        if (!(await resolve(target.sessionId, claims.userId, claims.keyId))) return hidden();
        const cookie = tokens.issue('cookie', target.sessionId, claims.userId, cookieTtlSeconds, claims.keyId);
        const attributes = [`Path=${target.basePath}`, `Max-Age=${cookieTtlSeconds}`, 'HttpOnly', 'SameSite=Strict'];
        if (options.secureCookies) attributes.push('Secure');
        return reply
          .status(200)
          .header('set-cookie', `${SESSION_UI_COOKIE}=${cookie}; ${attributes.join('; ')}`)
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .header('content-security-policy', "default-src 'none'")
          .type('text/html; charset=utf-8')
          .send(launchPage(target.forwardUrl));
      }
    }
    const upstream = await fromCookie(target, raw.headers);
    if (!upstream) return hidden();
    sanitizeRequestHeaders(raw.headers, upstream);
    raw.url = target.forwardUrl;
    reply.hijack();
    const forward = {
      agent: upstreamAgent,
      target: { socketPath: upstream.socketPath, host: 'localhost', port: 80 },
      // Hop-by-hop: the browser's Connection header is about its connection to the platform (the answer to it keeps it).
      headers: { connection: 'keep-alive' },
    };
    proxy.web(raw, reply.raw, forward, (error) => {
      request.log.warn({ sessionId: target.sessionId, err: { message: error.message } }, "the session's server did not answer");
      answerUnreachable(reply.raw);
    });
  };

  void app.register(async (scope) => {
    // The body goes to the session as it comes: no parser reads it here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    for (const url of [`${SESSION_UI_PATH_PREFIX}:sessionId/ui`, `${SESSION_UI_PATH_PREFIX}:sessionId/ui/*`]) scope.all(url, handle);
  });

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      socket.on('error', () => socket.destroy());
      const target = parseSessionUiUrl(request.url ?? '');
      const upstream = target && acceptable(request.headers) ? await fromCookie(target, request.headers) : null;
      if (!target || !upstream) {
        // Upgrade requests are all this listener's: any other path answers as a path no route serves.
        writeRaw(socket, 404, routeNotFoundBody(request.method ?? 'GET', request.url ?? ''));
        return;
      }
      sanitizeRequestHeaders(request.headers, upstream);
      request.url = target.forwardUrl;
      sockets.set(socket, {
        sessionId: target.sessionId,
        userId: upstream.userId,
        ...(upstream.keyId !== undefined && { keyId: upstream.keyId }),
        socketPath: upstream.socketPath,
      });
      socket.on('close', () => sockets.delete(socket));
      proxy.ws(request, socket, head, { target: { socketPath: upstream.socketPath, host: 'localhost', port: 80 } }, () => {
        writeRaw(socket, 502, unreachableBody());
      });
    })().catch(() => writeRaw(socket, 500, wireErrorBody('INTERNAL_ERROR', 'Internal server error.')));
  });

  return { close: closeAll, recheck };
}

function unreachableBody() {
  return wireErrorBody(
    'SESSION_STATE_CONFLICT',
    "The interactive session's server is not answering (it may be starting or stopping).",
    502,
  );
}

function answerUnreachable(response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const text = JSON.stringify(unreachableBody());
  response.writeHead(502, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

/** An HTTP answer written on a socket that was not upgraded, which is then closed. */
function writeRaw(socket: Duplex, status: number, body: object): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(body);
  const reason = status === 404 ? 'Not Found' : status === 502 ? 'Bad Gateway' : 'Internal Server Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
  );
}
