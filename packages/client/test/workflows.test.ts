import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, NotFoundError, processWorkflowList, RunyardClient, RunyardValueError, WORKFLOW_COLUMNS } from '@runyard/client';
import { createGitMirror, type GitMirror } from '../../../test/support/git-repos.js';
import { startRecordingProxy, type RecordingProxy } from '../../../test/support/recording-proxy.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';

const NEXTFLOW = { 'main.nf': 'workflow { println "hi" }\n', 'nextflow.config': 'params.x = 1\n' };
const WDL = { 'wf/hello.wdl': 'version 1.0\nworkflow hello {}\n', 'wf/other.wdl': 'version 1.0\nworkflow other {}\n' };

describe('SDK workflows (import from local git mirrors)', () => {
  let mirror: GitMirror;
  let s: TestServer;
  let proxy: RecordingProxy;
  let client: RunyardClient;
  let ws: string;
  before(async () => {
    mirror = createGitMirror();
    mirror.create('acme/rnatoy', { files: NEXTFLOW, branches: { dev: { 'extra.nf': 'x' } }, tags: { 'v1.0': { message: 'release' } } });
    mirror.create('acme/wdl-pipes', { files: WDL });
    mirror.create('group/sub/deep', { files: NEXTFLOW });
    mirror.create('acme/empty', { files: { 'README.md': 'nothing here' } });
    s = await startTestServer({
      listen: true,
      env: { RUNYARD_GIT_URL_REWRITES: JSON.stringify({ ...mirror.rewrites, 'https://gitlab.com/': `file://${mirror.root}/` }) },
    });
    proxy = await startRecordingProxy(s.url);
    client = new RunyardClient({ platformUrl: proxy.url, apikey: s.admin.apikey });
    ws = s.admin.workspaceId;
  });
  after(async () => {
    client.close();
    await proxy.close();
    await s.close();
    mirror.remove();
  });

  const since = (n: number) => proxy.requests.slice(n).map((r) => `${r.method} ${r.url}`);

  it('imports a Nextflow workflow through getPublicRepo, getWorkflowConfig and POST /api/v2/workflows', async () => {
    const n = proxy.requests.length;
    const id = await client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/rnatoy', workflowName: 'rnatoy' });
    assert.match(id, /^[0-9a-f]{24}$/);
    const calls = since(n);
    assert.equal(calls.length, 3);
    assert.match(
      calls[0],
      /^GET \/api\/v1\/git\/github\/getPublicRepo\?repoName=rnatoy&repoOwner=acme&host=https%3A%2F%2Fgithub.com&teamId=/,
    );
    assert.match(calls[1], /^GET \/api\/v1\/git\/github\/getWorkflowConfig\/rnatoy\/acme\?host=/);
    assert.match(calls[2], /^POST \/api\/v2\/workflows\?teamId=/);
    const wf = await client.getWorkflowContent(ws, 'rnatoy');
    assert.equal(wf._id, id);
    assert.equal(wf.workflowType, 'nextflow');
    assert.equal(wf.mainFile, 'main.nf');
    assert.equal(wf.repository?.platform, 'github');
    assert.equal(wf.repository?.url, 'https://github.com/acme/rnatoy');
    assert.equal(wf.repository?.owner.login, 'acme');
    assert.equal(typeof wf.repository?.repositoryId, 'number');
    assert.equal(wf.archived.status, false);
    assert.equal(await client.detectWorkflow('rnatoy', ws), 'nextflow');
    assert.equal(await client.isModule('rnatoy', ws), false);
  });

  it('accepts an owner with subgroups sent as %2F in one path segment', async () => {
    const r = await client.request<{ mainFile: string }>('GET', '/api/v1/git/gitlab/getWorkflowConfig/deep/group%2Fsub', {
      query: { host: 'https://gitlab.com', teamId: ws },
    });
    assert.equal(r.mainFile, 'main.nf');
    const repo = await client.request<{ namespace: { full_path: string } }>('GET', '/api/v1/git/gitlab/getPublicRepo', {
      query: { repoName: 'deep', repoOwner: 'group/sub', host: 'https://gitlab.com', teamId: ws },
    });
    assert.equal(repo.namespace.full_path, 'group/sub');
  });

  it('imports a WDL workflow only with its main file when the repository holds several', async () => {
    await assert.rejects(
      client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/wdl-pipes', workflowName: 'hello' }),
      (e: unknown) =>
        e instanceof ApiError && e.status === 400 && /wf\/hello\.wdl/.test(e.serverMessage) && /wf\/other\.wdl/.test(e.serverMessage),
    );
    const id = await client.importWorkflow(ws, {
      workflowUrl: 'https://github.com/acme/wdl-pipes',
      workflowName: 'hello',
      mainFile: 'wf/hello.wdl',
    });
    const wf = await client.getWorkflowContent(ws, 'hello');
    assert.equal(wf._id, id);
    assert.equal(wf.workflowType, 'wdl');
    assert.equal(await client.detectWorkflow('hello', ws), 'wdl');
  });

  it('refuses a repository with no workflow and an unreachable one, each with a clear 4xx', async () => {
    await assert.rejects(
      client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/empty', workflowName: 'empty' }),
      (e: unknown) => e instanceof ApiError && e.status === 400,
    );
    await assert.rejects(
      client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/missing', workflowName: 'missing' }),
      (e: unknown) => e instanceof NotFoundError,
    );
    await assert.rejects(client.importWorkflow(ws, { workflowUrl: 'not a url', workflowName: 'x' }), RunyardValueError);
  });

  it('refuses every SSRF input of T8 with a 400 before any connection', async () => {
    for (const url of [
      'http://127.1/a/b',
      'http://0/a/b',
      'http://017700000001/a/b',
      'http://0x7f.0.0.1/a/b',
      'http://2130706433/a/b',
      'http://[::ffff:7f00:1]/a/b',
      'http://169.254.169.254/a/b',
      'file:///etc/passwd',
      'ext::sh -c touch% /tmp/pwned',
      'https://169.254.169.254/a/b',
      'https://evil.example/a/b',
    ]) {
      const r = await client.rawRequest('POST', '/api/v2/workflows', { query: { teamId: ws }, body: { name: 'x', repository: { url } } });
      assert.equal(r.status, 400, url);
      assert.equal((r.body as { code: string }).code, 'GIT_URL_REFUSED', url);
    }
    const r = await client.rawRequest('GET', '/api/v1/git/github/getPublicRepo', {
      query: { repoName: 'b', repoOwner: 'a', host: 'http://127.0.0.1', teamId: ws },
    });
    assert.equal(r.status, 400);
  });

  it('lists workflows with exact pagination metadata and paging', async () => {
    const r = await client.request<{ workflows: unknown[]; paginationMetadata: Record<string, number> }>('GET', '/api/v3/workflows', {
      query: { teamId: ws, search: 'rnat' },
    });
    assert.deepEqual(r.paginationMetadata, { 'Pagination-Count': 1, 'Pagination-Page': 1, 'Pagination-Limit': 1000 });
    const empty = await client.request<{ workflows: unknown[]; paginationMetadata: Record<string, number> }>('GET', '/api/v3/workflows', {
      query: { teamId: ws, pageSize: 0 },
    });
    assert.deepEqual(empty.workflows, []);
    assert.equal(empty.paginationMetadata['Pagination-Count'], 2);
    const n = proxy.requests.length;
    const all = await client.getWorkflowList(ws);
    assert.equal(all.length, 2);
    assert.deepEqual(since(n), [
      `GET /api/v3/workflows?teamId=${ws}&pageSize=10&page=1&archived.status=false`,
      `GET /api/v3/workflows?teamId=${ws}&pageSize=2&page=1&archived.status=false`,
    ]);
    const table = processWorkflowList(all);
    // Every column is present in these workflows.
    assert.deepEqual(table.columns, [...WORKFLOW_COLUMNS]);
  });

  it('the name lookup is the count call then one call of exactly that size, without page', async () => {
    const n = proxy.requests.length;
    const id = await client.fetchIdByName({ resource: 'workflows', workspaceId: ws, name: 'rnatoy' });
    assert.deepEqual(since(n), [
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy`,
      `GET /api/v3/workflows?teamId=${ws}&search=rnatoy&pageSize=1`,
    ]);
    assert.equal(id, (await client.getWorkflowContent(ws, 'rnatoy'))._id);
    await assert.rejects(
      client.fetchIdByName({ resource: 'workflows', workspaceId: ws, name: 'rnatoy', repositoryPlatform: 'gitlab' }),
      RunyardValueError,
    );
    await assert.rejects(client.getWorkflowContent(ws, 'nope'), /No workflow found/);
  });

  it('resolves duplicate names with last, and lists branches of the repository', async () => {
    const second = await client.importWorkflow(ws, {
      workflowUrl: 'https://gitlab.com/group/sub/deep',
      workflowName: 'rnatoy',
      repositoryPlatform: 'gitlab',
    });
    await assert.rejects(client.getWorkflowContent(ws, 'rnatoy'), /More than one workflow/);
    assert.equal((await client.getWorkflowContent(ws, 'rnatoy', { last: true }))._id, second);
    assert.equal(
      await client.fetchIdByName({ resource: 'workflows', workspaceId: ws, name: 'rnatoy', repositoryPlatform: 'gitlab' }),
      second,
    );
    const first = await client.fetchIdByName({ resource: 'workflows', workspaceId: ws, name: 'rnatoy', repositoryPlatform: 'github' });
    const wf = (await client.getWorkflowList(ws)).find((w) => w._id === first)!;
    const branches = await client.getBranches(ws, {
      repositoryIdentifier: wf.repository!.repositoryId,
      owner: wf.repository!.owner.login,
      workflowOwnerId: wf.owner.id,
      limit: 1,
    });
    assert.equal(branches.total, 2);
    assert.deepEqual(
      branches.branches.map((b) => b.name),
      ['dev', 'main'],
    );
    assert.match(branches.branches[0].commit.sha, /^[0-9a-f]{40}$/);
    await assert.rejects(client.getBranches(ws, { repositoryIdentifier: '12345', owner: 'nobody' }), NotFoundError);
  });

  it('imports the same repository under the same name again, as CloudOS does: the newest is chosen with last', async () => {
    const once = await client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/rnatoy', workflowName: 'rnatoy-again' });
    const twice = await client.importWorkflow(ws, { workflowUrl: 'https://github.com/acme/rnatoy', workflowName: 'rnatoy-again' });
    assert.notEqual(once, twice);
    const lookup = { resource: 'workflows', workspaceId: ws, name: 'rnatoy-again' } as const;
    await assert.rejects(client.fetchIdByName(lookup), /More than one workflow found with name "rnatoy-again"/);
    assert.equal(await client.fetchIdByName({ ...lookup, last: true }), twice);
  });

  it('creates container workflows (admin only), marks modules, archives and unarchives', async () => {
    const picard = await client.admin.createDockerWorkflow({
      workspaceId: ws,
      name: 'picard',
      containerName: 'broadinstitute/picard:2.27',
      defaultCommand: 'picard',
    });
    assert.equal(picard.workflowType, 'docker');
    assert.equal(picard.containerName, 'broadinstitute/picard:2.27');
    await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'multiqc', containerName: 'ewels/multiqc', group: 'system-tools' });
    assert.equal(await client.detectWorkflow('picard', ws), 'docker');
    assert.equal(await client.isModule('multiqc', ws), true);
    assert.equal(await client.fetchIdByName({ resource: 'workflows', workspaceId: ws, name: 'picard' }), picard._id);
    await assert.rejects(
      client.admin.createDockerWorkflow({ workspaceId: ws, name: 'picard', containerName: 'x' }),
      (e: unknown) => e instanceof ApiError && e.status === 409,
    );
    const other = await s.newTenant('dora');
    const dora = new RunyardClient({ platformUrl: s.url, apikey: other.apikey });
    await assert.rejects(
      dora.admin.createDockerWorkflow({ workspaceId: other.workspaceId, name: 'x', containerName: 'y' }),
      (e: unknown) => e instanceof ApiError && e.status === 403,
    );
    await assert.rejects(dora.archiveWorkflow(other.workspaceId, picard._id), NotFoundError);
    dora.close();
    assert.equal((await client.archiveWorkflow(ws, picard._id)).archived.status, true);
    assert.ok(!(await client.getWorkflowList(ws)).some((w) => w._id === picard._id));
    assert.ok((await client.getWorkflowList(ws, { archivedStatus: true })).some((w) => w._id === picard._id));
    await assert.rejects(client.fetchIdByName({ resource: 'workflows', workspaceId: ws, name: 'picard' }), RunyardValueError);
    assert.equal((await client.unarchiveWorkflow(ws, picard._id)).archived.status, false);
  });

  it('imports through the legacy v1 route too', async () => {
    const id = await client.workflowImport(ws, {
      workflowUrl: 'https://github.com/acme/rnatoy',
      workflowName: 'rnatoy-legacy',
      repositoryProjectId: 7,
      repositoryId: 99,
    });
    assert.equal((await client.getWorkflowContent(ws, 'rnatoy-legacy'))._id, id);
  });
});
