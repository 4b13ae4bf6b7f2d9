import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { azureWorld, type AzureWorld } from './job-data-world.js';

// The same operations on a server keeping its data in Azure Blob Storage (Azurite): the Azure
// routes, and az:// URLs naming the storage account the server reports.
describe('SDK job data and the File Explorer on Azure Blob Storage', { timeout: 300_000 }, () => {
  let w: AzureWorld;
  let ws: string;
  let id: string;
  before(async () => {
    w = await azureWorld();
    ws = w.ws;
    id = await w.finishedJob('az-job');
  });
  after(() => w?.close());

  it('get_job_logs: the job, cloud/azure, one container listing (path ending in /); az:// URLs', async () => {
    const n = w.proxy.requests.length;
    const logs = await w.client.getJobLogs(id, ws);
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${id}?teamId=W`,
      'GET /api/v1/cloud/azure?teamId=W',
      `GET /api/v1/data-access/azure/container-contents?containerName=runyard-W&path=W/jobs/${id}/logs/&storageAccountName=${w.azurite.accountName}&teamId=W`,
    ]);
    const prefix = `${w.base}${ws}/jobs/${id}/logs`;
    assert.deepEqual(logs, {
      'Nextflow log': `${prefix}/.nextflow.log`,
      'Nextflow standard output': `${prefix}/stdout.txt`,
      'Trace file': `${prefix}/trace.txt`,
    });
  });

  it('get_job_results and get_job_workdir give az:// URLs', async () => {
    assert.equal(await w.client.getJobResults(id, ws), `${w.base}${ws}/jobs/${id}/results/results`);
    assert.equal(await w.client.getJobWorkdir(id, ws), `${w.base}${ws}/jobs/${id}/work`);
  });

  it('get_storage_contents (azure) and the File Explorer walk through container listings', async () => {
    const meta = { storage: { storageAccount: w.azurite.accountName } };
    const contents = await w.client.getStorageContents('azure', meta, w.container, `${ws}/jobs/${id}/results`, ws);
    assert.deepEqual(
      contents.map((c) => [c.name, c.isDir]),
      [
        ['results', true],
        ['summary.txt', false],
      ],
    );
    const ds = await w.client.datasets(ws, 'demo');
    const folder = `AnalysesResults/az-job-${id}`;
    const n = w.proxy.requests.length;
    const inside = await ds.listFolderContent(folder);
    assert.equal(
      w.since(n).at(-1),
      `GET /api/v1/data-access/azure/container-contents?containerName=runyard-W&storageAccountName=${w.azurite.accountName}&path=W/jobs/${id}/results/&teamId=W`,
    );
    assert.deepEqual(
      inside.folders.map((f) => [f.name, f.folderType, f.blobPrefix, f.kind]),
      [['results', 'AzureBlobFolder', `${ws}/jobs/${id}/results/results`, 'Folder']],
    );
    assert.deepEqual(
      inside.files.map((f) => [f.name, f.fileType, f.blobName, f.sizeInBytes, f.blobStorageAccountName]),
      [['summary.txt', 'AzureBlobFile', `${ws}/jobs/${id}/results/summary.txt`, 8, w.azurite.accountName]],
    );
    assert.deepEqual(
      (await ds.listFolderContent(`${folder}/results`)).files.map((f) => f.name),
      ['out.txt'],
    );

    // Copies of an Azure file and folder into Data, and an upload there.
    const data = (await ds.listProjectContent()).folders.find((f) => f.name === 'Data')!._id!;
    const m = w.proxy.requests.length;
    await ds.copyItem(inside.files[0], data, 'Dataset');
    await ds.copyItem(inside.folders[0], data, 'Dataset');
    assert.deepEqual(w.since(m), ['POST /api/v1/files/azure-blob?teamId=W', 'POST /api/v1/folders/azure-blob?teamId=W']);
    const local = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-az-')), 'in.csv');
    writeFileSync(local, 'a,b\n');
    const up = await ds.uploadFile(local, 'Data');
    assert.equal(up.fileType, 'AzureBlobFile');
    const listed = await ds.listFolderContent('Data');
    assert.deepEqual(listed.files.map((f) => [f.name, f.fileType]).sort(), [
      ['in.csv', 'AzureBlobFile'],
      ['summary.txt', 'AzureBlobFile'],
    ]);
    assert.deepEqual(
      (await ds.listFolderContent('Data/results')).files.map((f) => f.name),
      ['out.txt'],
    );
  });

  it('deletion: the results folder moves to scheduled for deletion; results are then refused', async () => {
    const job = await w.finishedJob('az-delete');
    assert.deepEqual(await w.client.deleteJobResults(job, 'analysisResults', ws), {
      message: 'Results deleted successfully',
      status: 'deleted',
    });
    const status = await w.client.getResultsDeletionStatus(job, ws);
    assert.equal(status.status, 'scheduledForDeletion', 'no deletion worker runs here');
    await assert.rejects(w.client.getJobResults(job, ws), {
      message: 'Analysis results have been scheduled for deletion. The results folder is no longer available.',
    });
  });
});
