import type { FastifyInstance } from 'fastify';

// The paths of the contract's `openapi` and `health` routes.
const OPENAPI_PATH = '/api/runyard/openapi.json';
const HEALTH_PATH = '/api/runyard/health';
// Where http/web-app.ts serves the dashboard.
const DASHBOARD_PATH = '/app/';

/** What a person sees opening the server's URL in a browser; `version` is the only variable part. */
export function homePageHtml(version: string): string {
  const safeVersion = version.replace(/[^0-9A-Za-z.+-]/g, '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Runyard ${safeVersion}</title>
</head>
<body>
<h1>Runyard ${safeVersion}</h1>
<p>This is a Runyard server: a self-hostable analysis platform with a CloudOS-compatible HTTP API.</p>
<ul>
<li><a href="${DASHBOARD_PATH}">Dashboard</a> (sign in with an API key)</li>
<li><a href="${OPENAPI_PATH}">API description (OpenAPI)</a></li>
<li><a href="${HEALTH_PATH}">Health</a></li>
</ul>
<p>Use it with the <code>runyard</code> command line (<code>npx runyard configure</code>), the TypeScript SDK or
<code>cloudos-cli</code>, or in a browser with the dashboard.</p>
</body>
</html>
`;
}

/** `GET /` (and HEAD): a short page for a person, outside the wire route table (it is not API). */
export function registerHomePage(app: FastifyInstance, version: string): void {
  const html = homePageHtml(version);
  app.get('/', async (_request, reply) => reply.type('text/html; charset=utf-8').send(html));
}
