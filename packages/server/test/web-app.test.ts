import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { defaultWebDir } from '../src/http/web-app.js';

// The dashboard's static files at /app/ (http/web-app.ts): the build's files, index.html for
// client-side routes, cache and security headers, precompressed files, and no way out of the build.

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'";
const INDEX =
  '<!doctype html><title>Runyard dashboard</title><div id="root"></div><script type="module" src="/app/assets/x-abc.js"></script>\n';
const SCRIPT = 'console.log("dashboard bundle");\n'.repeat(20);
const OUTSIDE = 'OUTSIDE-THE-BUILD-SECRET';

function assertSecurityHeaders(headers: Record<string, unknown>, what: string): void {
  assert.equal(headers['content-security-policy'], CSP, what);
  assert.equal(headers['x-content-type-options'], 'nosniff', what);
  assert.equal(headers['referrer-policy'], 'same-origin', what);
}

/** A request sent as written (no client normalizes its path), over a real socket: status line, headers, body. */
function rawGet(url: string, target: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (c) => (text += c));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

describe('the dashboard at /app/', () => {
  let s: TestServer;
  let root: string;
  before(async () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'runyard-web-'));
    // Beside the build, not in it: nothing at /app/ may reach these.
    writeFileSync(path.join(parent, 'package.json'), JSON.stringify({ secret: OUTSIDE }));
    root = path.join(parent, 'dist');
    mkdirSync(path.join(root, 'assets'), { recursive: true });
    writeFileSync(path.join(root, 'index.html'), INDEX);
    writeFileSync(path.join(root, 'assets', 'x-abc.js'), SCRIPT);
    writeFileSync(path.join(root, 'assets', 'x-abc.js.br'), brotliCompressSync(SCRIPT));
    writeFileSync(path.join(root, 'assets', 'x-abc.js.gz'), gzipSync(SCRIPT));
    writeFileSync(path.join(root, 'assets', 'x-def.css'), 'body { color: black }\n');
    writeFileSync(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(path.join(root, '.env'), OUTSIDE);
    symlinkSync(path.join(parent, 'package.json'), path.join(root, 'linked.json'));
    s = await startTestServer({ listen: true, env: { RUNYARD_WEB_DIR: root } });
  });
  after(() => s.close());

  it('/app moves to /app/ (301, the query kept)', async () => {
    for (const [url, to] of [
      ['/app', '/app/'],
      ['/app?x=1', '/app/?x=1'],
    ]) {
      const r = await s.app.inject({ url });
      assert.equal(r.statusCode, 301, url);
      assert.equal(r.headers.location, to);
      assertSecurityHeaders(r.headers, url);
    }
  });

  it('/app/ and any client-side route answer index.html, revalidated, with the security headers', async () => {
    for (const url of ['/app/', '/app/advanced-analytics/analyses/6b08f16cbfe62916b692c03e', '/app/data/some.folder/', '/app/x?y=1']) {
      const r = await s.app.inject({ url });
      assert.equal(r.statusCode, 200, url);
      assert.equal(r.body, INDEX, url);
      assert.equal(r.headers['content-type'], 'text/html; charset=utf-8', url);
      assert.equal(r.headers['cache-control'], 'no-cache', url);
      assertSecurityHeaders(r.headers, url);
    }
    const head = await s.app.inject({ method: 'HEAD', url: '/app/jobs' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    // Revalidation: index.html has a validator, and an unchanged one is a 304.
    const first = await s.app.inject({ url: '/app/' });
    assert.ok(first.headers.etag, 'an ETag');
    const again = await s.app.inject({ url: '/app/', headers: { 'if-none-match': String(first.headers.etag) } });
    assert.equal(again.statusCode, 304);
  });

  it('files of the build are served: assets immutable with their content type, others revalidated', async () => {
    const js = await s.app.inject({ url: '/app/assets/x-abc.js' });
    assert.equal(js.statusCode, 200);
    assert.equal(js.body, SCRIPT);
    assert.match(String(js.headers['content-type']), /^(text|application)\/javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(js.headers['content-encoding'], undefined);
    assertSecurityHeaders(js.headers, 'asset');
    const css = await s.app.inject({ url: '/app/assets/x-def.css' });
    assert.match(String(css.headers['content-type']), /^text\/css/);
    const icon = await s.app.inject({ url: '/app/favicon.svg' });
    assert.equal(icon.statusCode, 200);
    assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
    assert.equal(icon.headers['cache-control'], 'no-cache');
    // A missing bundle is a 404, not index.html (which a browser would try to run as a script).
    const missing = await s.app.inject({ url: '/app/assets/gone-123.js' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'ROUTE_NOT_FOUND');
  });

  it('sends the precompressed sibling to a browser that takes it (brotli first), the plain file otherwise', async () => {
    const br = await s.app.inject({ url: '/app/assets/x-abc.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.match(String(br.headers['content-type']), /javascript/);
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(br.headers.vary), /Accept-Encoding/i);
    assert.deepEqual(br.rawPayload, brotliCompressSync(SCRIPT));
    const gz = await s.app.inject({ url: '/app/assets/x-abc.js', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gz.rawPayload, gzipSync(SCRIPT));
    // index.html has no compressed sibling: plain, whatever the browser takes.
    const index = await s.app.inject({ url: '/app/', headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(index.headers['content-encoding'], undefined);
    assert.equal(index.body, INDEX);
  });

  it('no path leaves the build: .., encoded .., hidden files and links out are refused', async () => {
    const attempts = [
      '/app/../package.json',
      '/app/%2e%2e/package.json',
      '/app/%2E%2E/package.json',
      '/app/..%2fpackage.json',
      '/app/%2e%2e%2fpackage.json',
      '/app/assets/..%2f..%2fpackage.json',
      '/app/assets/../../package.json',
      '/app/..%5cpackage.json',
      '/app/.env',
      '/app/%2eenv',
      '/app/linked.json',
    ];
    for (const target of attempts) {
      const r = await rawGet(s.url, target);
      assert.ok(!r.text.includes(OUTSIDE), `${target} reached outside the build: ${r.text}`);
      assert.ok(r.status === 404 || r.status === 400, `${target}: ${r.status}`);
      if (r.status === 404) assert.match(r.text, /content-security-policy: default-src 'self'/i, `${target}: the headers of /app`);
    }
  });

  it('the default directory is packages/web/dist of this checkout', () => {
    const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
    assert.equal(defaultWebDir(), path.join(repo, 'packages', 'web', 'dist'));
  });
});

describe('the dashboard when it is not built', () => {
  for (const [what, setup] of [
    ['a directory that does not exist', (dir: string) => path.join(dir, 'missing')],
    [
      'a directory without index.html',
      (dir: string) => {
        mkdirSync(path.join(dir, 'assets'));
        writeFileSync(path.join(dir, 'assets', 'x.js'), '');
        return dir;
      },
    ],
  ] as const) {
    it(`answers 503 with a page that says to build it (${what})`, async () => {
      const s = await startTestServer({ env: { RUNYARD_WEB_DIR: setup(mkdtempSync(path.join(os.tmpdir(), 'runyard-web-'))) } });
      try {
        for (const url of ['/app/', '/app/advanced-analytics/analyses/6b08f16cbfe62916b692c03e', '/app/assets/x.js']) {
          const r = await s.app.inject({ url });
          assert.equal(r.statusCode, 503, url);
          assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
          assert.match(r.body, /The dashboard is not built here: run <code>npm run build<\/code>\./);
          assertSecurityHeaders(r.headers, url);
        }
        assert.equal((await s.app.inject({ url: '/app' })).statusCode, 301);
        // The API is unaffected.
        assert.equal((await s.app.inject({ url: '/api/runyard/health' })).statusCode, 200);
      } finally {
        await s.close();
      }
    });
  }
});
