import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROUTES } from '@runyard/contract';
import { VERSION } from '@runyard/server';
import { usingPostgres } from '../../../test/support/database.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { assertIsoTime, call } from './wire.js';

describe('health and OpenAPI', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it('GET /api/runyard/health answers without a key, naming the database in use', async () => {
    const r = await call(s, 'GET', '/api/runyard/health', undefined, null);
    assert.equal(r.statusCode, 200);
    const h = r.json();
    assert.deepEqual(Object.keys(h).sort(), ['database', 'status', 'time', 'version']);
    assert.equal(h.status, 'ok');
    assert.equal(h.version, VERSION);
    assert.equal(h.database, usingPostgres() ? 'postgres' : 'sqlite');
    assertIsoTime(h.time);
  });

  it('GET /api/runyard/openapi.json lists every route of the contract under its path and method', async () => {
    const r = await call(s, 'GET', '/api/runyard/openapi.json', undefined, null);
    assert.equal(r.statusCode, 200);
    const doc = r.json();
    assert.match(doc.openapi, /^3\./);
    assert.equal(doc.info.version, VERSION);
    assert.deepEqual(doc.components.securitySchemes.apikey, { type: 'apiKey', in: 'header', name: 'apikey' });
    const rows = Object.entries(ROUTES);
    assert.ok(rows.length >= 17);
    for (const [id, route] of rows) {
      const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      assert.ok(op, `${id}: ${route.method} ${path} missing`);
      assert.equal(op.operationId, id);
      assert.ok(op.responses[String(route.status)], `${id}: no ${route.status} response`);
      assert.ok(op.responses.default, `${id}: no error response`);
      assert.equal(Boolean(op.security), route.auth === 'apikey', `${id}: security`);
      if ('body' in route) assert.ok(op.requestBody, `${id}: no request body`);
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        assert.ok(
          op.parameters.some((p: { in: string; name: string }) => p.in === 'path' && `{${p.name}}` === name),
          `${id}: path parameter ${name}`,
        );
      }
    }
    const operations = Object.values(doc.paths).flatMap((p) => Object.keys(p as object));
    assert.equal(operations.length, rows.length, 'an operation that is not in the route table');
  });

  it('documents the query parameters of the wire routes', async () => {
    const doc = (await call(s, 'GET', '/api/runyard/openapi.json', undefined, null)).json();
    const params = (doc.paths['/api/v2/projects'].get.parameters as { name: string; in: string; required: boolean }[]).map(
      (p) => `${p.in}:${p.name}:${p.required}`,
    );
    assert.deepEqual(params.sort(), ['query:page:false', 'query:pageSize:false', 'query:search:false', 'query:teamId:true']);
  });
});
