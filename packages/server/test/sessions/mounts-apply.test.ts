import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { s3BackendEnv, startS3Server, type S3TestServer } from '../../../../test/support/s3-server.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import {
  applyPendingMounts,
  prepareSessionMounts,
  sessionReadable,
  unmountSession,
  workspaceAreaOf,
} from '../../src/scheduler/session-mounts.js';
import { sessionDirsOf } from '../../src/scheduler/session-runner.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { call } from '../wire.js';
import { sessionWorld, type SessionWorld } from './world.js';

// How the session's runner applies mounts (scheduler/session-mounts.ts), on the real stores: on the
// local store a symlink into the workspace's area (which the runner binds read-only into the
// sandbox), on S3 a copy; a missing item fails with why; whatever the session planted under the
// name is replaced without being followed; a pause unmounts. The end-to-end test with Jupyter is
// mounts-run.test.ts.

async function mountAll(w: SessionWorld, id: string, dataItems: unknown[]): Promise<void> {
  const r = await call(w.s, 'POST', `/api/v2/interactive-sessions/${id}/fuse-filesystem/mount?teamId=${w.ws}`, { dataItems });
  assert.equal(r.statusCode, 204, r.body);
}

async function apply(w: SessionWorld, id: string): Promise<Record<string, { status: string; error: string | null }>> {
  const dirs = sessionDirsOf(w.s.config, id);
  await applyPendingMounts({
    db: w.s.store.db,
    config: w.s.config,
    blobs: createBlobStore(w.s.config),
    session: { id, workspace_id: w.ws },
    mountsDir: dirs.mounts,
    stagingDir: dirs.mountStaging,
  });
  const rows = await w.s.store.db.selectFrom('session_mounts').selectAll().where('session_id', '=', id).execute();
  return Object.fromEntries(rows.map((r) => [r.name, { status: r.status, error: r.error_message }]));
}

async function readySession(w: SessionWorld, extra: Record<string, unknown> = {}): Promise<string> {
  const s = await w.session({}, undefined, extra);
  await w.setSessionStatus(s._id, 'ready');
  mkdirSync(sessionDirsOf(w.s.config, s._id).mounts, { recursive: true });
  return s._id;
}

describe('interactive session mounts: applying them on the local store', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  let outside: string;
  before(async () => {
    w = await sessionWorld();
    outside = mkdtempSync(path.join(tmpdir(), 'runyard-outside-'));
  });
  after(async () => {
    rmSync(outside, { recursive: true, force: true });
    await w.close();
  });

  it("links a job's results folder and a File Explorer file into the workspace's area; a missing object fails with why", async () => {
    const job = await w.job({ name: 'align' });
    w.writeJobFile(job.id, 'results/out.txt', 'aligned\n');
    const up = await w.s.app.inject({
      method: 'POST',
      url: `/api/runyard/datasets/upload?teamId=${w.ws}&projectId=${w.projectId}&name=samples.csv`,
      headers: { apikey: w.s.admin.apikey, 'content-type': 'application/octet-stream' },
      payload: 'a,b\n',
    });
    const id = await readySession(w);
    await mountAll(w, id, [
      { type: 'S3Folder', data: { name: 'results', s3BucketName: `runyard-${w.ws}`, s3Prefix: `${job.doc.results.s3Prefix}/` } },
      { kind: 'File', item: up.json()._id, name: 'samples.csv' },
      { type: 'S3File', data: { name: 'gone.txt', s3BucketName: `runyard-${w.ws}`, s3ObjectKey: `${w.ws}/nothing/gone.txt` } },
    ]);
    const seen = await apply(w, id);
    assert.deepEqual(seen.results, { status: 'mounted', error: null });
    assert.deepEqual(seen['samples.csv'], { status: 'mounted', error: null });
    assert.equal(seen['gone.txt'].status, 'failed');
    assert.match(seen['gone.txt'].error!, new RegExp(`Nothing is stored at runyard-${w.ws}/${w.ws}/nothing/gone.txt`));
    const mounts = sessionDirsOf(w.s.config, id).mounts;
    const area = workspaceAreaOf(w.s.config, w.ws);
    assert.equal(readlinkSync(path.join(mounts, 'results')), jobPaths(w.s.config.dataDir, w.ws, job.id).results);
    assert.ok(readlinkSync(path.join(mounts, 'results')).startsWith(`${area}/`), 'inside the area the sandbox binds');
    assert.equal(readFileSync(path.join(mounts, 'results', 'out.txt'), 'utf8'), 'aligned\n');
    assert.equal(readFileSync(path.join(mounts, 'samples.csv'), 'utf8'), 'a,b\n');
    assert.equal(existsSync(path.join(mounts, 'gone.txt')), false);
    assert.deepEqual(await sessionReadable(w.s.config, w.ws), [area]);
    // Nothing left behind in the staging directory.
    assert.deepEqual(readdirSync(sessionDirsOf(w.s.config, id).mountStaging), []);
  });

  it('replaces what the session planted under the name without following it', async () => {
    writeFileSync(path.join(outside, 'keep.txt'), 'host file\n');
    const id = await readySession(w);
    const mounts = sessionDirsOf(w.s.config, id).mounts;
    symlinkSync(outside, path.join(mounts, 'data'));
    await mountAll(w, id, [{ type: 'S3Folder', data: { name: 'data', s3BucketName: `runyard-${w.ws}`, s3Prefix: `${w.ws}/planted/` } }]);
    mkdirSync(path.join(workspaceAreaOf(w.s.config, w.ws), 'planted'), { recursive: true });
    assert.equal((await apply(w, id)).data.status, 'mounted');
    assert.equal(readlinkSync(path.join(mounts, 'data')), path.join(workspaceAreaOf(w.s.config, w.ws), 'planted'));
    assert.deepEqual(readdirSync(outside), ['keep.txt']);
    assert.equal(readFileSync(path.join(outside, 'keep.txt'), 'utf8'), 'host file\n');
  });

  it('a File Explorer folder deleted since it was linked fails; items given at creation get their rows when a run starts; a pause unmounts', async () => {
    const job = await w.job({ name: 'gone' });
    const kept = await w.job({ name: 'kept' });
    w.writeJobFile(kept.id, 'results/x.txt', 'x');
    const id = await readySession(w, {
      fuseFileSystems: [
        { type: 'S3Folder', data: { name: 'given', s3BucketName: `runyard-${w.ws}`, s3Prefix: `${kept.doc.results.s3Prefix}/` } },
      ],
    });
    await mountAll(w, id, [{ kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'by-id' }]);
    await w.s.store.db.updateTable('folders').set({ status: 'deleted' }).where('id', '=', job.doc.analysisResults.folderId).execute();
    await prepareSessionMounts(w.s.store.db, (await w.row(id)) as any);
    const rows = await w.s.store.db.selectFrom('session_mounts').selectAll().where('session_id', '=', id).orderBy('name').execute();
    assert.deepEqual(
      rows.map((r) => [r.name, r.source, r.status]),
      [
        ['by-id', 'link', 'mounting'],
        ['given', 'session', 'mounting'],
      ],
    );
    const seen = await apply(w, id);
    assert.equal(seen.given.status, 'mounted');
    assert.equal(seen['by-id'].status, 'failed');
    assert.match(seen['by-id'].error!, /was deleted from the File Explorer/);
    // A second start does not add the given item twice.
    await prepareSessionMounts(w.s.store.db, (await w.row(id)) as any);
    assert.equal((await w.s.store.db.selectFrom('session_mounts').select('id').where('session_id', '=', id).execute()).length, 2);
    await apply(w, id);
    const dirs = sessionDirsOf(w.s.config, id);
    await unmountSession(w.s.store.db, id, dirs.mounts, dirs.mountStaging);
    assert.deepEqual(readdirSync(dirs.mounts), []);
    const after = await w.s.store.db.selectFrom('session_mounts').selectAll().where('session_id', '=', id).orderBy('name').execute();
    assert.deepEqual(
      after.map((r) => [r.name, r.status]),
      [
        ['by-id', 'failed'],
        ['given', 'unmounted'],
      ],
    );
    // The stored results are untouched.
    assert.equal(readFileSync(path.join(jobPaths(w.s.config.dataDir, w.ws, kept.id).results, 'x.txt'), 'utf8'), 'x');
  });
});

describe('interactive session mounts: applying them on S3 (s3rver)', { timeout: 120_000 }, () => {
  let s3: S3TestServer;
  let w: SessionWorld;
  let outside: string;
  before(async () => {
    s3 = await startS3Server();
    w = await sessionWorld(s3BackendEnv(s3));
    outside = mkdtempSync(path.join(tmpdir(), 'runyard-outside-'));
  });
  after(async () => {
    rmSync(outside, { recursive: true, force: true });
    await w?.close();
    await s3?.stop();
  });

  it('copies a folder and a file into mounts/ (through a staging directory, replacing a planted link); an empty prefix fails', async () => {
    const blobs = createBlobStore(w.s.config);
    const bucket = `runyard-${w.ws}`;
    await blobs.ensureBucket(bucket);
    await blobs.put(bucket, `${w.ws}/data/a.txt`, Readable.from(['alpha\n']));
    await blobs.put(bucket, `${w.ws}/data/sub/b.txt`, Readable.from(['beta\n']));
    const id = await readySession(w);
    const mounts = sessionDirsOf(w.s.config, id).mounts;
    symlinkSync(outside, path.join(mounts, 'data'));
    await mountAll(w, id, [
      { type: 'S3Folder', data: { name: 'data', s3BucketName: bucket, s3Prefix: `${w.ws}/data/` } },
      { type: 'S3File', data: { name: 'a.txt', s3BucketName: bucket, s3ObjectKey: `${w.ws}/data/a.txt` } },
      { type: 'S3Folder', data: { name: 'empty', s3BucketName: bucket, s3Prefix: `${w.ws}/empty/` } },
    ]);
    const seen = await apply(w, id);
    assert.deepEqual(seen.data, { status: 'mounted', error: null });
    assert.deepEqual(seen['a.txt'], { status: 'mounted', error: null });
    assert.equal(seen.empty.status, 'failed');
    assert.match(seen.empty.error!, /Nothing is stored under/);
    assert.ok(lstatSync(path.join(mounts, 'data')).isDirectory(), 'a copy, not a link');
    assert.equal(readFileSync(path.join(mounts, 'data', 'a.txt'), 'utf8'), 'alpha\n');
    assert.equal(readFileSync(path.join(mounts, 'data', 'sub', 'b.txt'), 'utf8'), 'beta\n');
    assert.equal(readFileSync(path.join(mounts, 'a.txt'), 'utf8'), 'alpha\n');
    assert.deepEqual(readdirSync(outside), [], 'nothing was written through the planted link');
    // No workspace area is bound on S3.
    assert.deepEqual(await sessionReadable(w.s.config, w.ws), []);
  });
});
