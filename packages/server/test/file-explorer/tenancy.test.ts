import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROUTES, type RouteId } from '@runyard/contract';
import type { Tenant } from '../../../../test/support/server.js';
import { assertError } from '../wire.js';
import { explorerWorld, type ExplorerWorld, type Reply } from './world.js';

/** The routes of the File Explorer, storage browsing and job data. */
const ROUTE_IDS: RouteId[] = [
  'datasetList',
  'datasetItems',
  'virtualFolderItems',
  'folderList',
  'bucketContents',
  'containerContents',
  'cloudAzure',
  'dataItemMove',
  'fileRename',
  'folderRename',
  'virtualFolderCreate',
  's3FolderCreate',
  's3FileCreate',
  'azureFolderCreate',
  'azureFileCreate',
  'fileDelete',
  'folderDelete',
  'jobDataDelete',
  'datasetUpload',
];

describe('tenancy of the File Explorer routes (T4)', () => {
  let w: ExplorerWorld;
  let mallory: Tenant;
  let ids: Record<string, string>;
  let malloryData = '';
  before(async () => {
    w = await explorerWorld();
    const { id, doc } = await w.job({ name: 'victim' });
    await w.setStatus(id, 'completed');
    w.writeJobFile(id, 'logs/stdout.txt', 'secret log line');
    w.writeJobFile(id, 'results/results/secret.txt', 'secret');
    const ds = await w.datasets();
    const folder = (
      await w.req('POST', `/api/v1/folders/virtual?teamId=${w.ws}`, { name: 'private', parent: { kind: 'Dataset', id: ds.Data._id } })
    ).json();
    const file = (
      await w.s.app.inject({
        method: 'POST',
        url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=secret.csv&parentId=${folder._id}`,
        headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
        payload: 'secret,data',
      })
    ).json();
    ids = {
      job: id,
      project: w.projectId,
      data: ds.Data._id,
      results: doc.analysisResults.folderId,
      work: doc.workDirectory.folderId,
      folder: folder._id,
      file: file._id,
      key: file.s3ObjectKey,
    };
    mallory = await w.s.newTenant('mallory');
    const project = (await w.req('POST', `/api/v1/projects?teamId=${mallory.workspaceId}`, { name: 'mine' }, mallory)).json();
    malloryData = (await w.get(`/api/v2/datasets?projectId=${project._id}&teamId=${mallory.workspaceId}`, mallory))
      .json()
      .datasets.find((d: { kind: string }) => d.kind === 'Data')._id;
  });
  after(() => w.close());

  /** Each route called by mallory, in mallory's workspace, with the victim's real ids. */
  const attacks = (): Record<string, () => Promise<Reply>> => {
    const t = `teamId=${mallory.workspaceId}`;
    const as = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => w.req(method, url, body, mallory);
    const mine = { kind: 'Dataset', id: malloryData };
    return {
      datasetList: () => as('GET', `/api/v2/datasets?projectId=${ids.project}&${t}`),
      datasetItems: () => as('GET', `/api/v1/datasets/${ids.data}/items?${t}`),
      virtualFolderItems: () => as('GET', `/api/v1/folders/virtual/${ids.folder}/items?${t}`),
      folderList: () => as('GET', `/api/v1/folders/?id=${ids.results}&status=ready&${t}`),
      bucketContents: () =>
        as('GET', `/api/v1/data-access/s3/bucket-contents?bucket=runyard-${w.ws}&path=${w.ws}/jobs/${ids.job}/logs&${t}`),
      containerContents: () =>
        as('GET', `/api/v1/data-access/azure/container-contents?containerName=runyard-${w.ws}&storageAccountName=acct&path=${w.ws}/&${t}`),
      cloudAzure: () => as('GET', `/api/v1/cloud/azure?teamId=${w.ws}`),
      dataItemMove: () =>
        as('PUT', `/api/v1/dataItems/move?${t}`, {
          dataItemToMove: { kind: 'File', item: ids.file },
          toDataItemParent: { kind: 'Dataset', item: malloryData },
        }),
      fileRename: () => as('PUT', `/api/v1/files/${ids.file}?${t}`, { name: 'mine.csv' }),
      folderRename: () => as('PUT', `/api/v1/folders/${ids.folder}?${t}`, { name: 'mine' }),
      virtualFolderCreate: () => as('POST', `/api/v1/folders/virtual?${t}`, { name: 'copy', parent: mine, copyContentsFrom: ids.folder }),
      s3FolderCreate: () =>
        as('POST', `/api/v1/folders/s3?${t}`, {
          s3BucketName: `runyard-${w.ws}`,
          s3Prefix: `${w.ws}/jobs/${ids.job}`,
          name: 'steal',
          parent: mine,
        }),
      s3FileCreate: () =>
        as('POST', `/api/v1/files/s3?${t}`, { s3BucketName: `runyard-${w.ws}`, s3ObjectKey: ids.key, name: 'steal', parent: mine }),
      azureFolderCreate: () =>
        as('POST', `/api/v1/folders/azure-blob?${t}`, {
          blobContainerName: `runyard-${w.ws}`,
          blobPrefix: w.ws,
          blobStorageAccountName: 'acct',
          name: 'steal',
          parent: mine,
        }),
      azureFileCreate: () =>
        as('POST', `/api/v1/files/azure-blob?${t}`, {
          blobContainerName: `runyard-${w.ws}`,
          blobName: ids.key,
          blobStorageAccountName: 'acct',
          name: 'steal',
          parent: mine,
        }),
      fileDelete: () => as('DELETE', `/api/v1/files/${ids.file}?${t}&force=true`),
      folderDelete: () => as('DELETE', `/api/v1/folders/${ids.results}?${t}&force=true`),
      jobDataDelete: () => as('DELETE', `/api/v1/jobs/${ids.job}/data?properties[]=analysisResults&${t}`),
      datasetUpload: () =>
        w.s.app.inject({
          method: 'POST',
          url: `/api/runyard/datasets/upload?${t}&projectId=${ids.project}&parentId=${ids.folder}&name=planted.txt`,
          headers: { apikey: mallory.apikey, 'content-type': 'application/octet-stream' },
          payload: 'planted',
        }),
    };
  };

  it('covers every File Explorer route', () => {
    assert.deepEqual(Object.keys(attacks()).sort(), [...ROUTE_IDS].sort());
    for (const id of ROUTE_IDS) assert.ok(ROUTES[id], id);
  });

  it('answers 404 with no data to another workspace using real ids, and changes nothing', async () => {
    for (const [route, attack] of Object.entries(attacks())) {
      const r = await attack();
      if (route === 'cloudAzure') {
        assertError(r, 404, 'WORKSPACE_NOT_FOUND');
        continue;
      }
      assert.equal(r.statusCode, 404, `${route}: ${r.statusCode} ${r.body}`);
      assertError(r, 404, JSON.parse(r.body).code);
      // Nothing the attacker did not send: no content, no names, no owner.
      for (const secret of ['secret log line', 'secret,data', 'secret.txt', 'victim', 'private', w.s.admin.userId])
        assert.ok(!r.body.includes(secret), `${route} leaks ${secret}: ${r.body}`);
    }
    // Nothing moved, renamed, copied or deleted.
    const inside = (await w.get(`/api/v1/folders/virtual/${ids.folder}/items?teamId=${w.ws}`)).json();
    assert.deepEqual(
      inside.files.map((f: { name: string }) => f.name),
      ['secret.csv'],
    );
    assert.equal((await w.get(`/api/v1/folders?id=${ids.folder}&teamId=${w.ws}`)).json()[0].name, 'private');
    assert.equal((await w.get(`/api/v1/folders?id=${ids.results}&teamId=${w.ws}`)).json()[0].status, 'ready');
    const theirs = (await w.get(`/api/v1/datasets/${malloryData}/items?teamId=${mallory.workspaceId}`, mallory)).json();
    assert.deepEqual([theirs.folders, theirs.files], [[], []]);
  });

  it("answers 404 to another workspace naming the victim's workspace", async () => {
    for (const [route, attack] of Object.entries(attacks())) {
      void attack;
      const spec = ROUTES[route as RouteId];
      const url = spec.path.replace(':id', ids.job) + `?teamId=${w.ws}`;
      const r = await w.req(spec.method, url, spec.method === 'GET' || spec.method === 'DELETE' ? undefined : {}, mallory);
      assert.ok([400, 404].includes(r.statusCode), `${route}: ${r.statusCode}`);
      if (r.statusCode === 404) assertError(r, 404, 'WORKSPACE_NOT_FOUND');
    }
  });
});
