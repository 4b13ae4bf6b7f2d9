import assert from 'node:assert/strict';
import { existsSync, writeFileSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiError, Datasets, RunyardValueError, type ExplorerItem } from '@runyard/client';
import { jobDataWorld, type JobDataWorld } from './job-data-world.js';

// The File Explorer of a project through the Datasets helper, against a real server whose job wrote
// real results; the requests each call makes are those of wire-api §2.6.
describe('SDK Datasets: File Explorer navigation, changes and uploads', { timeout: 300_000 }, () => {
  let w: JobDataWorld;
  let ws: string;
  let jobId: string;
  let ds: Datasets;
  let ids: Record<string, string>;
  const jobFolder = () => `results-job-${jobId}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-upload-'));
  const byName = (items: ExplorerItem[], name: string) => items.find((i) => i.name === name);

  before(async () => {
    w = await jobDataWorld();
    ws = w.ws;
    jobId = await w.runJob();
    const n = w.proxy.requests.length;
    ds = await w.client.datasets(ws, 'demo');
    assert.deepEqual(w.since(n), ['GET /api/v2/projects?teamId=W&search=demo']);
    assert.equal(ds.projectId, w.projectId);
    const top = await ds.listProjectContent();
    ids = Object.fromEntries(top.folders.map((f) => [f.name, f._id!]));
  });
  after(() => w?.close());

  it('lists the datasets of the project (Data, Analyses Results, Cohorts), each a folder', async () => {
    const n = w.proxy.requests.length;
    const top = await ds.listFolderContent('');
    assert.deepEqual(w.since(n), [`GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`]);
    assert.deepEqual(top.folders.map((f) => f.name).sort(), ['Analyses Results', 'Cohorts', 'Data']);
    assert.ok(top.folders.every((f) => f.folderType === true));
    assert.deepEqual(top.files, []);
    assert.equal(byName(top.folders, 'Analyses Results')!.kind, 'AnalysesResults');
  });

  it("walks a job's results: dataset items, then the bucket listing of each level, re-walking as the public client does", async () => {
    let n = w.proxy.requests.length;
    const analyses = await ds.listFolderContent('AnalysesResults');
    assert.deepEqual(w.since(n), [
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${ids['Analyses Results']}/items?teamId=W`,
    ]);
    const folder = byName(analyses.folders, jobFolder())!;
    assert.equal(folder.folderType, 'S3Folder');
    assert.equal(folder.isManagedByLifebit, true);

    n = w.proxy.requests.length;
    const inside = await ds.listFolderContent(`Analyses Results/${jobFolder()}`);
    const prefix = `W/jobs/${jobId}/results`;
    assert.deepEqual(w.since(n), [
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${ids['Analyses Results']}/items?teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=${prefix}&teamId=W`,
    ]);
    assert.deepEqual(
      inside.folders.map((f) => [f.name, f.folderType, f.s3Prefix]),
      [['results', 'S3Folder', `${ws}/jobs/${jobId}/results/results`]],
    );
    assert.deepEqual(
      inside.files.map((f) => [f.name, f.fileType, f.s3Prefix, f.s3BucketName]),
      [['summary.txt', 'S3File', `${ws}/jobs/${jobId}/results/summary.txt`, w.bucket]],
    );

    n = w.proxy.requests.length;
    const deeper = await ds.listFolderContent(`Analyses Results/${jobFolder()}/results`);
    assert.deepEqual(w.since(n), [
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${ids['Analyses Results']}/items?teamId=W`,
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${ids['Analyses Results']}/items?teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=${prefix}&teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=${prefix}/results&teamId=W`,
    ]);
    assert.deepEqual(
      deeper.files.map((f) => [f.name, f.size]),
      [['out.txt', 14]],
    );

    const file = await ds.listFolderContent(`AnalysesResults/${jobFolder()}/summary.txt`);
    assert.deepEqual(file.folders, []);
    assert.deepEqual(
      file.files.map((f) => f.name),
      ['summary.txt'],
    );
    await assert.rejects(ds.listFolderContent(`AnalysesResults/nothing-here`), {
      message: "Folder 'nothing-here' not found under dataset 'AnalysesResults'",
    });
    await assert.rejects(ds.listFolderContent('Nowhere'), { message: "Folder 'Nowhere' not found in project 'demo'." });
  });

  it('mkdir, upload (streamed) into Data and into a virtual folder, list, rename, move, copy and delete', async () => {
    let n = w.proxy.requests.length;
    const made = await ds.createVirtualFolder('inputs', ids.Data, 'Dataset');
    assert.deepEqual(w.since(n), ['POST /api/v1/folders/virtual?teamId=W']);
    assert.equal(made.folderType, 'VirtualFolder');
    assert.deepEqual(made.parent, { kind: 'Dataset', id: ids.Data });

    const local = path.join(dir, 'reads.csv');
    writeFileSync(local, 'id,value\n1,a\n2,b\n');
    n = w.proxy.requests.length;
    const top = await ds.uploadFile(local, 'Data');
    assert.deepEqual(w.since(n), [`POST /api/runyard/datasets/upload?teamId=W&projectId=${w.projectId}&name=reads.csv`]);
    assert.equal(w.proxy.requests.at(-1)!.headers['content-type'], 'application/octet-stream');
    assert.equal(top.name, 'reads.csv');
    assert.equal(top.sizeInBytes, 17);
    assert.equal(top.isManagedByLifebit, true, 'an upload is deleted with its item: managed');
    assert.equal(readFileSync(path.join(w.s.config.dataDir, 'storage', w.bucket, top.s3ObjectKey!), 'utf8'), 'id,value\n1,a\n2,b\n');

    n = w.proxy.requests.length;
    const nested = await ds.uploadFile(local, 'Data/inputs', { name: 'copy.csv' });
    assert.deepEqual(w.since(n), [
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${ids.Data}/items?teamId=W`,
      `POST /api/runyard/datasets/upload?teamId=W&projectId=${w.projectId}&parentId=${made._id}&name=copy.csv`,
    ]);
    assert.deepEqual(nested.parent, { kind: 'Folder', id: made._id });

    n = w.proxy.requests.length;
    const listed = await ds.listFolderContent('Data/inputs');
    assert.deepEqual(w.since(n), [
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${ids.Data}/items?teamId=W`,
      `GET /api/v1/folders/virtual/${made._id}/items?teamId=W`,
    ]);
    assert.deepEqual(
      listed.files.map((f) => f.name),
      ['copy.csv'],
    );
    assert.equal(await ds.getFileOrFolderId('Data/inputs/copy.csv'), nested._id);
    assert.equal(await ds.getFileOrFolderId('Data/inputs', false), made._id);
    await assert.rejects(ds.getFileOrFolderId('Data/inputs/none.csv'), {
      message: "File 'none.csv' not found in directory 'Data/inputs'.",
    });

    n = w.proxy.requests.length;
    const renamed = await ds.renameItem(nested._id, 'renamed.csv', 'File');
    assert.deepEqual(w.since(n), [`PUT /api/v1/files/${nested._id}?teamId=W`]);
    assert.equal(renamed.name, 'renamed.csv');

    n = w.proxy.requests.length;
    await ds.moveFilesAndFolders(top._id, 'File', made._id, 'Folder');
    assert.deepEqual(w.since(n), ['PUT /api/v1/dataItems/move?teamId=W']);
    assert.deepEqual((await ds.listFolderContent('Data/inputs')).files.map((f) => f.name).sort(), ['reads.csv', 'renamed.csv']);

    // Copies: a virtual folder with what is in it, an S3 folder and an S3 file of the job's results.
    const copy = (await ds
      .copyItem(byName((await ds.listFolderContent('Data')).folders, 'inputs')!, ids.Data, 'Dataset')
      .catch((e) => e)) as ApiError;
    assert.equal(copy.status, 409, 'a copy under the same name in the same place is refused');
    n = w.proxy.requests.length;
    const inside = await ds.listFolderContent(`AnalysesResults/${jobFolder()}`);
    const sub = await ds.createVirtualFolder('from-results', ids.Data, 'Dataset');
    n = w.proxy.requests.length;
    await ds.copyItem(byName(inside.files, 'summary.txt')!, sub._id, 'Folder');
    await ds.copyItem(byName(inside.folders, 'results')!, sub._id, 'Folder');
    await ds.copyItem({ ...made, folderType: 'VirtualFolder' } as ExplorerItem, sub._id, 'Folder');
    assert.deepEqual(w.since(n), [
      'POST /api/v1/files/s3?teamId=W',
      'POST /api/v1/folders/s3?teamId=W',
      'POST /api/v1/folders/virtual?teamId=W',
    ]);
    const copied = await ds.listFolderContent('Data/from-results');
    assert.deepEqual(
      copied.files.map((f) => [f.name, f.sizeInBytes]),
      [['summary.txt', 8]],
    );
    assert.deepEqual(copied.folders.map((f) => [f.name, f.folderType]).sort(), [
      ['inputs', 'VirtualFolder'],
      ['results', 'S3Folder'],
    ]);
    assert.deepEqual((await ds.listFolderContent('Data/from-results/inputs')).files.map((f) => f.name).sort(), [
      'reads.csv',
      'renamed.csv',
    ]);
    assert.deepEqual(
      (await ds.listFolderContent('Data/from-results/results')).files.map((f) => f.name),
      ['out.txt'],
    );

    // Deleting: a file, then refusals made before any request.
    const copiedFile = byName(copied.files, 'summary.txt')!;
    n = w.proxy.requests.length;
    await ds.deleteItem(copiedFile);
    assert.deepEqual(w.since(n), [`DELETE /api/v1/files/${copiedFile._id}?teamId=W`]);
    assert.ok(existsSync(path.join(w.jobDir(jobId, 'results'), 'summary.txt')), "deleting a copy keeps the job's file");
    const inStorage = byName((await ds.listFolderContent('Data/from-results/results')).files, 'out.txt')!;
    const managed = byName((await ds.listFolderContent('AnalysesResults')).folders, jobFolder())!;
    n = w.proxy.requests.length;
    await assert.rejects(ds.deleteItem(inStorage), {
      message: "Item 'out.txt' could not be removed as the parent folder is an s3 folder and their content cannot be modified.",
    });
    await assert.rejects(ds.deleteItem(managed), {
      message: 'By removing this file, it will be permanently deleted. If you want to go forward, please use the --force flag.',
    });
    assert.equal(w.proxy.requests.length, n, 'nothing was sent');
    const virtual = byName((await ds.listFolderContent('Data')).folders, 'from-results')!;
    // Not managed itself, it holds uploads, which go with it: the server asks for force, which --force sends.
    await assert.rejects(ds.deleteItem(virtual), /holds "[^"]+", which is managed by Runyard; add force=true/);
    n = w.proxy.requests.length;
    await ds.deleteItem(virtual, { force: true });
    assert.deepEqual(w.since(n), [`DELETE /api/v1/folders/${virtual._id}?teamId=W&force=true`]);
    assert.ok(!byName((await ds.listFolderContent('Data')).folders, 'from-results'));
  });

  it('refuses path traversal before sending anything, and the server refuses it too (T9)', async () => {
    const n = w.proxy.requests.length;
    for (const p of ['Data/../AnalysesResults', '../Data', 'Data/./x', 'Data/%2e%2e/x', 'Data/a\\..\\b', 'Data//x', 'Data/x\u0000']) {
      await assert.rejects(ds.listFolderContent(p), RunyardValueError, p);
    }
    await assert.rejects(ds.uploadFile(path.join(dir, 'reads.csv'), 'Data/../Cohorts'), RunyardValueError);
    await assert.rejects(ds.uploadFile(path.join(dir, 'reads.csv'), 'Data', { name: '../x' }), RunyardValueError);
    await assert.rejects(ds.createVirtualFolder('..', ids.Data, 'Dataset'), RunyardValueError);
    await assert.rejects(ds.renameItem(ids.Data, 'a/b', 'Folder'), RunyardValueError);
    assert.equal(w.proxy.requests.length, n, 'nothing was sent');
    // The same names sent directly.
    const up = await w.client.rawRequest('POST', '/api/runyard/datasets/upload', {
      query: { teamId: ws, projectId: w.projectId, name: '..' },
      headers: { 'content-type': 'application/octet-stream' },
    });
    assert.equal(up.status, 400);
    const mk = await w.client.rawRequest('POST', '/api/v1/folders/virtual', {
      query: { teamId: ws },
      body: { name: '../escape', parent: { kind: 'Dataset', id: ids.Data } },
    });
    assert.equal(mk.status, 400);
    const s3 = await w.client.rawRequest('POST', '/api/v1/files/s3', {
      query: { teamId: ws },
      body: {
        s3BucketName: w.bucket,
        s3ObjectKey: `${ws}/jobs/${jobId}/../../../etc/passwd`,
        name: 'p',
        parent: { kind: 'Dataset', id: ids.Data },
      },
    });
    assert.equal(s3.status, 400);
  });

  it("another workspace's File Explorer is not found", async () => {
    const other = await w.s.newTenant('other');
    await assert.rejects(
      w.client.datasets(other.workspaceId, 'demo'),
      (e: unknown) => e instanceof ApiError && [403, 404].includes(e.status),
    );
    const r = await w.client.rawRequest('GET', `/api/v1/datasets/${ids.Data}/items`, { query: { teamId: other.workspaceId } });
    assert.ok([403, 404].includes(r.status), String(r.status));
  });
});
