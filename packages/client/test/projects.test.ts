import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processProjectList, PROJECT_COLUMNS, RunyardClient, RunyardValueError, tableToCsv } from '@runyard/client';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

describe('SDK projects', () => {
  let s: TestServer;
  let proxy: RecordingProxy;
  let client: RunyardClient;
  let ws: string;
  before(async () => {
    s = await startTestServer({ listen: true });
    proxy = await startRecordingProxy(s.url);
    client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
    ws = s.admin.workspaceId;
  });
  after(async () => {
    client.close();
    await proxy.close();
    await s.close();
  });

  const queriesSince = (n: number) => proxy.requests.slice(n).map((r) => `${r.method} ${r.url}`);

  it('get_all on an empty workspace asks for the total, then for pageSize=0', async () => {
    const n = proxy.requests.length;
    assert.deepEqual(await client.getProjectList(ws), []);
    assert.deepEqual(queriesSince(n), [
      `GET /api/v2/projects?teamId=${ws}&pageSize=10&page=1`,
      `GET /api/v2/projects?teamId=${ws}&pageSize=0&page=1`,
    ]);
  });

  it('creates projects and returns their ids', async () => {
    const id = await client.createProject(ws, 'rna-seq');
    assert.match(id, /^[0-9a-f]{24}$/);
    const found = await client.getProjectIdFromName(ws, 'rna-seq');
    assert.equal(found._id, id);
    assert.equal(await client.fetchIdByName({ resource: 'projects', workspaceId: ws, name: 'rna-seq' }), id);
  });

  it('finds the exact name among similar ones and fails clearly when there is none', async () => {
    await client.createProject(ws, 'rna-seq-2');
    await client.createProject(ws, 'RNA-SEQ');
    assert.equal((await client.getProjectIdFromName(ws, 'RNA-SEQ')).name, 'RNA-SEQ');
    await assert.rejects(
      client.getProjectIdFromName(ws, 'rna'),
      (e: unknown) => e instanceof RunyardValueError && e.message === `Project 'rna' was not found in workspace '${ws}'.`,
    );
  });

  it('get_all beyond max_page_size fetches every page of max_page_size', async () => {
    for (let i = 0; i < 12; i++) await client.createProject(ws, `bulk-${i}`);
    const total = 15;
    const n = proxy.requests.length;
    const all = await client.getProjectList(ws, { maxPageSize: 4 });
    assert.equal(all.length, total);
    assert.equal(new Set(all.map((p) => p._id)).size, total);
    assert.deepEqual(queriesSince(n), [
      `GET /api/v2/projects?teamId=${ws}&pageSize=10&page=1`,
      ...[1, 2, 3, 4].map((p) => `GET /api/v2/projects?teamId=${ws}&pageSize=4&page=${p}`),
    ]);
  });

  it('a single page when get_all is false', async () => {
    const n = proxy.requests.length;
    const page = await client.getProjectList(ws, { getAll: false, page: 2, pageSize: 5 });
    assert.equal(page.length, 5);
    assert.deepEqual(queriesSince(n), [`GET /api/v2/projects?teamId=${ws}&pageSize=5&page=2`]);
  });

  it('refuses page sizes outside 1..1000 without calling the server', async () => {
    const n = proxy.requests.length;
    await assert.rejects(client.getProjectList(ws, { getAll: false, pageSize: 0 }), RunyardValueError);
    await assert.rejects(client.getProjectList(ws, { pageSize: 1001 }), RunyardValueError);
    await assert.rejects(client.getProjectList(ws, { maxPageSize: 0 }), RunyardValueError);
    await assert.rejects(client.getProjectList(ws, { getAll: false, page: 0 }), RunyardValueError);
    assert.equal(proxy.requests.length, n);
  });

  it('process_project_list keeps the selected columns, or every field', async () => {
    const projects = await client.getProjectList(ws);
    const table = processProjectList(projects);
    assert.deepEqual(table.columns, [...PROJECT_COLUMNS]);
    assert.equal(table.rows.length, projects.length);
    assert.equal(table.rows[0]['user.name'], 'Admin');
    const full = processProjectList(projects, true);
    assert.ok(full.columns.includes('team.id'));
    assert.ok(full.columns.includes('projectJobs'));
    const csv = tableToCsv(table).split('\n');
    assert.equal(csv[0], PROJECT_COLUMNS.join(','));
    assert.equal(csv.length, projects.length + 2);
  });
});

describe('SDK users', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ listen: true });
  });
  after(() => s.close());

  it('get_user_info returns the caller, resolve_user_id finds members by username or display name', async () => {
    const client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
    const me = await client.getUserInfo();
    assert.equal(me.id, s.admin.userId);
    assert.deepEqual(me.dockerRegistriesCredentials, []);
    const outsider = await s.newTenant('carol');
    const bob = await client.admin.createUser({ username: 'bob', email: 'bob@example.org', name: 'Bob', surname: 'Builder' });
    await client.admin.addMember(s.admin.workspaceId, bob.id, 'member');
    assert.equal(await client.resolveUserId('bob', s.admin.workspaceId), bob.id);
    assert.equal(await client.resolveUserId('Bob Builder', s.admin.workspaceId), bob.id);
    await assert.rejects(client.resolveUserId('carol', s.admin.workspaceId), RunyardValueError);
    await assert.rejects(client.resolveUserId('bob', outsider.workspaceId), /Error searching for user/);
    client.close();
  });
});
