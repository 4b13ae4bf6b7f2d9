import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../wire.js';
import { explorerWorld, type ExplorerWorld, type Reply } from './world.js';

describe('File Explorer changes and uploads', () => {
  let w: ExplorerWorld;
  let ds: Record<string, any>;
  before(async () => {
    w = await explorerWorld();
    ds = await w.datasets();
  });
  after(() => w.close());

  const q = () => `teamId=${w.ws}`;
  const items = async (id: string, virtual = false) => {
    const r = await w.get(virtual ? `/api/v1/folders/virtual/${id}/items?${q()}` : `/api/v1/datasets/${id}/items?${q()}`);
    assert.equal(r.statusCode, 200, r.body);
    return r.json() as { folders: any[]; files: any[] };
  };
  const names = (list: { name: string }[]) => list.map((i) => i.name);
  const mkdir = (name: string, parent: { kind: string; id: string }) => w.req('POST', `/api/v1/folders/virtual?${q()}`, { name, parent });
  const upload = (name: string, body: string | Buffer, extra = '') =>
    w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?${q()}&projectId=${w.projectId}&name=${encodeURIComponent(name)}${extra}`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: body,
    }) as Promise<Reply>;

  it('makes virtual folders (201, echoing name and parent) in a dataset and in a virtual folder', async () => {
    const r = await mkdir('reads', { kind: 'Dataset', id: ds.Data._id });
    assert.equal(r.statusCode, 201, r.body);
    const reads = r.json();
    assert.equal(reads.name, 'reads');
    assert.deepEqual(reads.parent, { kind: 'Dataset', id: ds.Data._id });
    assert.equal(reads.folderType, 'VirtualFolder');
    assert.equal(reads.isManagedByLifebit, false);
    const inner = await mkdir('lane1', { kind: 'Folder', id: reads._id });
    assert.equal(inner.statusCode, 201, inner.body);
    assert.deepEqual(names((await items(ds.Data._id)).folders), ['reads']);
    assert.deepEqual(names((await items(reads._id, true)).folders), ['lane1']);
    assertError(await mkdir('reads', { kind: 'Dataset', id: ds.Data._id }), 409, 'ITEM_NAME_TAKEN');
    assertError(await mkdir('x', { kind: 'Folder', id: ds.Data._id }), 400, 'INVALID_DESTINATION');
    assertError(await mkdir('x', { kind: 'Dataset', id: reads._id }), 400, 'INVALID_DESTINATION');
    assertError(await mkdir('x', { kind: 'Dataset', id: '0123456789abcdef01234567' }), 404, 'DATASET_NOT_FOUND');
  });

  it('validates names: not empty, no slash, no control character, not . or .., at most 200 characters', async () => {
    for (const name of ['', '   ', 'a/b', '..', '.', 'a\\b', 'tab\there', 'nul\u0000', 'x'.repeat(201)]) {
      assertError(await mkdir(name, { kind: 'Dataset', id: ds.Data._id }), 400, 'VALIDATION_FAILED');
    }
    assert.equal((await mkdir('x'.repeat(200), { kind: 'Dataset', id: ds.Cohorts._id })).statusCode, 201);
    assertError(
      await w.req('POST', `/api/v1/folders/virtual?${q()}`, { name: 5, parent: { kind: 'Dataset', id: ds.Data._id } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('uploads a file into Data (streamed to the workspace bucket) and lists it', async () => {
    const r = await upload('sample sheet.csv', 'id,reads\n1,a.fq\n');
    assert.equal(r.statusCode, 201, r.body);
    const file = r.json();
    assert.equal(file.fileType, 'S3File');
    assert.equal(file.name, 'sample sheet.csv');
    assert.equal(file.sizeInBytes, 16);
    assert.equal(file.s3BucketName, `runyard-${w.ws}`);
    assert.equal(file.s3ObjectKey, `${w.ws}/files/${file._id}/sample sheet.csv`);
    assert.deepEqual(file.parent, { kind: 'Dataset', id: ds.Data._id });
    assert.deepEqual(Object.keys(file).sort(), [
      '_id',
      'createdAt',
      'fileType',
      'isBeingRenamed',
      'isManagedByLifebit',
      'kind',
      'name',
      'parent',
      's3BucketName',
      's3ObjectKey',
      'sizeInBytes',
      'status',
      'team',
      'updatedAt',
      'user',
    ]);
    // Runyard's own object, deleted with the last item that points to it: managed, as the public client reads it.
    assert.equal(file.isManagedByLifebit, true);
    const onDisk = path.join(w.s.config.dataDir, 'storage', file.s3BucketName, file.s3ObjectKey);
    assert.equal(readFileSync(onDisk, 'utf8'), 'id,reads\n1,a.fq\n');
    const listed = (await items(ds.Data._id)).files.find((f) => f._id === file._id);
    assert.deepEqual(listed, file);
    // Into a virtual folder in Data; an empty file; the same name again is taken.
    const reads = (await items(ds.Data._id)).folders.find((f) => f.name === 'reads');
    const inFolder = await upload('empty.txt', Buffer.alloc(0), `&parentId=${reads._id}`);
    assert.equal(inFolder.statusCode, 201, inFolder.body);
    assert.equal(inFolder.json().sizeInBytes, 0);
    assert.deepEqual(inFolder.json().parent, { kind: 'Folder', id: reads._id });
    assertError(await upload('sample sheet.csv', 'again'), 409, 'ITEM_NAME_TAKEN');
    // Past the 1 MiB limit of JSON bodies.
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const large = await upload('large.bin', big);
    assert.equal(large.statusCode, 201, large.body);
    assert.equal(large.json().sizeInBytes, big.length);
    assert.ok(readFileSync(path.join(w.s.config.dataDir, 'storage', large.json().s3BucketName, large.json().s3ObjectKey)).equals(big));
  });

  it('refuses uploads outside Data, with bad names, of the wrong type or too large', async () => {
    assertError(await upload('x.txt', 'x', `&parentId=${ds.AnalysesResults._id}`), 400, 'INVALID_DESTINATION');
    const cohort = (await mkdir('cohort-a', { kind: 'Dataset', id: ds.Cohorts._id })).json();
    assertError(await upload('x.txt', 'x', `&parentId=${cohort._id}`), 400, 'INVALID_DESTINATION');
    for (const name of ['../../etc/passwd', '..', 'a/b', '%2e%2e']) {
      const r = await upload(name, 'x');
      assert.equal(r.statusCode, 400, `${name}: ${r.body}`);
    }
    assertError(
      await w.req('POST', `/api/runyard/datasets/upload?${q()}&projectId=${w.projectId}&name=j.json`, { a: 1 }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    const big = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?${q()}&projectId=${w.projectId}&name=big.bin`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream', 'content-length': String(6 * 1024 ** 3) },
      payload: 'tiny',
    });
    assertError(big, 413, 'UPLOAD_TOO_LARGE');
    // Only the upload route takes octet-stream bodies.
    const other = await w.s.app.inject({
      method: 'POST',
      url: `/api/v1/projects?${q()}`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: '{"name":"p"}',
    });
    assertError(other, 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertError(await upload('y.txt', 'y', `&parentId=0123456789abcdef01234567`), 404, 'FOLDER_NOT_FOUND');
  });

  it('renames files and folders (200 with the item), refusing taken names', async () => {
    const { files, folders } = await items(ds.Data._id);
    const sheet = files.find((f) => f.name === 'sample sheet.csv');
    const r = await w.req('PUT', `/api/v1/files/${sheet._id}?${q()}`, { name: 'samples.csv' });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().name, 'samples.csv');
    const reads = folders.find((f) => f.name === 'reads');
    const f = await w.req('PUT', `/api/v1/folders/${reads._id}?${q()}`, { name: 'fastq' });
    assert.equal(f.json().name, 'fastq');
    assert.deepEqual(names((await items(ds.Data._id)).folders), ['fastq']);
    await mkdir('other', { kind: 'Dataset', id: ds.Data._id });
    assertError(await w.req('PUT', `/api/v1/folders/${reads._id}?${q()}`, { name: 'other' }), 409, 'ITEM_NAME_TAKEN');
    assertError(await w.req('PUT', `/api/v1/folders/${reads._id}?${q()}`, { name: 'a/b' }), 400, 'VALIDATION_FAILED');
    assertError(await w.req('PUT', `/api/v1/files/${reads._id}?${q()}`, { name: 'z' }), 404, 'FILE_NOT_FOUND');
    assertError(await w.req('PUT', `/api/v1/folders/${sheet._id}?${q()}`, { name: 'z' }), 404, 'FOLDER_NOT_FOUND');
  });

  it('moves items into datasets and virtual folders, never into themselves or storage folders', async () => {
    const data = await items(ds.Data._id);
    const fastq = data.folders.find((f) => f.name === 'fastq');
    const other = data.folders.find((f) => f.name === 'other');
    const sheet = data.files.find((f) => f.name === 'samples.csv');
    const move = (kind: string, item: string, toKind: string, to: string) =>
      w.req('PUT', `/api/v1/dataItems/move?${q()}`, { dataItemToMove: { kind, item }, toDataItemParent: { kind: toKind, item: to } });
    const r = await move('File', sheet._id, 'Folder', fastq._id);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), { success: true });
    assert.deepEqual(names((await items(fastq._id, true)).files), ['empty.txt', 'samples.csv']);
    assert.equal((await move('Folder', other._id, 'Folder', fastq._id)).statusCode, 200);
    assertError(await move('Folder', fastq._id, 'Folder', fastq._id), 400, 'INVALID_DESTINATION');
    assertError(await move('Folder', fastq._id, 'Folder', other._id), 400, 'INVALID_DESTINATION');
    const { doc } = await w.job({ name: 'mv' });
    assertError(await move('File', sheet._id, 'Folder', doc.analysisResults.folderId), 400, 'INVALID_DESTINATION');
    assertError(await move('Folder', doc.analysisResults.folderId, 'Dataset', ds.Data._id), 403, 'ITEM_MANAGED');
    assertError(await move('Folder', doc.workDirectory.folderId, 'Dataset', ds.Data._id), 403, 'ITEM_MANAGED');
    assertError(
      await w.req('PUT', `/api/v1/dataItems/move?${q()}&force=true`, {
        dataItemToMove: { kind: 'Folder', item: doc.workDirectory.folderId },
        toDataItemParent: { kind: 'Dataset', item: ds.Data._id },
      }),
      403,
      'ITEM_MANAGED',
    );
    assertError(await move('File', '0123456789abcdef01234567', 'Dataset', ds.Data._id), 404, 'FILE_NOT_FOUND');
    assertError(await move('Disk', sheet._id, 'Dataset', ds.Data._id), 400, 'VALIDATION_FAILED');
    // Back to the dataset.
    assert.equal((await move('Folder', other._id, 'Dataset', ds.Data._id)).statusCode, 200);
    assert.deepEqual(names((await items(ds.Data._id)).folders), ['fastq', 'other']);
  });

  it('copies a virtual folder with everything in it, and storage folders and files by reference', async () => {
    const fastq = (await items(ds.Data._id)).folders.find((f) => f.name === 'fastq');
    const r = await w.req('POST', `/api/v1/folders/virtual?${q()}`, {
      copyContentsFrom: fastq._id,
      name: 'fastq-copy',
      parent: { kind: 'Dataset', id: ds.Cohorts._id },
    });
    assert.equal(r.statusCode, 201, r.body);
    const copy = await items(r.json()._id, true);
    assert.deepEqual(names(copy.files), ['empty.txt', 'samples.csv']);
    assert.notEqual(copy.files[1]._id, (await items(fastq._id, true)).files[1]._id);
    assert.equal(copy.files[1].s3ObjectKey, (await items(fastq._id, true)).files[1].s3ObjectKey);
    assertError(
      await w.req('POST', `/api/v1/folders/virtual?${q()}`, {
        copyContentsFrom: fastq._id,
        name: 'loop',
        parent: { kind: 'Folder', id: fastq._id },
      }),
      400,
      'INVALID_DESTINATION',
    );

    const { id, doc } = await w.job({ name: 'cp' });
    w.writeJobFile(id, 'results/results/table.tsv', 'a\tb\n');
    const key = `${w.ws}/jobs/${id}/results/results/table.tsv`;
    const file = await w.req('POST', `/api/v1/files/s3?${q()}`, {
      s3BucketName: `runyard-${w.ws}`,
      s3ObjectKey: key,
      name: 'table.tsv',
      parent: { kind: 'Dataset', id: ds.Data._id },
      isManagedByLifebit: false,
      sizeInBytes: 999,
    });
    assert.equal(file.statusCode, 201, file.body);
    assert.equal(file.json().sizeInBytes, 4, 'the size is read from storage');
    const folder = await w.req('POST', `/api/v1/folders/s3?${q()}`, {
      s3BucketName: `runyard-${w.ws}`,
      s3Prefix: `${w.ws}/jobs/${id}/results`,
      name: 'cp-results',
      parent: { kind: 'Dataset', id: ds.Data._id },
      isManagedByLifebit: true,
    });
    assert.equal(folder.statusCode, 201, folder.body);
    // A folder pointing into storage only ever loses its reference: not managed, whatever the request says.
    assert.equal(folder.json().isManagedByLifebit, false);
    assert.deepEqual(names((await items(folder.json()._id)).folders), ['results']);
    assert.ok(doc.analysisResults.folderId);
    // Only storage the workspace owns; only into datasets and virtual folders.
    const other = await w.s.newTenant('mallory');
    for (const body of [
      {
        s3BucketName: `runyard-${other.workspaceId}`,
        s3ObjectKey: `${other.workspaceId}/files/x`,
        name: 'x',
        parent: { kind: 'Dataset', id: ds.Data._id },
      },
      {
        s3BucketName: `runyard-${w.ws}`,
        s3ObjectKey: `${other.workspaceId}/files/x`,
        name: 'x',
        parent: { kind: 'Dataset', id: ds.Data._id },
      },
      { s3BucketName: `runyard-${w.ws}`, s3ObjectKey: `${w.ws}/nothing.txt`, name: 'x', parent: { kind: 'Dataset', id: ds.Data._id } },
    ]) {
      assertError(await w.req('POST', `/api/v1/files/s3?${q()}`, body), 404, 'STORAGE_NOT_FOUND');
    }
    assertError(
      await w.req('POST', `/api/v1/files/s3?${q()}`, {
        s3BucketName: `runyard-${w.ws}`,
        s3ObjectKey: `${w.ws}/../x`,
        name: 'x',
        parent: { kind: 'Dataset', id: ds.Data._id },
      }),
      400,
      'INVALID_STORAGE_PATH',
    );
    assertError(
      await w.req('POST', `/api/v1/folders/s3?${q()}`, {
        s3BucketName: `runyard-${w.ws}`,
        s3Prefix: '',
        name: 'root',
        parent: { kind: 'Dataset', id: ds.Data._id },
      }),
      400,
      'INVALID_STORAGE_PATH',
    );
    assertError(
      await w.req('POST', `/api/v1/folders/s3?${q()}`, {
        s3BucketName: `runyard-${w.ws}`,
        s3Prefix: `${w.ws}/jobs`,
        name: 'in-s3',
        parent: { kind: 'Folder', id: folder.json()._id },
      }),
      400,
      'INVALID_DESTINATION',
    );
    // Azure routes on a server whose storage is not Azure.
    assertError(
      await w.req('POST', `/api/v1/folders/azure-blob?${q()}`, {
        blobContainerName: `runyard-${w.ws}`,
        blobPrefix: `${w.ws}/jobs`,
        blobStorageAccountName: 'acct',
        name: 'az',
        parent: { kind: 'Dataset', id: ds.Data._id },
      }),
      404,
      'STORAGE_NOT_FOUND',
    );
    assertError(
      await w.req('POST', `/api/v1/files/azure-blob?${q()}`, {
        blobContainerName: `runyard-${w.ws}`,
        blobName: key,
        blobStorageAccountName: 'acct',
        name: 'az',
        parent: { kind: 'Dataset', id: ds.Data._id },
      }),
      404,
      'STORAGE_NOT_FOUND',
    );
  });

  it("deletes (204): a virtual folder with its contents (with force when it holds uploads, which go with it), uploaded objects no file points to any more, a job's folders only with force", async () => {
    const data = await items(ds.Data._id);
    const table = data.files.find((f) => f.name === 'table.tsv');
    assert.equal((await w.req('DELETE', `/api/v1/files/${table._id}?${q()}`)).statusCode, 204);
    assert.ok(
      existsSync(path.join(w.s.config.dataDir, 'storage', table.s3BucketName, table.s3ObjectKey)),
      'a reference never deletes job data',
    );

    const fastq = data.folders.find((f) => f.name === 'fastq');
    const inside = await items(fastq._id, true);
    const samples = inside.files.find((f) => f.name === 'samples.csv');
    const blob = path.join(w.s.config.dataDir, 'storage', samples.s3BucketName, samples.s3ObjectKey);
    // The folder is not managed, its upload is: the public client would promise the folder's data stays.
    const held = assertError(await w.req('DELETE', `/api/v1/folders/${fastq._id}?${q()}`), 403, 'ITEM_MANAGED');
    assert.match(held, /holds "(samples.csv|empty.txt)", which is managed by Runyard/);
    const r = await w.req('DELETE', `/api/v1/folders/${fastq._id}?${q()}&force=true`);
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, '');
    assert.ok(!names((await items(ds.Data._id)).folders).includes('fastq'));
    assertError(await w.get(`/api/v1/folders/virtual/${fastq._id}/items?${q()}`), 404, 'FOLDER_NOT_FOUND');
    assert.ok(existsSync(blob), 'the copy in Cohorts still points to the upload');
    const copy = (await items(ds.Cohorts._id)).folders.find((f) => f.name === 'fastq-copy');
    assert.equal((await w.req('DELETE', `/api/v1/folders/${copy._id}?${q()}&force=true`)).statusCode, 204);
    assert.ok(!existsSync(blob), 'the last file pointing to an upload takes it away');

    const reference = (await items(ds.Data._id)).folders.find((f) => f.name === 'cp-results');
    assert.equal((await w.req('DELETE', `/api/v1/folders/${reference._id}?${q()}`)).statusCode, 204);
    assert.ok(
      existsSync(path.join(w.s.config.dataDir, 'storage', reference.s3BucketName, reference.s3Prefix)),
      'a reference never deletes job data',
    );
    const { doc } = await w.job({ name: 'rm' });
    const m = assertError(await w.req('DELETE', `/api/v1/folders/${doc.analysisResults.folderId}?${q()}`), 403, 'ITEM_MANAGED');
    assert.match(m, /DELETE \/api\/v1\/jobs\//);
    assertError(await w.req('DELETE', `/api/v1/folders/${ds.Data._id}?${q()}`), 404, 'FOLDER_NOT_FOUND');
    assertError(await w.req('DELETE', `/api/v1/files/${doc.analysisResults.folderId}?${q()}`), 404, 'FILE_NOT_FOUND');
  });

  it("the public client's datasets rm: an upload is managed and goes with its object; a link is not, and its object stays", async () => {
    // What cloudos-cli does: list the parent's items, read isManagedByLifebit (managed: only with --force, "permanently
    // deleted"; not: "still available on your Cloud Provider"), then DELETE without any force parameter.
    const up = await upload('to-remove.csv', 'a,b\n');
    assert.equal(up.statusCode, 201, up.body);
    const { job, file: linked } = await (async () => {
      const { id } = await w.job({ name: 'linked' });
      w.writeJobFile(id, 'results/results/kept.tsv', 'kept\n');
      const r = await w.req('POST', `/api/v1/files/s3?${q()}`, {
        s3BucketName: `runyard-${w.ws}`,
        s3ObjectKey: `${w.ws}/jobs/${id}/results/results/kept.tsv`,
        name: 'kept.tsv',
        parent: { kind: 'Dataset', id: ds.Data._id },
        // What a client claims is not what the item says: Runyard never deletes a job's output through a link.
        isManagedByLifebit: true,
      });
      assert.equal(r.statusCode, 201, r.body);
      return { job: id, file: r.json() };
    })();
    void job;
    const listed = (await items(ds.Data._id)).files;
    const uploaded = listed.find((f) => f.name === 'to-remove.csv');
    const link = listed.find((f) => f._id === linked._id);
    assert.equal(uploaded.isManagedByLifebit, true, 'the client asks for --force and says the file will be deleted');
    assert.equal(link.isManagedByLifebit, false, 'the client says the file stays on the cloud provider');
    const onDisk = (f: any) => path.join(w.s.config.dataDir, 'storage', f.s3BucketName, f.s3ObjectKey);
    assert.equal((await w.req('DELETE', `/api/v1/files/${uploaded._id}?${q()}`)).statusCode, 204);
    assert.ok(!existsSync(onDisk(uploaded)), 'the upload is deleted, as the client said');
    assert.equal((await w.req('DELETE', `/api/v1/files/${link._id}?${q()}`)).statusCode, 204);
    assert.equal(readFileSync(onDisk(link), 'utf8'), 'kept\n', 'the linked object is still there, as the client said');
    assert.ok(!(await items(ds.Data._id)).files.some((f) => f._id === uploaded._id || f._id === link._id));
  });

  it("refuses to delete a virtual folder that holds a job's folder", async () => {
    const { doc } = await w.job({ name: 'held' });
    const holder = (await mkdir('holder', { kind: 'Dataset', id: ds.AnalysesResults._id })).json();
    const moved = await w.req('PUT', `/api/v1/dataItems/move?${q()}&force=true`, {
      dataItemToMove: { kind: 'Folder', item: doc.analysisResults.folderId },
      toDataItemParent: { kind: 'Folder', item: holder._id },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assertError(await w.req('DELETE', `/api/v1/folders/${holder._id}?${q()}&force=true`), 403, 'ITEM_MANAGED');
    assert.equal((await w.get(`/api/v1/folders?id=${doc.analysisResults.folderId}&${q()}`)).json()[0].parent.id, holder._id);
  });
});
