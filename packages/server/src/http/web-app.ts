import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routeNotFoundBody } from './error-handler.js';

/**
 * The dashboard (packages/web, built by `npm run build`) as static files at /app/: a file of the
 * build when the path names one, else its index.html, so that a client-side route
 * (`/app/advanced-analytics/analyses/<id>`) opens the dashboard on that page. Hashed bundles under
 * assets/ are cached for good; index.html is revalidated, so a new build is picked up at once.
 * Precompressed siblings (`.br`, `.gz`) are sent to browsers that take them.
 *
 * No path leaves the build's directory: a segment that is hidden (`.x`) or `..` (also
 * percent-encoded) is a 404, and a file is served only when its real path is inside the root.
 */

export const APP_PREFIX = '/app';

/**
 * Every /app reply: the dashboard loads only from this server and cannot be framed (X-Frame-Options
 * too, for browsers without frame-ancestors), and no page of another origin that it opens, nor
 * that opens it, keeps a handle on its window (COOP).
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'referrer-policy': 'same-origin',
};

export interface WebAppOptions {
  /**
   * The dashboard's own URL (`http://127.0.0.1:8080/app/`) when a request's Host is the sessions'
   * origin, where the dashboard is not served (its cookie is neither set nor taken there); null on
   * the platform's host.
   */
  elsewhere?: (host: string | undefined) => string | null;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The 404 page of /app on the sessions' host: the dashboard is at the platform's URL. */
function elsewherePage(dashboardUrl: string): string {
  const url = escapeHtml(dashboardUrl);
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Runyard: the dashboard is not here</title></head>
<body>
<h1>The dashboard is not here</h1>
<p>This address serves the web pages of interactive sessions only. The Runyard dashboard is at <a href="${url}">${url}</a>.</p>
</body>
</html>
`;
}
const IMMUTABLE = 'public, max-age=31536000, immutable';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Runyard: dashboard not built</title></head>
<body>
<h1>The dashboard is not built here</h1>
<p>The dashboard is not built here: run <code>npm run build</code>.</p>
</body>
</html>
`;

/** packages/web/dist of the checkout this server runs from (the same from src/ under tsx and from dist/). */
export function defaultWebDir(): string {
  return fileURLToPath(new URL('../../../web/dist', import.meta.url));
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * The path (from the root, with a leading slash) of the file a request names, null when it names
 * none, 'refused' when it tries to name something outside the build or hidden.
 */
async function fileOf(root: string, realRoot: string, rest: string): Promise<string | null | 'refused'> {
  const segments = rest.split('/').filter(Boolean);
  if (segments.some((s) => s.startsWith('.') || s.includes('\\') || s.includes('\0'))) return 'refused';
  if (!segments.length) return null;
  const full = path.join(root, ...segments);
  if (!(await isFile(full))) return null;
  // A symbolic link out of the build is not the build's.
  const real = await realpath(full);
  if (!real.startsWith(realRoot + path.sep)) return 'refused';
  return `/${segments.join('/')}`;
}

/**
 * Registers `GET /app` (a redirect to /app/) and `GET /app/*`, serving the build in `dir` (default:
 * defaultWebDir()); on the sessions' host, a 404 page that links to the dashboard instead.
 */
export async function registerWebApp(app: FastifyInstance, dir: string, options: WebAppOptions = {}): Promise<void> {
  const root = path.resolve(dir || defaultWebDir());
  // Only its reply.sendFile: the routes are these, with the fallback and checks above.
  await app.register(fastifyStatic, { serve: false, preCompressed: true, dotfiles: 'ignore' });

  async function serve(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    void reply.headers(SECURITY_HEADERS);
    const dashboard = options.elsewhere?.(request.headers.host);
    if (dashboard)
      return reply
        .code(404)
        .header('content-security-policy', "default-src 'none'; frame-ancestors 'none'")
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(elsewherePage(dashboard));
    const [pathname, query] = splitUrl(request.url);
    // With ignoreTrailingSlash, `/app` and `/app/` reach the same route: only the first moves.
    if (pathname === APP_PREFIX) return reply.redirect(`${APP_PREFIX}/${query}`, 301);
    if (!(await isFile(path.join(root, 'index.html'))))
      return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
    const rest = (request.params as { '*'?: string })['*'] ?? '';
    const realRoot = await realpath(root);
    const file = await fileOf(root, realRoot, rest);
    if (file === 'refused' || (file === null && /^\/*assets\//.test(rest)))
      return reply.code(404).send(routeNotFoundBody(request.method, request.url));
    void reply.header('vary', 'Accept-Encoding');
    void reply.header('cache-control', file?.startsWith('/assets/') ? IMMUTABLE : 'no-cache');
    return reply.sendFile(file ?? '/index.html', root, { cacheControl: false });
  }

  app.get(APP_PREFIX, serve);
  app.get(`${APP_PREFIX}/*`, serve);
}

function splitUrl(url: string): [string, string] {
  const q = url.indexOf('?');
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q)];
}
