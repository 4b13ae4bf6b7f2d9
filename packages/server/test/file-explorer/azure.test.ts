import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAzurite, type AzuriteServer } from '../../../../test/support/azurite.js';
import { startTestServer, type TestServer } from '../../../../test/support/server.js';
import { DeletionWorker } from '../../src/services/deletion-worker.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { assertError, call } from '../wire.js';

describe('job data and the File Explorer on Azure Blob Storage (Azurite)', () => {
  let azurite: AzuriteServer;
  let s: TestServer;
  let blobs: BlobStore;
  let ws = '';
  let projectId = '';
  let workflowId = '';
  before(async () => {
    azurite = await startAzurite();
    s = await startTestServer({ env: { RUNYARD_STORAGE_BACKEND: 'azure', RUNYARD_AZURE_CONNECTION_STRING: azurite.connectionString } });
    blobs = createBlobStore(s.config);
    ws = s.admin.workspaceId;
    projectId = (await call(s, 'POST', `/api/v1/projects?teamId=${ws}`, { name: 'az' })).json()._id;
    workflowId = (
      await call(s, 'POST', '/api/runyard/admin/workflows/docker', {
        workspaceId: ws,
        name: 'ubuntu',
        containerName: 'library/ubuntu:22.04',
      })
    ).json()._id;
  });
  after(async () => {
    await s?.close();
    await azurite?.stop();
  });

  const submit = async (name: string) => {
    const r = await call(s, 'POST', `/api/v2/jobs?teamId=${ws}`, {
      project: projectId,
      workflow: workflowId,
      name,
      command: 'echo hi',
      parameters: [],
    });
    assert.equal(r.statusCode, 200, r.body);
    const id = r.json().jobId as string;
    return { id, doc: (await call(s, 'GET', `/api/v1/jobs/${id}?teamId=${ws}`)).json() };
  };

  it('gives job documents the blob keys, and the workspace its storage account', async () => {
    const { id, doc } = await submit('az-job');
    assert.deepEqual(doc.logs, {
      blobStorageAccountName: azurite.accountName,
      blobContainerName: `runyard-${ws}`,
      blobPrefix: `${ws}/jobs/${id}/logs`,
    });
    assert.equal(doc.results.blobPrefix, `${ws}/jobs/${id}/results`);
    assert.ok(!('s3BucketName' in doc.logs), 'the public client tells Azure by the missing s3BucketName');
    assert.deepEqual((await call(s, 'GET', `/api/v1/cloud/azure?teamId=${ws}`)).json(), {
      storage: { storageAccount: azurite.accountName },
    });
    const [work] = (await call(s, 'GET', `/api/v1/folders?id=${doc.workDirectory.folderId}&teamId=${ws}`)).json();
    assert.equal(work.folderType, 'AzureBlobFolder');
    assert.deepEqual(
      [work.blobContainerName, work.blobStorageAccountName, work.blobPrefix],
      [`runyard-${ws}`, azurite.accountName, `${ws}/jobs/${id}/work`],
    );
  });

  it('lists a container of the workspace, refuses other containers and accounts, and the S3 routes', async () => {
    const { id, doc } = await submit('listed');
    await blobs.ensureBucket(`runyard-${ws}`);
    await blobs.put(`runyard-${ws}`, `${doc.logs.blobPrefix}/stdout.txt`, Buffer.from('hello'));
    const url = (container: string, account: string, path: string) =>
      `/api/v1/data-access/azure/container-contents?containerName=${container}&storageAccountName=${account}&path=${path}&teamId=${ws}`;
    const r = await call(s, 'GET', url(`runyard-${ws}`, azurite.accountName, `${doc.logs.blobPrefix}/`));
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(
      r.json().contents.map((c: { name: string; path: string; isDir: boolean; size: number }) => [c.name, c.path, c.isDir, c.size]),
      [['stdout.txt', `${ws}/jobs/${id}/logs/stdout.txt`, false, 5]],
    );
    assertError(await call(s, 'GET', url(`runyard-${ws}`, 'otheraccount', `${ws}/`)), 404, 'STORAGE_NOT_FOUND');
    assertError(await call(s, 'GET', url('runyard-someone-else', azurite.accountName, '')), 404, 'STORAGE_NOT_FOUND');
    assertError(await call(s, 'GET', url(`runyard-${ws}`, azurite.accountName, `${ws}/../x/`)), 400, 'INVALID_STORAGE_PATH');
    assertError(
      await call(s, 'GET', `/api/v1/data-access/s3/bucket-contents?bucket=runyard-${ws}&path=${ws}&teamId=${ws}`),
      404,
      'STORAGE_NOT_FOUND',
    );
  });

  it('uploads AzureBlobFiles and deletes job data through the statuses with the blobs gone', async () => {
    const up = await s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${ws}&projectId=${projectId}&name=in.csv`,
      headers: { apikey: s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    assert.equal(up.statusCode, 201, up.body);
    assert.equal(up.json().fileType, 'AzureBlobFile');
    assert.equal(up.json().blobStorageAccountName, azurite.accountName);
    assert.equal((await blobs.stat(`runyard-${ws}`, up.json().blobName))?.size, 4);

    const { id, doc } = await submit('deleted');
    await blobs.put(`runyard-${ws}`, `${ws}/jobs/${id}/results/out.txt`, Buffer.from('out'));
    await s.store.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', id).execute();
    assert.equal((await call(s, 'DELETE', `/api/v1/jobs/${id}/data?properties[]=analysisResults&teamId=${ws}`)).statusCode, 204);
    assert.equal(await new DeletionWorker({ db: s.store.db, blobs, pollMs: 50 }).runOnce(), 1);
    const [folder] = (await call(s, 'GET', `/api/v1/folders/?id=${doc.analysisResults.folderId}&status=deleted&teamId=${ws}`)).json();
    assert.equal(folder.status, 'deleted');
    assert.equal(await blobs.stat(`runyard-${ws}`, `${ws}/jobs/${id}/results/out.txt`), null);
  });
});
