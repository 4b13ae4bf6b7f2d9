import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { assertError, call } from './wire.js';

// GET /api/v2/projects (wire §2.7, §8.1-2): total, page/pageSize, pageSize=0, limits, tenancy.
describe('projects: list (wire)', () => {
  let s: TestServer;
  const created: string[] = [];
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const list = async (query: string, apikey = s.admin.apikey) => {
    const r = await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}${query}`, undefined, apikey);
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as { total: number; projects: { _id: string; name: string }[] };
  };

  it('answers total 0 for an empty workspace, also with pageSize=0', async () => {
    assert.deepEqual(await list('&pageSize=10&page=1'), { total: 0, projects: [] });
    assert.deepEqual(await list('&pageSize=0&page=1'), { total: 0, projects: [] });
  });

  it('pages through 25 projects: pages are disjoint and cover them all', async () => {
    for (let i = 1; i <= 25; i++) {
      const name = `p-${String(i).padStart(2, '0')}`;
      assert.equal((await call(s, 'POST', `/api/v1/projects?teamId=${s.admin.workspaceId}`, { name })).statusCode, 200);
      created.push(name);
    }
    const pages = [];
    for (const page of [1, 2, 3, 4]) pages.push(await list(`&pageSize=10&page=${page}`));
    assert.deepEqual(
      pages.map((p) => [p.total, p.projects.length]),
      [
        [25, 10],
        [25, 10],
        [25, 5],
        [25, 0],
      ],
    );
    const seen = pages.flatMap((p) => p.projects.map((x) => x.name));
    assert.equal(new Set(seen).size, 25);
    assert.deepEqual([...seen].sort(), created);
  });

  it('lists the newest first', async () => {
    const { projects } = await list('&pageSize=3&page=1');
    assert.deepEqual(
      projects.map((p) => p.name),
      ['p-25', 'p-24', 'p-23'],
    );
  });

  it('answers pageSize=0 with the total and no projects', async () => {
    assert.deepEqual(await list('&pageSize=0&page=1'), { total: 25, projects: [] });
    assert.deepEqual(await list('&pageSize=0'), { total: 25, projects: [] });
  });

  it('returns every project when no pageSize is sent, and accepts pageSize=1000', async () => {
    assert.equal((await list('')).projects.length, 25);
    assert.equal((await list('&pageSize=1000')).projects.length, 25);
    assert.equal((await list('&page=1')).projects.length, 25);
  });

  it('refuses out-of-range and non-numeric page and pageSize with 400 naming the field', async () => {
    const cases: [string, RegExp][] = [
      ['pageSize=1001', /pageSize/],
      ['pageSize=1000000', /pageSize/],
      ['pageSize=-1', /pageSize/],
      ['pageSize=abc', /pageSize/],
      ['pageSize=1.5', /pageSize/],
      ['pageSize=1e9', /pageSize/],
      ['page=0', /page\b/],
      ['page=-3', /page\b/],
      ['page=two', /page\b/],
      ['page=1&pageSize=10&pageSize=20', /pageSize/],
    ];
    for (const [query, field] of cases) {
      const r = await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}&${query}`);
      assert.match(assertError(r, 400, 'VALIDATION_FAILED'), field, query);
    }
  });

  it('refuses a missing teamId with 400 naming it', async () => {
    assert.match(assertError(await call(s, 'GET', '/api/v2/projects?pageSize=10'), 400, 'VALIDATION_FAILED'), /teamId/);
  });

  it('shows another tenant nothing: their own list is empty, ours is 404 to them', async () => {
    const other = await s.newTenant('olga');
    const own = await call(s, 'GET', `/api/v2/projects?teamId=${other.workspaceId}`, undefined, other.apikey);
    assert.deepEqual(own.json(), { total: 0, projects: [] });
    for (const query of ['', '&pageSize=0', '&search=p-']) {
      const r = await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}${query}`, undefined, other.apikey);
      const message = assertError(r, 404, 'WORKSPACE_NOT_FOUND');
      assert.doesNotMatch(message, /p-\d/);
    }
    assertError(await call(s, 'GET', '/api/v2/projects?teamId=None', undefined, other.apikey), 404, 'WORKSPACE_NOT_FOUND');
  });

  it('carries every CSV column of the reference on each listed project', async () => {
    const { projects } = await list('&pageSize=5&page=1');
    for (const p of projects as Record<string, any>[]) {
      for (const key of [
        '_id',
        'name',
        'createdAt',
        'updatedAt',
        'workflowCount',
        'jobCount',
        'notebookSessionCount',
        'projectData',
        'projectJobs',
        'directory',
      ]) {
        assert.ok(key in p, `missing ${key}`);
      }
      for (const key of ['id', 'name', 'surname', 'email']) assert.ok(key in p.user, `missing user.${key}`);
      assert.deepEqual(p.team, { id: s.admin.workspaceId });
    }
  });
});
