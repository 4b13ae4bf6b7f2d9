import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

describe('projects (wire)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  const get = (url: string, apikey = s.admin.apikey) => s.app.inject({ method: 'GET', url, headers: { apikey } });
  const create = (name: unknown, teamId = s.admin.workspaceId, apikey = s.admin.apikey) =>
    s.app.inject({ method: 'POST', url: `/api/v1/projects?teamId=${teamId}`, headers: { apikey, 'content-type': 'application/json' }, payload: JSON.stringify({ name }) });

  it('creates a project and answers its document with every key the reference lists', async () => {
    const r = await create('alpha');
    assert.equal(r.statusCode, 200);
    const p = r.json();
    assert.match(p._id, /^[0-9a-f]{24}$/);
    assert.equal(p.name, 'alpha');
    for (const k of ['user', 'team', 'createdAt', 'updatedAt', 'workflowCount', 'jobCount', 'notebookSessionCount', 'projectData', 'projectJobs', 'directory']) {
      assert.ok(k in p, `missing ${k}`);
    }
    assert.deepEqual(Object.keys(p.user).sort(), ['email', 'id', 'name', 'surname']);
    assert.equal(p.team.id, s.admin.workspaceId);
    assert.equal(p.jobCount, 0);
  });

  it('refuses a duplicate name in the same workspace with 409', async () => {
    const r = await create('alpha');
    assert.equal(r.statusCode, 409);
    assert.equal(r.json().code, 'PROJECT_NAME_TAKEN');
    assert.match(r.json().message, /alpha/);
  });

  it('lists with total, and accepts pageSize=0', async () => {
    const r = await get(`/api/v2/projects?teamId=${s.admin.workspaceId}&pageSize=0&page=1`);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { total: 1, projects: [] });
  });
});
