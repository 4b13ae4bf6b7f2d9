import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasRole, ROLE_ORDER, ROUTE_ROLES, ROUTES, type Role, type RouteAccess, type RouteId } from '@runyard/contract';
import type { Tenant } from '../../../../test/support/server.js';
import { explorerWorld, type ExplorerWorld } from '../file-explorer/world.js';
import { bashBody, submit } from '../jobs/fixtures.js';
import { createBody, VSCODE_COMMAND } from '../sessions/world.js';
import { assertError, call } from '../wire.js';
import { addMember } from './members.js';
import { databaseTables, STATE_TABLES, stateSnapshot } from './state-snapshot.js';

// T14: every route of the table called by every workspace role (none of them a platform
// administrator). A refused call is 403 and changes nothing in the database or the data
// directory; an allowed one answers the route's own success status. Each entry states the least
// role its route needs, so a route cannot be loosened in the roles table unnoticed, and a route
// without an entry fails the test.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
interface Probe {
  method: Method;
  url: string;
  body?: unknown;
  /** Sent as application/octet-stream (the upload route). */
  raw?: boolean;
  /** The status of an allowed call when it cannot be the route's success (Azure lookups on local storage). */
  allowed?: number;
  /** Headers besides the apikey: the dashboard's session cookie and CSRF token. */
  headers?: Record<string, string>;
}
interface Actor {
  role: Role;
  tenant: Tenant;
}
interface Entry {
  role: RouteAccess;
  /** Builds the request for one actor; fixtures it needs are made beforehand, as the platform admin. */
  probe(a: Actor): Promise<Probe>;
}

describe('T14: roles matrix over every route', () => {
  let w: ExplorerWorld;
  const actors: Actor[] = [];
  let repoUrl = '';
  let repositoryId = '';
  let dataset = '';
  let n = 0;
  const T = () => `teamId=${w.ws}`;
  const unique = (what: string, a: Actor) => `${what}-${a.role}-${++n}`;

  before(async () => {
    // Sessions of VS Code can be created: its command is set (nothing starts them here).
    w = await explorerWorld({ RUNYARD_SESSION_COMMAND_VSCODE: VSCODE_COMMAND });
    for (const role of ROLE_ORDER) actors.push({ role, tenant: await addMember(w.s, w.ws, `${role}-user`, role) });
    const wf = (await call(w.s, 'GET', `/api/runyard/workflows/${w.nextflowWorkflowId}?${T()}`)).json();
    repoUrl = wf.repository.url;
    repositoryId = String(wf.repository.repositoryId);
    dataset = (await w.datasets()).Data._id;
  });
  after(() => w.close());

  /** A queued job of the actor, or of the platform admin for a role that cannot submit. */
  async function jobOf(a: Actor): Promise<string> {
    const r = await submit(w, bashBody(w, { name: unique('job', a) }), hasRole(a.role, 'member') ? a.tenant : undefined);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().jobId;
  }
  /** A session of the actor (or of the platform admin for a role that cannot create one), in `status`. */
  async function sessionOf(a: Actor, status = 'scheduled'): Promise<string> {
    const owner = hasRole(a.role, 'member') ? a.tenant.apikey : w.s.admin.apikey;
    const r = await call(w.s, 'POST', `/api/v1/interactive-sessions?${T()}`, createBody(w.projectId, { name: unique('s', a) }), owner);
    assert.equal(r.statusCode, 201, r.body);
    const id = r.json()._id as string;
    await w.s.store.db.updateTable('interactive_sessions').set({ status }).where('id', '=', id).execute();
    return id;
  }
  async function folder(a: Actor): Promise<string> {
    const r = await call(w.s, 'POST', `/api/v1/folders/virtual?${T()}`, {
      name: unique('dir', a),
      parent: { kind: 'Dataset', id: dataset },
    });
    assert.equal(r.statusCode, 201, r.body);
    return r.json()._id;
  }
  async function file(a: Actor): Promise<{ id: string; key: string }> {
    const name = `${unique('file', a)}.csv`;
    const r = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?${T()}&projectId=${w.projectId}&name=${name}`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    assert.equal(r.statusCode, 201, r.body);
    return { id: r.json()._id, key: r.json().s3ObjectKey };
  }
  async function setArchived(archived: boolean): Promise<void> {
    const r = await call(w.s, 'PUT', `/api/runyard/workflows/${w.nextflowWorkflowId}/${archived ? 'archive' : 'unarchive'}?${T()}`);
    assert.equal(r.statusCode, 200, r.body);
  }
  const get = (url: string, allowed?: number) => async (): Promise<Probe> => ({ method: 'GET', url, allowed });
  const parent = () => ({ kind: 'Dataset', id: dataset });
  /** The dashboard's session of the actor: its cookie and CSRF header. */
  async function dashboardSession(a: Actor): Promise<Record<string, string>> {
    const r = await call(w.s, 'POST', '/api/runyard/auth/login', { apikey: a.tenant.apikey }, null);
    assert.equal(r.statusCode, 200, r.body);
    return { cookie: String(r.headers['set-cookie']).split(';')[0], 'x-runyard-csrf': r.json().csrfToken };
  }
  const platformAdmin = (method: Method, url: string, body?: unknown): Entry => ({
    role: 'platformAdmin',
    probe: async () => ({ method, url, body }),
  });

  function matrix(): Record<RouteId, Entry> {
    return {
      health: { role: 'public', probe: get('/api/runyard/health') },
      openapi: { role: 'public', probe: get('/api/runyard/openapi.json') },
      authLogin: {
        role: 'public',
        probe: async (a) => ({ method: 'POST', url: '/api/runyard/auth/login', body: { apikey: a.tenant.apikey } }),
      },
      authSession: {
        role: 'public',
        probe: async (a) => ({ method: 'GET', url: '/api/runyard/auth/session', headers: await dashboardSession(a) }),
      },
      authLogout: {
        role: 'public',
        probe: async (a) => ({ method: 'POST', url: '/api/runyard/auth/logout', headers: await dashboardSession(a) }),
      },
      userMe: { role: 'user', probe: get('/api/v1/users/me') },
      dockerRegistryPut: {
        role: 'user',
        probe: async (a) => ({
          method: 'PUT',
          url: '/api/runyard/users/me/docker-registries',
          body: { registry: `${unique('r', a)}.example.org`, username: 'u', password: 'p' },
        }),
      },
      dockerRegistryDelete: {
        role: 'user',
        probe: async (a) => {
          const registry = `${unique('d', a)}.example.org`;
          const r = await call(
            w.s,
            'PUT',
            '/api/runyard/users/me/docker-registries',
            { registry, username: 'u', password: 'p' },
            a.tenant.apikey,
          );
          assert.equal(r.statusCode, 200, r.body);
          return { method: 'DELETE', url: `/api/runyard/users/me/docker-registries?registry=${registry}` };
        },
      },
      jobGet: { role: 'user', probe: async (a) => ({ method: 'GET', url: `/api/v1/jobs/${await jobOf(a)}?${T()}` }) },

      userSearch: { role: 'viewer', probe: get(`/api/v1/users/search-assist?q=user&${T()}`) },
      projectList: { role: 'viewer', probe: get(`/api/v2/projects?${T()}`) },
      workflowList: { role: 'viewer', probe: get(`/api/v3/workflows?${T()}`) },
      workflowGet: { role: 'viewer', probe: get(`/api/runyard/workflows/${w.bashWorkflowId}?${T()}`) },
      gitPublicRepo: {
        role: 'viewer',
        probe: get(`/api/v1/git/github/getPublicRepo?repoName=rnatoy&repoOwner=acme&host=https%3A%2F%2Fgithub.com&${T()}`),
      },
      gitWorkflowConfig: {
        role: 'viewer',
        probe: get(`/api/v1/git/github/getWorkflowConfig/rnatoy/acme?host=https%3A%2F%2Fgithub.com&${T()}`),
      },
      gitBranches: {
        role: 'viewer',
        probe: get(`/api/v1/git/github/getBranches?repositoryIdentifier=${repositoryId}&owner=acme&${T()}`),
      },
      jobList: { role: 'viewer', probe: get(`/api/v2/jobs?${T()}`) },
      jobRequestPayload: {
        role: 'viewer',
        probe: async (a) => ({ method: 'GET', url: `/api/v1/jobs/${await jobOf(a)}/request-payload?${T()}` }),
      },
      jobEvents: {
        role: 'viewer',
        // An ended job: its stream sends the log and the end, then closes.
        probe: async (a) => {
          const id = await jobOf(a);
          await w.s.store.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', id).execute();
          return { method: 'GET', url: `/api/runyard/jobs/${id}/events?${T()}` };
        },
      },
      storageObject: {
        role: 'viewer',
        probe: async (a) => ({
          method: 'GET',
          url: `/api/runyard/storage/object?bucket=runyard-${w.ws}&key=${encodeURIComponent((await file(a)).key)}&${T()}`,
        }),
      },
      jobArrayFileMetadata: {
        role: 'viewer',
        probe: async (a) => {
          const key = Buffer.from((await file(a)).key).toString('base64');
          return {
            method: 'GET',
            url: `/api/v1/jobs/array-file/metadata?separator=,&s3BucketName=runyard-${w.ws}&s3ObjectKey=${encodeURIComponent(key)}&${T()}`,
          };
        },
      },
      jobCosts: {
        role: 'viewer',
        probe: async (a) => ({ method: 'GET', url: `/api/v1/jobs/${await jobOf(a)}/costs/compute?${T()}` }),
      },
      instanceTypeList: { role: 'viewer', probe: get(`/api/runyard/instance-types?${T()}`) },
      queueList: { role: 'viewer', probe: get(`/api/v1/teams/aws/v2/job-queues?${T()}`) },
      systemQueueList: { role: 'viewer', probe: get(`/api/v1/teams/aws/v2/system-job-queues?${T()}`) },
      datasetList: { role: 'viewer', probe: get(`/api/v2/datasets?projectId=${w.projectId}&${T()}`) },
      datasetItems: { role: 'viewer', probe: get(`/api/v1/datasets/${dataset}/items?${T()}`) },
      virtualFolderItems: {
        role: 'viewer',
        probe: async (a) => ({ method: 'GET', url: `/api/v1/folders/virtual/${await folder(a)}/items?${T()}` }),
      },
      folderList: {
        role: 'viewer',
        probe: async (a) => ({ method: 'GET', url: `/api/v1/folders?id=${await folder(a)}&status=ready&${T()}` }),
      },
      bucketContents: { role: 'viewer', probe: get(`/api/v1/data-access/s3/bucket-contents?bucket=runyard-${w.ws}&path=${w.ws}/&${T()}`) },
      containerContents: {
        role: 'viewer',
        probe: get(
          `/api/v1/data-access/azure/container-contents?containerName=runyard-${w.ws}&storageAccountName=x&path=${w.ws}/&${T()}`,
          404,
        ),
      },
      cloudAzure: { role: 'viewer', probe: get(`/api/v1/cloud/azure?${T()}`) },
      cromwellStatus: { role: 'viewer', probe: get(`/api/v1/cromwell?${T()}`) },
      sessionList: { role: 'viewer', probe: get(`/api/v3/interactive-sessions?${T()}`) },
      sessionMounts: {
        role: 'viewer',
        probe: async (a) => ({ method: 'GET', url: `/api/v1/interactive-sessions/${await sessionOf(a)}/fuse-filesystems?${T()}` }),
      },
      sessionGet: {
        role: 'viewer',
        probe: async (a) => ({ method: 'GET', url: `/api/v2/interactive-sessions/${await sessionOf(a)}?${T()}` }),
      },

      projectCreate: {
        role: 'member',
        probe: async (a) => ({ method: 'POST', url: `/api/v1/projects?${T()}`, body: { name: unique('p', a) } }),
      },
      workflowImport: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v2/workflows?${T()}`,
          body: { name: unique('wf', a), repository: { url: repoUrl, platform: 'github' } },
        }),
      },
      workflowImportLegacy: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v1/workflows?${T()}`,
          body: { name: unique('wf', a), repository: { url: repoUrl, platform: 'github' } },
        }),
      },
      jobSubmit: {
        role: 'member',
        probe: async (a) => ({ method: 'POST', url: `/api/v2/jobs?${T()}`, body: bashBody(w, { name: unique('run', a) }) }),
      },
      jobAbort: { role: 'member', probe: async (a) => ({ method: 'PUT', url: `/api/v2/jobs/${await jobOf(a)}/abort?${T()}` }) },
      jobArchive: {
        role: 'member',
        probe: async (a) => ({
          method: 'PUT',
          url: `/api/v1/jobs?${T()}`,
          body: { jobIds: [await jobOf(a)], update: { archived: { status: true } } },
        }),
      },
      jobDataDelete: {
        role: 'member',
        probe: async (a) => {
          const id = await jobOf(a);
          await w.setStatus(id, 'completed');
          return { method: 'DELETE', url: `/api/v1/jobs/${id}/data?properties[]=analysisResults&${T()}` };
        },
      },
      dataItemMove: {
        role: 'member',
        probe: async (a) => ({
          method: 'PUT',
          url: `/api/v1/dataItems/move?${T()}`,
          body: { dataItemToMove: { kind: 'Folder', item: await folder(a) }, toDataItemParent: { kind: 'Folder', item: await folder(a) } },
        }),
      },
      fileRename: {
        role: 'member',
        probe: async (a) => ({ method: 'PUT', url: `/api/v1/files/${(await file(a)).id}?${T()}`, body: { name: `${unique('r', a)}.csv` } }),
      },
      folderRename: {
        role: 'member',
        probe: async (a) => ({ method: 'PUT', url: `/api/v1/folders/${await folder(a)}?${T()}`, body: { name: unique('r', a) } }),
      },
      virtualFolderCreate: {
        role: 'member',
        probe: async (a) => ({ method: 'POST', url: `/api/v1/folders/virtual?${T()}`, body: { name: unique('vf', a), parent: parent() } }),
      },
      s3FolderCreate: {
        role: 'member',
        probe: async (a) => {
          await file(a);
          return {
            method: 'POST',
            url: `/api/v1/folders/s3?${T()}`,
            body: { s3BucketName: `runyard-${w.ws}`, s3Prefix: `${w.ws}/files`, name: unique('s3', a), parent: parent() },
          };
        },
      },
      s3FileCreate: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v1/files/s3?${T()}`,
          body: { s3BucketName: `runyard-${w.ws}`, s3ObjectKey: (await file(a)).key, name: unique('s3', a), parent: parent() },
        }),
      },
      azureFolderCreate: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v1/folders/azure-blob?${T()}`,
          body: {
            blobContainerName: `runyard-${w.ws}`,
            blobPrefix: `${w.ws}/files`,
            blobStorageAccountName: 'x',
            name: unique('az', a),
            parent: parent(),
          },
          allowed: 404,
        }),
      },
      azureFileCreate: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v1/files/azure-blob?${T()}`,
          body: {
            blobContainerName: `runyard-${w.ws}`,
            blobName: `${w.ws}/files/x.csv`,
            blobStorageAccountName: 'x',
            name: unique('az', a),
            parent: parent(),
          },
          allowed: 404,
        }),
      },
      fileDelete: { role: 'member', probe: async (a) => ({ method: 'DELETE', url: `/api/v1/files/${(await file(a)).id}?${T()}` }) },
      folderDelete: { role: 'member', probe: async (a) => ({ method: 'DELETE', url: `/api/v1/folders/${await folder(a)}?${T()}` }) },
      datasetUpload: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/runyard/datasets/upload?${T()}&projectId=${w.projectId}&name=${unique('up', a)}.csv`,
          body: 'a,b\n',
          raw: true,
        }),
      },
      cromwellSwitch: { role: 'member', probe: async () => ({ method: 'PUT', url: `/api/v1/cromwell/stop?${T()}` }) },
      sessionCreate: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v1/interactive-sessions?${T()}`,
          body: createBody(w.projectId, { name: unique('s', a) }),
        }),
      },
      sessionAbort: {
        role: 'member',
        probe: async (a) => ({
          method: 'PUT',
          url: `/api/v1/interactive-sessions/${await sessionOf(a, 'ready')}/abort?${T()}`,
          body: { uploadOnClose: true, forceAbort: false },
        }),
      },
      sessionResume: {
        role: 'member',
        probe: async (a) => ({
          method: 'PUT',
          url: `/api/v1/interactive-sessions/${await sessionOf(a, 'aborted')}/resume?${T()}`,
          body: { dataItems: [], fileSystemIds: [] },
        }),
      },
      sessionUiLink: {
        role: 'member',
        probe: async (a) => ({ method: 'POST', url: `/api/runyard/interactive-sessions/${await sessionOf(a, 'ready')}/ui-link?${T()}` }),
      },
      sessionMount: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v2/interactive-sessions/${await sessionOf(a, 'ready')}/fuse-filesystem/mount?${T()}`,
          body: { dataItems: [{ type: 'S3Folder', data: { name: 'data', s3BucketName: `runyard-${w.ws}`, s3Prefix: `${w.ws}/data/` } }] },
        }),
      },
      sessionMountV1: {
        role: 'member',
        probe: async (a) => ({
          method: 'POST',
          url: `/api/v1/interactive-sessions/${await sessionOf(a, 'ready')}/fuse-filesystem/mount?${T()}`,
          body: { dataItem: { type: 'S3Folder', data: { name: 'data', s3BucketName: `runyard-${w.ws}`, s3Prefix: `${w.ws}/data/` } } },
        }),
      },

      workflowArchive: {
        role: 'admin',
        probe: async () => {
          await setArchived(false);
          return { method: 'PUT', url: `/api/runyard/workflows/${w.nextflowWorkflowId}/archive?${T()}` };
        },
      },
      workflowUnarchive: {
        role: 'admin',
        probe: async () => {
          await setArchived(true);
          return { method: 'PUT', url: `/api/runyard/workflows/${w.nextflowWorkflowId}/unarchive?${T()}` };
        },
      },
      engineTokenShow: { role: 'admin', probe: get(`/api/runyard/engine-token?${T()}`) },
      engineTokenRotate: { role: 'admin', probe: async () => ({ method: 'POST', url: `/api/runyard/engine-token/rotate?${T()}` }) },

      adminUserList: platformAdmin('GET', '/api/runyard/admin/users'),
      adminUserCreate: platformAdmin('POST', '/api/runyard/admin/users', { username: 'x', email: 'x@x.org' }),
      adminUserRevoke: platformAdmin('DELETE', `/api/runyard/admin/users/${w.s.admin.userId}`),
      adminWorkspaceList: platformAdmin('GET', '/api/runyard/admin/workspaces'),
      adminWorkspaceCreate: platformAdmin('POST', '/api/runyard/admin/workspaces', { name: 'x' }),
      adminMemberList: platformAdmin('GET', `/api/runyard/admin/members?workspaceId=${w.ws}`),
      adminMemberCreate: platformAdmin('POST', '/api/runyard/admin/members', {
        workspaceId: w.ws,
        userId: w.s.admin.userId,
        role: 'viewer',
      }),
      adminMemberRevoke: platformAdmin('DELETE', `/api/runyard/admin/members/${w.ws}/${w.s.admin.userId}`),
      adminApiKeyList: platformAdmin('GET', '/api/runyard/admin/apikeys'),
      adminApiKeyCreate: platformAdmin('POST', '/api/runyard/admin/apikeys', { userId: w.s.admin.userId }),
      adminApiKeyRevoke: platformAdmin('DELETE', `/api/runyard/admin/apikeys/${w.ws}`),
      adminDockerWorkflowCreate: platformAdmin('POST', '/api/runyard/admin/workflows/docker', {
        workspaceId: w.ws,
        name: 'x',
        containerName: 'y',
      }),
      adminQueueCreate: platformAdmin('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'x' }),
      adminQueueList: platformAdmin('GET', `/api/runyard/admin/queues?workspaceId=${w.ws}`),
      adminHpcCreate: platformAdmin('POST', '/api/runyard/admin/hpc', {
        name: 'x',
        partitions: ['p'],
        sharedDirectory: w.s.config.dataDir,
      }),
      adminHpcList: platformAdmin('GET', '/api/runyard/admin/hpc'),
      adminImageList: platformAdmin('GET', '/api/runyard/admin/images'),
      adminImagePrune: platformAdmin('POST', '/api/runyard/admin/images/prune', { all: true }),
      adminEngineSet: platformAdmin('PUT', '/api/runyard/admin/engine', { workspaceId: w.ws, driver: 'toil' }),
    };
  }

  it('has an entry for every route of the table, naming the role the roles table gives it', () => {
    const entries = matrix();
    for (const id of Object.keys(ROUTES) as RouteId[]) {
      assert.ok(id in entries, `route ${id} has no roles matrix entry`);
      assert.equal(ROUTE_ROLES[id], entries[id].role, `route ${id}: the roles table says ${ROUTE_ROLES[id]}`);
    }
  });

  it('lets a viewer only read: every workspace route that is not a GET needs at least the member role', () => {
    for (const [id, spec] of Object.entries(ROUTES) as [RouteId, (typeof ROUTES)[RouteId]][]) {
      const access = ROUTE_ROLES[id];
      // Showing the workspace's engine token reads a credential, not workspace content: admin only.
      if (id === 'engineTokenShow') assert.equal(access, 'admin');
      else if (spec.method === 'GET')
        assert.ok(['public', 'user', 'viewer', 'platformAdmin'].includes(access), `${id} is a read: ${access}`);
      else if (spec.workspace) assert.ok(access !== 'viewer' && hasRole(access, 'member'), `${id} is a write: ${access}`);
    }
  });

  it('checks only the tables the snapshot covers', async () => {
    assert.deepEqual(await databaseTables(w.s), [...STATE_TABLES].sort());
  });

  it('answers every role as the roles table says, and a refusal changes nothing', async () => {
    for (const [id, entry] of Object.entries(matrix()) as [RouteId, Entry][]) {
      for (const a of actors) {
        const probe = await entry.probe(a);
        const allowed = entry.role === 'public' || entry.role === 'user' || (entry.role !== 'platformAdmin' && hasRole(a.role, entry.role));
        const before = allowed ? '' : await stateSnapshot(w.s);
        const r = probe.raw
          ? await w.s.app.inject({
              method: probe.method,
              url: probe.url,
              headers: { apikey: a.tenant.apikey, 'content-type': 'application/octet-stream' },
              payload: String(probe.body),
            })
          : probe.headers
            ? await w.s.app.inject({
                method: probe.method,
                url: probe.url,
                headers: {
                  apikey: a.tenant.apikey,
                  ...probe.headers,
                  ...(probe.body !== undefined && { 'content-type': 'application/json' }),
                },
                ...(probe.body !== undefined && { payload: JSON.stringify(probe.body) }),
              })
            : await call(w.s, probe.method, probe.url, probe.body, a.tenant.apikey);
        const where = `${id} as ${a.role}`;
        if (allowed) {
          assert.equal(r.statusCode, probe.allowed ?? ROUTES[id].status, `${where}: ${r.body}`);
          continue;
        }
        if (entry.role === 'platformAdmin') assertError(r, 403, 'ADMIN_REQUIRED');
        else {
          const message = assertError(r, 403, 'FORBIDDEN');
          assert.ok(message.includes(`the ${entry.role} role`) && message.includes(a.role), `${where}: ${message}`);
        }
        assert.equal(await stateSnapshot(w.s), before, `${where} changed something`);
      }
    }
  });
});
