import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROUTES, type RouteId } from '@runyard/contract';
import type { Tenant } from '../../../../test/support/server.js';
import { bashBody, jobWorld, submit, type JobWorld } from '../jobs/fixtures.js';
import { createBody, VSCODE_COMMAND } from '../sessions/world.js';
import { call } from '../wire.js';

// T4: every authenticated route, called by a user of another workspace with real ids of the
// victim's workspace. Object routes answer 404 and lists hold nothing of the victim's; a route
// without an entry here fails the test, so a new route cannot skip the check.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Probe {
  method: Method;
  url: string;
  body?: unknown;
  /** 404 (or 403 for admin routes): the exact status; 'own': the caller's own workspace answers, with nothing of the victim's. */
  expect: 404 | 403 | 'own' | '4xx';
  raw?: boolean;
}

/** Every victim object is named with this marker, so a leak shows in any reply. */
const SECRET = 'VICTIMSECRET';

describe('T4: cross-tenant matrix over every route', () => {
  let w: JobWorld;
  let m: Tenant;
  const v: Record<string, string> = {};
  const own: Record<string, string> = {};
  before(async () => {
    // VS Code sessions can be created (their command is set; nothing starts them here).
    w = await jobWorld({ RUNYARD_SESSION_COMMAND_VSCODE: VSCODE_COMMAND });
    const ws = w.ws;
    v.ws = ws;
    v.project = w.projectId;
    v.workflow = w.bashWorkflowId;
    v.nfWorkflow = w.nextflowWorkflowId;
    v.job = (await submit(w, bashBody(w, { name: `${SECRET}-job` }))).json().jobId;
    const datasets = (await call(w.s, 'GET', `/api/v2/datasets?projectId=${v.project}&teamId=${ws}`)).json().datasets;
    v.dataset = datasets.find((d: { name: string }) => d.name === 'Data')._id;
    const upload = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${ws}&projectId=${v.project}&name=${SECRET}.csv`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    assert.equal(upload.statusCode, 201, upload.body);
    v.file = upload.json()._id;
    v.fileKey = Buffer.from(upload.json().s3ObjectKey).toString('base64');
    v.fileObjectKey = upload.json().s3ObjectKey;
    const linked = await call(w.s, 'PUT', '/api/runyard/users/me/docker-registries', {
      registry: 'victim.example.org',
      username: 'victim',
      password: 'p',
    });
    assert.equal(linked.statusCode, 200, linked.body);
    const folder = await call(w.s, 'POST', `/api/v1/folders/virtual?teamId=${ws}`, {
      name: `${SECRET}-dir`,
      parent: { kind: 'Dataset', id: v.dataset },
    });
    v.folder = folder.json()._id;
    const wf = (await call(w.s, 'GET', `/api/runyard/workflows/${v.nfWorkflow}?teamId=${ws}`)).json();
    v.repositoryId = String(wf.repository.repositoryId);
    v.queue = (await call(w.s, 'GET', `/api/v1/teams/aws/v2/job-queues?teamId=${ws}`)).json()[0].id;
    const session = await call(
      w.s,
      'POST',
      `/api/v1/interactive-sessions?teamId=${ws}`,
      createBody(v.project, { name: `${SECRET}-session` }),
    );
    assert.equal(session.statusCode, 201, session.body);
    v.session = session.json()._id;

    m = await w.s.newTenant('mallory');
    own.project = (await call(w.s, 'POST', `/api/v1/projects?teamId=${m.workspaceId}`, { name: 'mine' }, m.apikey)).json()._id;
    own.dataset = (await call(w.s, 'GET', `/api/v2/datasets?projectId=${own.project}&teamId=${m.workspaceId}`, undefined, m.apikey))
      .json()
      .datasets.find((d: { name: string }) => d.name === 'Data')._id;
  });
  after(() => w.close());

  function matrix(): Record<RouteId, Probe | 'open'> {
    const T = `teamId=${m.workspaceId}`;
    const parent = { kind: 'Dataset', id: own.dataset };
    return {
      health: 'open',
      openapi: 'open',
      // The dashboard's sign-in names no object of any workspace; web-auth.test.ts checks that a cookie opens nothing of another tenant's.
      authLogin: 'open',
      authSession: 'open',
      authLogout: 'open',
      userMe: { method: 'GET', url: '/api/v1/users/me', expect: 'own' },
      dockerRegistryPut: {
        method: 'PUT',
        url: '/api/runyard/users/me/docker-registries',
        body: { registry: 'ghcr.io', username: 'mallory', password: 'x' },
        expect: 'own',
      },
      // The victim's account at victim.example.org is not the caller's to remove.
      dockerRegistryDelete: { method: 'DELETE', url: '/api/runyard/users/me/docker-registries?registry=victim.example.org', expect: 404 },
      userSearch: { method: 'GET', url: `/api/v1/users/search-assist?q=admin&${T}`, expect: 'own' },
      projectList: { method: 'GET', url: `/api/v2/projects?search=demo&${T}`, expect: 'own' },
      projectCreate: { method: 'POST', url: `/api/v1/projects?${T}`, body: { name: 'mine-2' }, expect: 'own' },
      adminUserList: { method: 'GET', url: '/api/runyard/admin/users', expect: 403 },
      adminUserCreate: { method: 'POST', url: '/api/runyard/admin/users', body: { username: 'x', email: 'x@x.org' }, expect: 403 },
      adminUserRevoke: { method: 'DELETE', url: `/api/runyard/admin/users/${w.s.admin.userId}`, expect: 403 },
      adminWorkspaceList: { method: 'GET', url: '/api/runyard/admin/workspaces', expect: 403 },
      adminWorkspaceCreate: { method: 'POST', url: '/api/runyard/admin/workspaces', body: { name: 'x' }, expect: 403 },
      adminMemberList: { method: 'GET', url: `/api/runyard/admin/members?workspaceId=${v.ws}`, expect: 403 },
      adminMemberCreate: { method: 'POST', url: '/api/runyard/admin/members', body: { workspaceId: v.ws, userId: m.userId }, expect: 403 },
      adminMemberRevoke: { method: 'DELETE', url: `/api/runyard/admin/members/${v.ws}/${w.s.admin.userId}`, expect: 403 },
      adminApiKeyList: { method: 'GET', url: '/api/runyard/admin/apikeys', expect: 403 },
      adminApiKeyCreate: { method: 'POST', url: '/api/runyard/admin/apikeys', body: { userId: w.s.admin.userId }, expect: 403 },
      adminApiKeyRevoke: { method: 'DELETE', url: `/api/runyard/admin/apikeys/${v.ws}`, expect: 403 },
      adminDockerWorkflowCreate: {
        method: 'POST',
        url: '/api/runyard/admin/workflows/docker',
        body: { workspaceId: v.ws, name: 'x', containerName: 'y' },
        expect: 403,
      },
      adminQueueCreate: { method: 'POST', url: '/api/runyard/admin/queues', body: { workspaceId: v.ws, name: 'x' }, expect: 403 },
      adminQueueList: { method: 'GET', url: `/api/runyard/admin/queues?workspaceId=${v.ws}`, expect: 403 },
      adminHpcCreate: {
        method: 'POST',
        url: '/api/runyard/admin/hpc',
        body: { name: 'x', partitions: ['p'], sharedDirectory: w.s.config.dataDir },
        expect: 403,
      },
      adminHpcList: { method: 'GET', url: '/api/runyard/admin/hpc', expect: 403 },
      adminImageList: { method: 'GET', url: '/api/runyard/admin/images', expect: 403 },
      adminImagePrune: { method: 'POST', url: '/api/runyard/admin/images/prune', body: { all: true }, expect: 403 },
      adminEngineSet: { method: 'PUT', url: '/api/runyard/admin/engine', body: { workspaceId: v.ws, driver: 'toil' }, expect: 403 },
      // The caller's own engine server and token: nothing of the victim's.
      cromwellStatus: { method: 'GET', url: `/api/v1/cromwell?${T}`, expect: 'own' },
      sessionList: { method: 'GET', url: `/api/v3/interactive-sessions?${T}`, expect: 'own' },
      sessionGet: { method: 'GET', url: `/api/v2/interactive-sessions/${v.session}?${T}`, expect: 404 },
      sessionCreate: {
        method: 'POST',
        url: `/api/v1/interactive-sessions?${T}`,
        body: createBody(own.project, { name: 'mine' }, { dataItems: [{ kind: 'File', item: v.file, name: 'x.csv' }] }),
        expect: 404,
      },
      sessionResume: { method: 'PUT', url: `/api/v1/interactive-sessions/${v.session}/resume?${T}`, body: {}, expect: 404 },
      sessionAbort: { method: 'PUT', url: `/api/v1/interactive-sessions/${v.session}/abort?${T}`, body: {}, expect: 404 },
      sessionUiLink: { method: 'POST', url: `/api/runyard/interactive-sessions/${v.session}/ui-link?${T}`, expect: 404 },
      sessionMount: {
        method: 'POST',
        url: `/api/v2/interactive-sessions/${v.session}/fuse-filesystem/mount?${T}`,
        body: {
          dataItems: [{ type: 'S3Folder', data: { name: 'x', s3BucketName: `runyard-${m.workspaceId}`, s3Prefix: `${m.workspaceId}/x/` } }],
        },
        expect: 404,
      },
      sessionMountV1: {
        method: 'POST',
        url: `/api/v1/interactive-sessions/${v.session}/fuse-filesystem/mount?${T}`,
        body: { dataItem: { kind: 'Folder', item: v.folder, name: 'x' } },
        expect: 404,
      },
      sessionMounts: { method: 'GET', url: `/api/v1/interactive-sessions/${v.session}/fuse-filesystems?${T}`, expect: 404 },
      cromwellSwitch: { method: 'PUT', url: `/api/v1/cromwell/stop?${T}`, expect: 'own' },
      engineTokenShow: { method: 'GET', url: `/api/runyard/engine-token?${T}`, expect: 'own' },
      engineTokenRotate: { method: 'POST', url: `/api/runyard/engine-token/rotate?${T}`, expect: 'own' },
      workflowList: { method: 'GET', url: `/api/v3/workflows?${T}`, expect: 'own' },
      workflowGet: { method: 'GET', url: `/api/runyard/workflows/${v.workflow}?${T}`, expect: 404 },
      workflowImport: {
        method: 'POST',
        url: `/api/v2/workflows?${T}`,
        body: { name: 'x', repository: { url: 'https://github.com/acme/missing' } },
        expect: 404,
      },
      workflowImportLegacy: {
        method: 'POST',
        url: `/api/v1/workflows?${T}`,
        body: { name: 'x', repository: { url: 'https://github.com/acme/missing' } },
        expect: 404,
      },
      workflowArchive: { method: 'PUT', url: `/api/runyard/workflows/${v.workflow}/archive?${T}`, expect: 404 },
      workflowUnarchive: { method: 'PUT', url: `/api/runyard/workflows/${v.workflow}/unarchive?${T}`, expect: 404 },
      gitPublicRepo: { method: 'GET', url: `/api/v1/git/github/getPublicRepo?repoName=missing&repoOwner=acme&${T}`, expect: 404 },
      gitWorkflowConfig: { method: 'GET', url: `/api/v1/git/github/getWorkflowConfig/missing/acme?${T}`, expect: 404 },
      gitBranches: {
        method: 'GET',
        url: `/api/v1/git/github/getBranches?repositoryIdentifier=${v.repositoryId}&owner=acme&${T}`,
        expect: 404,
      },
      jobSubmit: {
        method: 'POST',
        url: `/api/v2/jobs?${T}`,
        body: { project: v.project, workflow: v.workflow, command: 'true' },
        expect: 404,
      },
      jobList: { method: 'GET', url: `/api/v2/jobs?id=${v.job}&${T}`, expect: 'own' },
      jobGet: { method: 'GET', url: `/api/v1/jobs/${v.job}?${T}`, expect: 404 },
      jobRequestPayload: { method: 'GET', url: `/api/v1/jobs/${v.job}/request-payload?${T}`, expect: 404 },
      jobCosts: { method: 'GET', url: `/api/v1/jobs/${v.job}/costs/compute?${T}`, expect: 404 },
      storageObject: {
        method: 'GET',
        url: `/api/runyard/storage/object?bucket=runyard-${v.ws}&key=${encodeURIComponent(v.fileObjectKey)}&${T}`,
        expect: 404,
      },
      jobEvents: { method: 'GET', url: `/api/runyard/jobs/${v.job}/events?${T}`, expect: 404 },
      jobArrayFileMetadata: {
        method: 'GET',
        url: `/api/v1/jobs/array-file/metadata?separator=,&s3BucketName=runyard-${v.ws}&s3ObjectKey=${encodeURIComponent(v.fileKey)}&${T}`,
        expect: 404,
      },
      instanceTypeList: { method: 'GET', url: `/api/runyard/instance-types?${T}`, expect: 'own' },
      jobAbort: { method: 'PUT', url: `/api/v2/jobs/${v.job}/abort?${T}`, expect: 404 },
      jobArchive: {
        method: 'PUT',
        url: `/api/v1/jobs?${T}`,
        body: { jobIds: [v.job], update: { archived: { status: true } } },
        expect: 404,
      },
      queueList: { method: 'GET', url: `/api/v1/teams/aws/v2/job-queues?${T}`, expect: 'own' },
      systemQueueList: { method: 'GET', url: `/api/v1/teams/aws/v2/system-job-queues?${T}`, expect: 'own' },
      datasetList: { method: 'GET', url: `/api/v2/datasets?projectId=${v.project}&${T}`, expect: 404 },
      datasetItems: { method: 'GET', url: `/api/v1/datasets/${v.dataset}/items?${T}`, expect: 404 },
      virtualFolderItems: { method: 'GET', url: `/api/v1/folders/virtual/${v.folder}/items?${T}`, expect: 404 },
      folderList: { method: 'GET', url: `/api/v1/folders?id=${v.folder}&status=ready&${T}`, expect: 404 },
      bucketContents: {
        method: 'GET',
        url: `/api/v1/data-access/s3/bucket-contents?bucket=runyard-${v.ws}&path=${v.ws}/&${T}`,
        expect: '4xx',
      },
      containerContents: {
        method: 'GET',
        url: `/api/v1/data-access/azure/container-contents?containerName=runyard-${v.ws}&storageAccountName=x&path=${v.ws}/&${T}`,
        expect: '4xx',
      },
      cloudAzure: { method: 'GET', url: `/api/v1/cloud/azure?${T}`, expect: 'own' },
      dataItemMove: {
        method: 'PUT',
        url: `/api/v1/dataItems/move?${T}`,
        body: { dataItemToMove: { kind: 'File', item: v.file }, toDataItemParent: { kind: 'Dataset', item: own.dataset } },
        expect: 404,
      },
      fileRename: { method: 'PUT', url: `/api/v1/files/${v.file}?${T}`, body: { name: 'mine.csv' }, expect: 404 },
      folderRename: { method: 'PUT', url: `/api/v1/folders/${v.folder}?${T}`, body: { name: 'mine' }, expect: 404 },
      virtualFolderCreate: {
        method: 'POST',
        url: `/api/v1/folders/virtual?${T}`,
        body: { name: 'copy', parent, copyContentsFrom: v.folder },
        expect: 404,
      },
      s3FolderCreate: {
        method: 'POST',
        url: `/api/v1/folders/s3?${T}`,
        body: { s3BucketName: `runyard-${v.ws}`, s3Prefix: `${v.ws}/files`, name: 'x', parent },
        expect: '4xx',
      },
      s3FileCreate: {
        method: 'POST',
        url: `/api/v1/files/s3?${T}`,
        body: { s3BucketName: `runyard-${v.ws}`, s3ObjectKey: `${v.ws}/files/${v.file}/${SECRET}.csv`, name: 'x.csv', parent },
        expect: '4xx',
      },
      azureFolderCreate: {
        method: 'POST',
        url: `/api/v1/folders/azure-blob?${T}`,
        body: { blobContainerName: `runyard-${v.ws}`, blobPrefix: `${v.ws}/files`, blobStorageAccountName: 'x', name: 'x', parent },
        expect: '4xx',
      },
      azureFileCreate: {
        method: 'POST',
        url: `/api/v1/files/azure-blob?${T}`,
        body: { blobContainerName: `runyard-${v.ws}`, blobName: `${v.ws}/files/x.csv`, blobStorageAccountName: 'x', name: 'x.csv', parent },
        expect: '4xx',
      },
      fileDelete: { method: 'DELETE', url: `/api/v1/files/${v.file}?${T}`, expect: 404 },
      folderDelete: { method: 'DELETE', url: `/api/v1/folders/${v.folder}?${T}`, expect: 404 },
      jobDataDelete: { method: 'DELETE', url: `/api/v1/jobs/${v.job}/data?properties[]=analysisResults&${T}`, expect: 404 },
      datasetUpload: {
        method: 'POST',
        url: `/api/runyard/datasets/upload?projectId=${v.project}&name=x.csv&${T}`,
        body: 'x',
        raw: true,
        expect: 404,
      },
    };
  }

  it('has an entry for every route of the table', () => {
    const entries = matrix();
    for (const id of Object.keys(ROUTES)) assert.ok(id in entries, `route ${id} has no cross-tenant matrix entry`);
  });

  it('answers another tenant 404 (403 on admin routes) with nothing of the victim, for every route', async () => {
    const victimIds = [v.project, v.workflow, v.nfWorkflow, v.job, v.dataset, v.file, v.folder, v.queue, v.session];
    for (const [id, probe] of Object.entries(matrix())) {
      if (probe === 'open') continue;
      const r = probe.raw
        ? await w.s.app.inject({
            method: probe.method,
            url: probe.url,
            headers: { apikey: m.apikey, 'content-type': 'application/octet-stream' },
            payload: String(probe.body),
          })
        : await call(w.s, probe.method, probe.url, probe.body, m.apikey);
      if (probe.expect === 'own') assert.ok(r.statusCode < 300, `${id}: ${r.statusCode} ${r.body}`);
      else if (probe.expect === '4xx') assert.ok(r.statusCode >= 400 && r.statusCode < 500, `${id}: ${r.statusCode} ${r.body}`);
      else assert.equal(r.statusCode, probe.expect, `${id}: ${r.body}`);
      const sent = probe.url + JSON.stringify(probe.body ?? '');
      assert.ok(!r.body.includes(SECRET) || sent.includes(SECRET), `${id} leaked a victim's name: ${r.body}`);
      assert.ok(!r.body.includes('admin@localhost'), `${id} leaked the victim's email: ${r.body}`);
      // Ids may come back only when the caller sent them (an error message naming the id asked for).
      for (const vid of victimIds) assert.ok(!r.body.includes(vid) || sent.includes(vid), `${id} leaked ${vid}: ${r.body}`);
    }
    // Nothing of the victim's changed.
    const job = (await call(w.s, 'GET', `/api/v1/jobs/${v.job}?teamId=${v.ws}`)).json();
    assert.equal(job.status, 'queued');
    assert.equal(job.archived.status, false);
    assert.equal((await call(w.s, 'GET', `/api/v1/folders?id=${v.folder}&status=ready&teamId=${v.ws}`)).json()[0].name, `${SECRET}-dir`);
  });
});
