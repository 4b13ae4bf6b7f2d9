import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { assertError } from '../wire.js';
import { createBody, sessionWorld, type SessionWorld } from './world.js';

// The files (dataItems) and linked folders (fuseFileSystems) of a session, in every shape the
// public client sends (wire-api §2.11-§2.12), resolved against the workspace at create and resume.
// An item the workspace does not have is refused (404), a malformed one 400; nothing is stored.

describe('interactive session data items', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  let other: Tenant;
  let fileId = '';
  let fileKey = '';
  let job: { id: string; doc: any };
  before(async () => {
    w = await sessionWorld();
    other = await w.s.newTenant('mallory');
    const up = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=samples.csv`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    assert.equal(up.statusCode, 201, up.body);
    fileId = up.json()._id;
    fileKey = up.json().s3ObjectKey;
    job = await w.job({ name: 'align' });
  });
  after(() => w.close());

  const bucket = () => `runyard-${w.ws}`;
  const resultsPrefix = () => job.doc.results.s3Prefix as string;

  async function refused(extra: Record<string, unknown>, status: number, code: string, message: RegExp): Promise<void> {
    const before = await w.sessionCount();
    const r = await w.create(createBody(w.projectId, {}, extra));
    assert.match(assertError(r, status, code), message);
    assert.equal(await w.sessionCount(), before);
  }

  it('takes a File Explorer file, a storage file and folder of the workspace, a File Explorer folder by id and by project path', async () => {
    const items = {
      dataItems: [
        { kind: 'File', item: fileId, name: 'explorer.csv' },
        { type: 'S3File', data: { name: fileKey, s3BucketName: bucket(), s3ObjectKey: fileKey } },
      ],
      fuseFileSystems: [
        { type: 'S3Folder', data: { name: 'results', s3BucketName: bucket(), s3Prefix: `${resultsPrefix()}/` } },
        { kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'by-id' },
        // The public client's `--link demo/Analyses Results/<folder>`: the project name as the bucket.
        { type: 'S3Folder', data: { name: 'by-path', s3BucketName: 'demo', s3Prefix: `Analyses Results/align-${job.id}/` } },
      ],
    };
    const s = await w.session({}, undefined, items);
    assert.deepEqual(s.dataItems, items.dataItems, 'the document shows the items as given');
    assert.deepEqual(s.fuseFileSystems, items.fuseFileSystems);
    const row = await w.row(s._id);
    const files = JSON.parse(row.data_items_json);
    const folders = JSON.parse(row.fuse_file_systems_json);
    assert.deepEqual(
      files.map((f: any) => [f.kind, f.name, f.itemId, f.bucket, f.key]),
      [
        ['file', 'explorer.csv', fileId, bucket(), fileKey],
        ['file', fileKey.split('/').pop(), null, bucket(), fileKey],
      ],
    );
    assert.deepEqual(
      folders.map((f: any) => [f.kind, f.name, f.itemId, f.bucket, f.key]),
      [
        ['folder', 'results', null, bucket(), resultsPrefix()],
        ['folder', 'by-id', job.doc.analysisResults.folderId, bucket(), resultsPrefix()],
        ['folder', 'by-path', job.doc.analysisResults.folderId, bucket(), resultsPrefix()],
      ],
    );
  });

  it("refuses what the workspace does not have: another workspace's file, folder or storage, an unknown id or path (404)", async () => {
    const theirs = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${other.workspaceId}&projectId=${await projectOf(other)}&name=secret.csv`,
      headers: { apikey: other.apikey, 'content-type': 'application/octet-stream' },
      payload: 'x\n',
    });
    assert.equal(theirs.statusCode, 201, theirs.body);
    await refused(
      { dataItems: [{ kind: 'File', item: theirs.json()._id }] },
      404,
      'FILE_NOT_FOUND',
      /dataItems\[0\]: file "[0-9a-f]{24}" not found in this workspace/,
    );
    await refused({ dataItems: [{ kind: 'File', item: 'a'.repeat(24) }] }, 404, 'FILE_NOT_FOUND', /dataItems\[0\]/);
    await refused({ fuseFileSystems: [{ kind: 'Folder', item: 'b'.repeat(24) }] }, 404, 'FOLDER_NOT_FOUND', /fuseFileSystems\[0\]: folder/);
    await refused(
      { dataItems: [{ type: 'S3File', data: { s3BucketName: `runyard-${other.workspaceId}`, s3ObjectKey: theirs.json().s3ObjectKey } }] },
      404,
      'STORAGE_NOT_FOUND',
      /dataItems\[0\]: object .* not found in this workspace/,
    );
    await refused(
      {
        fuseFileSystems: [
          { type: 'S3Folder', data: { name: 'x', s3BucketName: `runyard-${other.workspaceId}`, s3Prefix: `${other.workspaceId}/` } },
        ],
      },
      404,
      'STORAGE_NOT_FOUND',
      /fuseFileSystems\[0\]: folder/,
    );
    await refused(
      { fuseFileSystems: [{ type: 'S3Folder', data: { name: 'x', s3BucketName: 'demo', s3Prefix: 'Data/nothing-here/' } }] },
      404,
      'FOLDER_NOT_FOUND',
      /folder "demo\/Data\/nothing-here" not found/,
    );
  });

  it('refuses malformed items, virtual folders, files among the linked folders, unsafe or duplicate names, and more than 100 (400)', async () => {
    const data = await w.datasets();
    const dir = await w.req('POST', `/api/v1/folders/virtual?teamId=${w.ws}`, {
      name: 'virtual',
      parent: { kind: 'Dataset', id: data.Data._id },
    });
    assert.equal(dir.statusCode, 201, dir.body);
    await refused({ dataItems: [{ name: 'what' }] }, 400, 'VALIDATION_FAILED', /dataItems\[0\] must be \{"kind": "File"\|"Folder"/);
    await refused({ dataItems: [{ kind: 'File', item: 'not-an-id' }] }, 400, 'VALIDATION_FAILED', /item must be the id of a file/);
    await refused(
      { dataItems: [{ type: 'S3File', data: { s3BucketName: bucket() } }] },
      400,
      'VALIDATION_FAILED',
      /s3ObjectKey is required/,
    );
    await refused(
      { fuseFileSystems: [{ type: 'S3Folder', data: { s3BucketName: bucket() } }] },
      400,
      'VALIDATION_FAILED',
      /s3Prefix is required/,
    );
    await refused(
      // Not the whole bucket (the reference: the prefix must be non-empty).
      { fuseFileSystems: [{ type: 'S3Folder', data: { s3BucketName: bucket(), s3Prefix: '/' } }] },
      400,
      'INVALID_STORAGE_PATH',
      /./,
    );
    await refused(
      { fuseFileSystems: [{ type: 'S3Folder', data: { s3BucketName: bucket(), s3Prefix: `${w.ws}/../x/` } }] },
      400,
      'INVALID_STORAGE_PATH',
      /./,
    );
    await refused(
      { fuseFileSystems: [{ kind: 'Folder', item: dir.json()._id }] },
      400,
      'VALIDATION_FAILED',
      /is a VirtualFolder; only folders that point into storage/,
    );
    await refused(
      { fuseFileSystems: [{ kind: 'File', item: fileId }] },
      400,
      'VALIDATION_FAILED',
      /fuseFileSystems\[0\] is a file; give files in dataItems/,
    );
    await refused(
      { dataItems: [{ kind: 'File', item: fileId, name: '../escape' }] },
      400,
      'VALIDATION_FAILED',
      /the name "..\/escape" contains \//,
    );
    await refused({ dataItems: [{ kind: 'File', item: fileId, name: '.hidden' }] }, 400, 'VALIDATION_FAILED', /starts with a dot/);
    await refused(
      {
        dataItems: [{ kind: 'File', item: fileId, name: 'same' }],
        fuseFileSystems: [{ kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'same' }],
      },
      400,
      'VALIDATION_FAILED',
      /Two items would be mounted with the name "same"/,
    );
    const many = Array.from({ length: 51 }, (_, i) => ({ kind: 'File', item: fileId, name: `f${i}` }));
    const folders = many.map((_, i) => ({ kind: 'Folder', item: job.doc.analysisResults.folderId, name: `g${i}` }));
    await refused(
      { dataItems: many, fuseFileSystems: folders },
      400,
      'VALIDATION_FAILED',
      /at most 100 files and linked folders; this would make 102/,
    );
  });

  async function projectOf(t: Tenant): Promise<string> {
    const r = await w.req('POST', `/api/v1/projects?teamId=${t.workspaceId}`, { name: `p-${Date.now()}` }, t);
    assert.equal(r.statusCode, 200, r.body);
    return r.json()._id;
  }
});
