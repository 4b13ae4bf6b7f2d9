import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { VERSION } from '@runyard/server';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

describe('GET / (a page for a person)', () => {
  let s: TestServer;
  before(async () => {
    // A dashboard build of its own, so that the page's link to it answers whether or not the real one is built.
    const webDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-web-'));
    writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>dashboard</title>');
    s = await startTestServer({ env: { RUNYARD_WEB_DIR: webDir } });
  });
  after(() => s.close());

  it('answers a short HTML page with the name, the version and links that work (the dashboard first), without a key', async () => {
    const r = await s.app.inject({ url: '/' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.match(r.body, new RegExp(`<h1>Runyard ${VERSION.replace(/\./g, '\\.')}</h1>`));
    assert.doesNotMatch(r.body, /later version/, 'the dashboard is here now');
    const links = [...r.body.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(links, ['/app/', '/api/runyard/openapi.json', '/api/runyard/health']);
    for (const link of links) assert.equal((await s.app.inject({ url: link })).statusCode, 200, link);
  });

  it('HEAD / answers too; other methods on / are still 404 in the wire error body', async () => {
    assert.equal((await s.app.inject({ method: 'HEAD', url: '/' })).statusCode, 200);
    const r = await s.app.inject({ method: 'POST', url: '/', payload: {} });
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().code, 'ROUTE_NOT_FOUND');
  });
});
