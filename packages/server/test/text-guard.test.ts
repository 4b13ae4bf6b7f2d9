import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bashBody, jobWorld, type JobWorld } from './jobs/fixtures.js';
import { assertError, call } from './wire.js';

// Wire §8 / issue 8: a NUL or a lone surrogate anywhere in a request is a 400 naming the field,
// the same on SQLite (which would store it) and PostgreSQL (which would answer 500).
describe('NUL characters and lone surrogates', () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(() => w.close());

  const TABLES = ['users', 'workspaces', 'projects', 'workflows', 'queues', 'jobs', 'files'] as const;
  const counts = async () => {
    const out: Record<string, number> = {};
    for (const table of TABLES) {
      const r = await w.s.store.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      out[table] = Number(r.n);
    }
    return out;
  };

  // A lone surrogate reaches the server as the JSON escape "\ud800" (JSON.stringify writes it so).
  const BAD = [
    ['a\u0000b', 'contains a NUL character'],
    ['a\ud800b', 'contains an invalid Unicode character (lone surrogate)'],
    ['\udc00', 'contains an invalid Unicode character (lone surrogate)'],
  ] as const;

  const writes = (v: string) =>
    [
      ['project name', 'POST', `/api/v1/projects?teamId=${w.ws}`, { name: v }, 'body.name'],
      ['workspace name', 'POST', '/api/runyard/admin/workspaces', { name: v }, 'body.name'],
      ['user name', 'POST', '/api/runyard/admin/users', { username: 'nul', email: 'nul@example.org', name: v }, 'body.name'],
      ['queue label', 'POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'nulq', label: v }, 'body.label'],
      [
        'workflow name',
        'POST',
        '/api/runyard/admin/workflows/docker',
        { workspaceId: w.ws, name: v, containerName: 'library/ubuntu:22.04' },
        'body.name',
      ],
      ['job name', 'POST', `/api/v2/jobs?teamId=${w.ws}`, bashBody(w, { name: v }), 'body.name'],
      ['job command', 'POST', `/api/v2/jobs?teamId=${w.ws}`, bashBody(w, { command: `echo ${v}` }), 'body.command'],
      [
        'job parameter',
        'POST',
        `/api/v2/jobs?teamId=${w.ws}`,
        bashBody(w, { parameters: [{ prefix: '--', name: 'greeting', parameterKind: 'textValue', textValue: v }] }),
        'body.parameters.0.textValue',
      ],
    ] as const;

  it('refuses them in every JSON body field, naming it, and stores nothing', async () => {
    const before = await counts();
    for (const [v, problem] of BAD) {
      for (const [what, method, url, body, field] of writes(v)) {
        const message = assertError(await call(w.s, method, url, body), 400, 'VALIDATION_FAILED');
        assert.equal(message, `${field} ${problem}`, what);
      }
    }
    assert.deepEqual(await counts(), before);
  });

  it('refuses them in body keys, at any depth', async () => {
    const before = await counts();
    const top = await call(w.s, 'POST', `/api/v1/projects?teamId=${w.ws}`, '{"name":"keys","x\\u0000":1}');
    assert.equal(assertError(top, 400, 'VALIDATION_FAILED'), 'body has a key "x\\u0000" that contains a NUL character');
    const deep = bashBody(w, { parameters: [{ prefix: '--', name: 'g', parameterKind: 'textValue', textValue: 'x', ['\ud800']: 1 }] });
    assert.match(
      assertError(await call(w.s, 'POST', `/api/v2/jobs?teamId=${w.ws}`, deep), 400, 'VALIDATION_FAILED'),
      /^body\.parameters\.0 has a key "\\ud800" that contains an invalid Unicode character \(lone surrogate\)$/,
    );
    assert.deepEqual(await counts(), before);
  });

  it('refuses them in query values and path parameters, naming the field', async () => {
    const ws = w.ws;
    const cases = [
      [`/api/v2/projects?teamId=${ws}&search=`, 'query.search'],
      [`/api/v3/workflows?teamId=${ws}&search=`, 'query.search'],
      [`/api/v2/jobs?teamId=${ws}&status=`, 'query.status'],
      [`/api/v2/jobs?teamId=${ws}&name=`, 'query.name'],
      [`/api/v1/users/search-assist?teamId=${ws}&q=`, 'query.q'],
      ['/api/v2/projects?teamId=', 'query.teamId'],
    ] as const;
    for (const [v, problem] of BAD) {
      // The encoding of a lone surrogate is not UTF-8: see the next test. NUL is %00.
      if (v !== 'a\u0000b') continue;
      for (const [url, field] of cases) {
        assert.equal(assertError(await call(w.s, 'GET', url + encodeURIComponent(v)), 400, 'VALIDATION_FAILED'), `${field} ${problem}`);
      }
    }
    const job = await call(w.s, 'GET', `/api/v1/jobs/${'a'.repeat(23)}%00?teamId=${ws}`);
    assert.equal(assertError(job, 400, 'VALIDATION_FAILED'), 'params.id contains a NUL character');
  });

  it('refuses a query value or key that is not percent-encoded UTF-8 (a lone surrogate, a stray byte)', async () => {
    for (const encoded of ['%ED%A0%80', 'a%FFb', '%C0%80', '%E0%A4%A', '100%25%FF']) {
      const r = await call(w.s, 'GET', `/api/v2/projects?teamId=${w.ws}&search=${encoded}`);
      assert.equal(assertError(r, 400, 'VALIDATION_FAILED'), 'query.search is not valid percent-encoded UTF-8', encoded);
    }
    const key = await call(w.s, 'GET', `/api/v2/projects?teamId=${w.ws}&%ED%A0%80=1`);
    assert.equal(assertError(key, 400, 'VALIDATION_FAILED'), 'query has a key "%ED%A0%80" that is not valid percent-encoded UTF-8');
    // In the path, the router refuses it before any route runs, without repeating the URL.
    const path = await call(w.s, 'GET', `/api/v1/jobs/%ED%A0%80?teamId=${w.ws}`);
    assert.equal(assertError(path, 400, 'BAD_REQUEST'), 'The URL path is not valid percent-encoded UTF-8.');
  });

  it('refuses a JSON body whose bytes are not UTF-8 instead of replacing them', async () => {
    const before = await counts();
    const bytes = Buffer.concat([Buffer.from('{"name":"a'), Buffer.from([0xed, 0xa0, 0x80, 0xff]), Buffer.from('"}')]);
    const r = await w.s.app.inject({
      method: 'POST',
      url: `/api/v1/projects?teamId=${w.ws}`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/json' },
      payload: bytes,
    });
    assert.equal(assertError(r, 400, 'INVALID_JSON'), 'The request body is not valid UTF-8.');
    assert.deepEqual(await counts(), before);
  });

  it('refuses them in the name of an upload (a binary body) and stores nothing', async () => {
    const before = await counts();
    for (const [v, problem] of [BAD[0]]) {
      const r = await w.s.app.inject({
        method: 'POST',
        url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=${encodeURIComponent(v)}`,
        headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
        payload: Buffer.from([0, 0xff, 0xd8]),
      });
      assert.equal(assertError(r, 400, 'VALIDATION_FAILED'), `query.name ${problem}`);
    }
    assert.deepEqual(await counts(), before);
  });

  it('keeps well-formed text as sent: accents, an emoji (a surrogate pair), binary upload bytes', async () => {
    const name = 'naïve 🧬 Ω';
    const p = await call(w.s, 'POST', `/api/v1/projects?teamId=${w.ws}`, { name });
    assert.equal(p.statusCode, 200, p.body);
    const listed = await call(w.s, 'GET', `/api/v2/projects?teamId=${w.ws}&search=${encodeURIComponent('🧬')}`);
    assert.deepEqual(
      listed.json().projects.map((x: { name: string }) => x.name),
      [name],
    );
    const up = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=${encodeURIComponent('🧬.bin')}`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: Buffer.from([0, 0xed, 0xa0, 0x80]),
    });
    assert.equal(up.statusCode < 300, true, up.body);
  });
});
