import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { assertError, assertIsoTime, call } from './wire.js';

// POST /api/v1/projects (wire §2.7): the document, duplicates, bad names, teamId, extra keys.
describe('projects: create (wire)', () => {
  let s: TestServer;
  let other: Tenant;
  before(async () => {
    s = await startTestServer();
    other = await s.newTenant('otto');
  });
  after(() => s.close());

  const create = (body: unknown, teamId: string | null = s.admin.workspaceId, apikey = s.admin.apikey) =>
    call(s, 'POST', teamId === null ? '/api/v1/projects' : `/api/v1/projects?teamId=${teamId}`, body, apikey);
  const names = async (t: Tenant = s.admin) => {
    const r = await call(s, 'GET', `/api/v2/projects?teamId=${t.workspaceId}`, undefined, t.apikey);
    assert.equal(r.statusCode, 200);
    return (r.json().projects as { name: string }[]).map((p) => p.name).sort();
  };

  it('answers 200 with the full project document', async () => {
    const r = await create({ name: 'alpha' });
    assert.equal(r.statusCode, 200);
    const p = r.json();
    assert.match(p._id, /^[0-9a-f]{24}$/);
    assert.equal(p.name, 'alpha');
    assert.deepEqual(p.user, { id: s.admin.userId, name: 'Admin', surname: '', email: 'admin@localhost' });
    assert.deepEqual(p.team, { id: s.admin.workspaceId });
    assertIsoTime(p.createdAt, 'createdAt');
    assertIsoTime(p.updatedAt, 'updatedAt');
    assert.equal(p.workflowCount, 0);
    assert.equal(p.jobCount, 0);
    assert.equal(p.notebookSessionCount, 0);
    assert.deepEqual(p.projectData, []);
    assert.deepEqual(p.projectJobs, []);
    assert.deepEqual(p.directory, {});
    // The same document comes back from the list.
    const list = await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}&search=alpha`);
    assert.deepEqual(list.json().projects, [p]);
  });

  it('refuses a duplicate name in the same workspace with 409 naming it, and stores one', async () => {
    const message = assertError(await create({ name: 'alpha' }), 409, 'PROJECT_NAME_TAKEN');
    assert.match(message, /alpha/);
    assert.deepEqual(await names(), ['alpha']);
  });

  it('creates a name once when ten requests race for it: one 200, nine 409, no 5xx', async () => {
    const replies = await Promise.all(Array.from({ length: 10 }, () => create({ name: 'race' })));
    assert.deepEqual(replies.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(409)]);
    for (const r of replies.filter((r) => r.statusCode === 409)) assertError(r, 409, 'PROJECT_NAME_TAKEN');
    assert.equal((await names()).filter((n) => n === 'race').length, 1);
  });

  it('allows the same name in another workspace', async () => {
    const r = await create({ name: 'alpha' }, other.workspaceId, other.apikey);
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json().team, { id: other.workspaceId });
    assert.equal(r.json().user.id, other.userId);
    assert.notEqual(r.json()._id, undefined);
    assert.deepEqual(await names(other), ['alpha']);
    assert.deepEqual(await names(), ['alpha', 'race']);
  });

  it('accepts a 200-character name', async () => {
    const name = 'n'.repeat(200);
    const r = await create({ name });
    assert.equal(r.statusCode, 200);
    assert.equal(r.json().name, name);
  });

  it('refuses empty, white-space, over-long and non-string names with 400 naming the field', async () => {
    const before = await names();
    for (const name of ['', '   ', '\t\n', 'x'.repeat(201), 5, true, null, ['alpha2'], { a: 1 }]) {
      const message = assertError(await create({ name }), 400, 'VALIDATION_FAILED');
      assert.match(message, /\bname\b/, `message for ${JSON.stringify(name)}: ${message}`);
    }
    assertError(await create({}), 400, 'VALIDATION_FAILED');
    assert.match(assertError(await create({ nom: 'x' }), 400, 'VALIDATION_FAILED'), /name is required/);
    assertError(await create(undefined), 400, 'VALIDATION_FAILED');
    assertError(await create('[]'), 400, 'VALIDATION_FAILED');
    assert.deepEqual(await names(), before);
  });

  it('refuses a missing or empty teamId with 400 naming it', async () => {
    assert.match(assertError(await create({ name: 'no-team' }, null), 400, 'TEAM_ID_REQUIRED'), /teamId/);
    assert.match(assertError(await create({ name: 'no-team' }, ''), 400, 'TEAM_ID_REQUIRED'), /teamId/);
    assert.ok(!(await names()).includes('no-team'));
  });

  it('answers 404 with no data for a workspace of another tenant, and creates nothing there', async () => {
    const r = await create({ name: 'intruder' }, other.workspaceId);
    const message = assertError(r, 404, 'WORKSPACE_NOT_FOUND');
    assert.doesNotMatch(message, /otto|alpha/);
    assert.deepEqual(await names(other), ['alpha']);
    assert.ok(!(await names()).includes('intruder'));
  });

  it('answers 404 for teamId=None and for ids that are not workspaces', async () => {
    for (const teamId of ['None', 'null', 'f'.repeat(24), s.admin.userId, `${s.admin.workspaceId}x`]) {
      assertError(await create({ name: 'nowhere' }, teamId), 404, 'WORKSPACE_NOT_FOUND');
    }
    assert.ok(!(await names()).includes('nowhere'));
  });

  it('ignores extra body keys on this wire route: they change nothing', async () => {
    const forgedId = 'a'.repeat(24);
    const r = await create({
      name: 'beta',
      _id: forgedId,
      team: { id: other.workspaceId },
      teamId: other.workspaceId,
      user: { id: other.userId, name: 'Otto', email: 'x@y' },
      createdAt: '2000-01-01T00:00:00.000Z',
      jobCount: 7,
      projectData: [{ x: 1 }],
    });
    assert.equal(r.statusCode, 200);
    const p = r.json();
    assert.notEqual(p._id, forgedId);
    assert.deepEqual(p.team, { id: s.admin.workspaceId });
    assert.equal(p.user.id, s.admin.userId);
    assert.equal(p.user.name, 'Admin');
    assert.notEqual(p.createdAt, '2000-01-01T00:00:00.000Z');
    assert.equal(p.jobCount, 0);
    assert.deepEqual(p.projectData, []);
    assert.ok((await names()).includes('beta'));
    assert.ok(!(await names(other)).includes('beta'));
  });
});
