import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { addMember } from '../reliability/members.js';
import { assertError, call } from '../wire.js';
import { sessionWorld, type SessionWorld } from './world.js';

// Linking folders and files into a session (wire-api §2.12): the v2 batch mount and the v1 single
// mount answer 204 and record each mount `mounting` (the session's runner applies it; none runs
// here); the session's fuse-filesystems list them. Every refusal has the status and message the
// public client matches on, and changes nothing.

describe('interactive session mounts: the routes', { timeout: 180_000 }, () => {
  let w: SessionWorld;
  let mallory: Tenant;
  let viewer: Tenant;
  let ann: Tenant;
  let bob: Tenant;
  let ada: Tenant;
  let job: { id: string; doc: any };
  let fileId = '';
  let fileKey = '';
  let virtualId = '';
  before(async () => {
    w = await sessionWorld();
    mallory = await w.s.newTenant('mallory');
    viewer = await addMember(w.s, w.ws, 'vera', 'viewer');
    ann = await addMember(w.s, w.ws, 'ann', 'member');
    bob = await addMember(w.s, w.ws, 'bob', 'member');
    ada = await addMember(w.s, w.ws, 'ada', 'admin');
    job = await w.job({ name: 'align' });
    const up = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=samples.csv`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    assert.equal(up.statusCode, 201, up.body);
    fileId = up.json()._id;
    fileKey = up.json().s3ObjectKey;
    const data = await w.datasets();
    const dir = await w.req('POST', `/api/v1/folders/virtual?teamId=${w.ws}`, {
      name: 'virtual',
      parent: { kind: 'Dataset', id: data.Data._id },
    });
    assert.equal(dir.statusCode, 201, dir.body);
    virtualId = dir.json()._id;
  });
  after(() => w.close());

  const bucket = () => `runyard-${w.ws}`;
  const s3Folder = (name: string, prefix: string) => ({ type: 'S3Folder', data: { name, s3BucketName: bucket(), s3Prefix: prefix } });
  const mount = (id: string, dataItems: unknown[], t?: Tenant, ws = w.ws) =>
    call(w.s, 'POST', `/api/v2/interactive-sessions/${id}/fuse-filesystem/mount?teamId=${ws}`, { dataItems }, (t ?? w.s.admin).apikey);
  const mountV1 = (id: string, dataItem: unknown, t?: Tenant) =>
    call(w.s, 'POST', `/api/v1/interactive-sessions/${id}/fuse-filesystem/mount?teamId=${w.ws}`, { dataItem }, (t ?? w.s.admin).apikey);
  const mounts = (id: string, t?: Tenant, ws = w.ws, query = '') =>
    call(w.s, 'GET', `/api/v1/interactive-sessions/${id}/fuse-filesystems?teamId=${ws}${query}`, undefined, (t ?? w.s.admin).apikey);
  async function readySession(t?: Tenant, conf: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<string> {
    const s = await w.session(conf, t, extra);
    await w.setSessionStatus(s._id, 'ready');
    return s._id;
  }
  async function rowsOf(id: string) {
    return w.s.store.db.selectFrom('session_mounts').selectAll().where('session_id', '=', id).orderBy('created_at').orderBy('id').execute();
  }
  /** A refusal: the status, code and message, and no mount recorded or changed. */
  async function refused(id: string, r: Promise<Awaited<ReturnType<typeof call>>>, status: number, code: string, message: RegExp | string) {
    const before = JSON.stringify(await rowsOf(id));
    const reply = await r;
    const said = assertError(reply, status, code);
    if (typeof message === 'string') assert.equal(said, message);
    else assert.match(said, message);
    assert.equal(JSON.stringify(await rowsOf(id)), before, 'nothing changed');
    return said;
  }

  it('v2 links folders and files at once (204) and lists them as the reference does, each mounting until the runner applies it', async () => {
    const id = await readySession();
    const items = [
      s3Folder('results', `${job.doc.results.s3Prefix}/`),
      { kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'by-id' },
      { type: 'S3File', data: { name: fileKey, s3BucketName: bucket(), s3ObjectKey: fileKey } },
      { kind: 'File', item: fileId, name: 'explorer.csv' },
    ];
    const r = await mount(id, items);
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, '');
    const list = await mounts(id);
    assert.equal(list.statusCode, 200, list.body);
    const body = list.json();
    assert.deepEqual(body.paginationMetadata, { 'Pagination-Count': 4, 'Pagination-Page': 1, 'Pagination-Limit': 100 });
    assert.deepEqual(
      body.fuseFileSystems.map((m: any) => [
        m.mountName,
        m.storageProvider,
        m.kind,
        m.item,
        m.itemType,
        m.status,
        m.readOnly,
        m.errorMessage,
      ]),
      [
        ['results', 's3', 'source', null, 'folder', 'mounting', true, null],
        ['by-id', 'file', 'source', job.doc.analysisResults.folderId, 'folder', 'mounting', true, null],
        ['samples.csv', 's3', 'source', null, 'file', 'mounting', true, null],
        ['explorer.csv', 'file', 'source', fileId, 'file', 'mounting', true, null],
      ],
    );
    for (const m of body.fuseFileSystems) {
      assert.equal(m.resource, id);
      assert.match(m._id, /^[0-9a-f]{24}$/);
      assert.ok(m.mountPoint.endsWith(`/sessions/${id}/mounts/${m.mountName}`), m.mountPoint);
    }
    assert.deepEqual(body.fuseFileSystems[0].dataItem, items[0]);
    const rows = await rowsOf(id);
    assert.deepEqual(
      rows.map((m) => [m.bucket, m.storage_key, m.source]),
      [
        [bucket(), job.doc.results.s3Prefix, 'link'],
        [bucket(), job.doc.results.s3Prefix, 'link'],
        [bucket(), fileKey, 'link'],
        [bucket(), fileKey, 'link'],
      ],
    );
    // Pages, when asked for.
    const page = (await mounts(id, undefined, w.ws, '&page=2&limit=3')).json();
    assert.deepEqual(
      page.fuseFileSystems.map((m: any) => m.mountName),
      ['explorer.csv'],
    );
    assert.equal(page.paginationMetadata['Pagination-Count'], 4);
  });

  it('v1 links one folder (204); a file through v1 is refused', async () => {
    const id = await readySession();
    const r = await mountV1(id, { kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'results' });
    assert.equal(r.statusCode, 204, r.body);
    assert.deepEqual(
      (await mounts(id)).json().fuseFileSystems.map((m: any) => [m.mountName, m.status]),
      [['results', 'mounting']],
    );
    await refused(
      id,
      mountV1(id, { kind: 'File', item: fileId, name: 'f.csv' }),
      400,
      'VALIDATION_FAILED',
      /the v1 mount links one folder/,
    );
  });

  it('refuses a name or an item the session has already with 403 "already exists with \'<status>\' status"; a failed mount is replaced', async () => {
    const id = await readySession(undefined, {}, { fuseFileSystems: [s3Folder('given', `${w.ws}/given/`)] });
    assert.equal((await mount(id, [s3Folder('results', `${job.doc.results.s3Prefix}/`)])).statusCode, 204);
    await refused(
      id,
      mount(id, [{ kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'results' }]),
      403,
      'MOUNT_EXISTS',
      /A mount named "results" already exists with 'mounting' status/,
    );
    // The same folder under another name.
    await refused(
      id,
      mount(id, [s3Folder('again', `${job.doc.results.s3Prefix}`)]),
      403,
      'MOUNT_EXISTS',
      /already exists with 'mounting' status .*as "results"/,
    );
    // The v1 form says the same.
    await refused(id, mountV1(id, s3Folder('results', `${w.ws}/other/`)), 403, 'MOUNT_EXISTS', /already exists with 'mounting' status/);
    // An item given at creation, not yet applied (the session has not started), holds its name too.
    await refused(id, mount(id, [s3Folder('given', `${w.ws}/elsewhere/`)]), 403, 'MOUNT_EXISTS', /"given" already exists/);
    await w.s.store.db.updateTable('session_mounts').set({ status: 'mounted' }).where('session_id', '=', id).execute();
    await refused(id, mount(id, [s3Folder('results', `${w.ws}/x/`)]), 403, 'MOUNT_EXISTS', /already exists with 'mounted' status/);
    // Two of one name in one request.
    await refused(
      id,
      mount(id, [s3Folder('twin', `${w.ws}/a/`), s3Folder('twin', `${w.ws}/b/`)]),
      400,
      'VALIDATION_FAILED',
      /Duplicate mount name "twin"/,
    );
    // A failed mount is replaced by a new one of its name.
    await w.s.store.db
      .updateTable('session_mounts')
      .set({ status: 'failed', error_message: 'x' })
      .where('session_id', '=', id)
      .where('name', '=', 'results')
      .execute();
    const again = await mount(id, [s3Folder('results', `${w.ws}/fresh/`)]);
    assert.equal(again.statusCode, 204, again.body);
    const rows = (await rowsOf(id)).filter((m) => m.name === 'results');
    assert.deepEqual(
      rows.map((m) => [m.storage_key, m.status, m.error_message]),
      [[`${w.ws}/fresh`, 'mounting', null]],
    );
  });

  it("refuses a virtual folder with the reference's exact message (v2 and v1)", async () => {
    const id = await readySession();
    const message = 'Invalid Supported DataItem folderType. Supported values are S3Folder';
    await refused(id, mount(id, [{ kind: 'Folder', item: virtualId, name: 'v' }]), 400, 'MOUNT_FOLDER_TYPE', message);
    await refused(id, mountV1(id, { kind: 'Folder', item: virtualId, name: 'v' }), 400, 'MOUNT_FOLDER_TYPE', message);
    // Its File Explorer path, as the public client's create sends it (the project's name as the bucket).
    await refused(
      id,
      mount(id, [{ type: 'S3Folder', data: { name: 'v', s3BucketName: 'demo', s3Prefix: 'Data/virtual/' } }]),
      400,
      'MOUNT_FOLDER_TYPE',
      message,
    );
  });

  it('refuses a session that is not active with 400 "Request failed with status code 403"; one being started takes mounts', async () => {
    for (const status of ['aborted', 'aborting', 'terminated']) {
      const s = await w.session();
      await w.setSessionStatus(s._id, status);
      await refused(s._id, mount(s._id, [s3Folder('r', `${w.ws}/r/`)]), 400, 'SESSION_NOT_ACTIVE', 'Request failed with status code 403');
      await refused(s._id, mountV1(s._id, s3Folder('r', `${w.ws}/r/`)), 400, 'SESSION_NOT_ACTIVE', 'Request failed with status code 403');
    }
    for (const status of ['scheduled', 'initializing', 'setup']) {
      const s = await w.session();
      await w.setSessionStatus(s._id, status);
      assert.equal((await mount(s._id, [s3Folder('r', `${w.ws}/r/`)])).statusCode, 204, status);
    }
  });

  it('an unknown session is a 404 that says "session"; a route that does not exist is a 404 that does not (the public client falls back to v1 on it)', async () => {
    const ghost = 'c'.repeat(24);
    const r = await mount(ghost, [s3Folder('r', `${w.ws}/r/`)]);
    assert.match(assertError(r, 404, 'SESSION_NOT_FOUND'), /Interactive session with ID 'c{24}' not found/);
    assertError(await mountV1(ghost, s3Folder('r', `${w.ws}/r/`)), 404, 'SESSION_NOT_FOUND');
    assertError(await mounts(ghost), 404, 'SESSION_NOT_FOUND');
    // As an older server without the v2 route answers: ROUTE_NOT_FOUND, with no "session" in it.
    const missing = await call(w.s, 'POST', `/api/v9/interactive-sessions/${ghost}/fuse-filesystem/mount?teamId=${w.ws}`, {
      dataItems: [],
    });
    const said = assertError(missing, 404, 'ROUTE_NOT_FOUND');
    assert.doesNotMatch(said, /session/i);
    assert.match(said, /^No route POST/);
  });

  it('refuses items the workspace does not have with a 400 that says neither 404 nor "not found"', async () => {
    const id = await readySession();
    for (const item of [
      { kind: 'Folder', item: 'b'.repeat(24), name: 'x' },
      { kind: 'File', item: 'a'.repeat(24), name: 'x' },
      { type: 'S3Folder', data: { name: 'x', s3BucketName: `runyard-${mallory.workspaceId}`, s3Prefix: `${mallory.workspaceId}/` } },
      { type: 'S3Folder', data: { name: 'x', s3BucketName: 'demo', s3Prefix: 'Data/nothing-here/' } },
    ]) {
      const said = await refused(id, mount(id, [item]), 400, 'MOUNT_ITEM_UNKNOWN', /dataItems\[0\]: .*does not exist in this workspace/);
      // The workspace's id is random hex and may hold "404" itself: the words around it are what must not say it.
      assert.doesNotMatch(said.replaceAll(mallory.workspaceId, '<workspace>'), /not found|404/i);
    }
  });

  it('checks names and paths (T9): no separators, nothing hidden, no escaping prefix, not the whole bucket', async () => {
    const id = await readySession();
    await refused(id, mount(id, [s3Folder('../up', `${w.ws}/r/`)]), 400, 'VALIDATION_FAILED', /the name "..\/up" contains \//);
    await refused(id, mount(id, [s3Folder('.ssh', `${w.ws}/r/`)]), 400, 'VALIDATION_FAILED', /starts with a dot/);
    await refused(id, mount(id, [s3Folder('a\\b', `${w.ws}/r/`)]), 400, 'VALIDATION_FAILED', /contains \/ or \\/);
    await refused(id, mount(id, [s3Folder('ctl\u0007', `${w.ws}/r/`)]), 400, 'VALIDATION_FAILED', /control character/);
    await refused(id, mount(id, [s3Folder('up', `${w.ws}/../${mallory.workspaceId}/`)]), 400, 'INVALID_STORAGE_PATH', /./);
    await refused(id, mount(id, [s3Folder('root', '/')]), 400, 'INVALID_STORAGE_PATH', /./);
    await refused(id, mount(id, [{ name: 'what' }]), 400, 'VALIDATION_FAILED', /must be \{"kind": "File"\|"Folder"/);
    await refused(id, mount(id, []), 400, 'VALIDATION_FAILED', /dataItems/);
  });

  it('holds at most 100 mounts per session', async () => {
    const id = await readySession(undefined, {}, { fuseFileSystems: [s3Folder('given', `${w.ws}/given/`)] });
    const many = Array.from({ length: 99 }, (_, i) => s3Folder(`m${i}`, `${w.ws}/m${i}/`));
    assert.equal((await mount(id, many)).statusCode, 204);
    await refused(
      id,
      mount(id, [s3Folder('one-more', `${w.ws}/x/`)]),
      400,
      'VALIDATION_FAILED',
      /at most 100 files and linked folders; it has 100, and this would make 101/,
    );
    const tooMany = Array.from({ length: 101 }, (_, i) => s3Folder(`n${i}`, `${w.ws}/n${i}/`));
    await refused(id, mount(id, tooMany), 400, 'VALIDATION_FAILED', /dataItems/);
    assert.equal((await mounts(id)).json().paginationMetadata['Pagination-Count'], 99);
  });

  it('tenancy and roles: another workspace gets 404; a viewer lists but cannot link; a member links into its own sessions, an admin into any', async () => {
    const id = await readySession(ann);
    const item = [s3Folder('r', `${w.ws}/r/`)];
    await refused(id, mount(id, item, mallory, mallory.workspaceId), 404, 'SESSION_NOT_FOUND', /not found in this workspace/);
    assertError(await mounts(id, mallory, mallory.workspaceId), 404, 'SESSION_NOT_FOUND');
    await refused(id, mount(id, item, mallory), 404, 'WORKSPACE_NOT_FOUND', /./);
    assertError(await mounts(id, mallory), 404, 'WORKSPACE_NOT_FOUND');
    assert.equal((await mounts(id, viewer)).statusCode, 200);
    await refused(id, mount(id, item, viewer), 403, 'FORBIDDEN', /./);
    await refused(id, mount(id, item, bob), 403, 'FORBIDDEN', /belongs to another user: to link folders into it you need the admin role/);
    assert.equal((await mount(id, item, ann)).statusCode, 204);
    assert.equal((await mount(id, [s3Folder('s', `${w.ws}/s/`)], ada)).statusCode, 204);
    // A private session of ann's is not there for bob.
    const secret = await readySession(ann, { visibility: 'private' });
    await refused(secret, mount(secret, item, bob), 404, 'SESSION_NOT_FOUND', /./);
    assertError(await mounts(secret, bob), 404, 'SESSION_NOT_FOUND');
    assert.equal((await mounts(secret, ada)).statusCode, 200);
  });
});
