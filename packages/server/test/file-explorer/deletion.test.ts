import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { DeletionWorker } from '../../src/services/deletion-worker.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { bashBody } from '../jobs/fixtures.js';
import { assertError, assertIsoTime } from '../wire.js';
import { explorerWorld, type ExplorerWorld } from './world.js';

const ALL = 'status=ready&status=deleted&status=deleting&status=scheduledForDeletion&status=failedToDelete';

describe('deleting job data through the deletion statuses', () => {
  let w: ExplorerWorld;
  before(async () => {
    w = await explorerWorld();
  });
  after(() => w.close());

  const del = (id: string, property: string, tenant?: Parameters<ExplorerWorld['req']>[3]) =>
    w.req('DELETE', `/api/v1/jobs/${id}/data?properties[]=${property}&teamId=${tenant?.workspaceId ?? w.ws}`, undefined, tenant);
  const folder = async (id: string) => (await w.get(`/api/v1/folders/?id=${id}&${ALL}&teamId=${w.ws}`)).json()[0];

  it("deletes a finished job's results: scheduledForDeletion at once, then deleting, then deleted with the blobs gone", async () => {
    const { id, doc } = await w.job({ name: 'done' });
    const file = w.writeJobFile(id, 'results/results/big.txt', 'data');
    w.writeJobFile(id, 'logs/stdout.txt', 'log');
    assertError(await del(id, 'analysisResults'), 409, 'JOB_STATE_CONFLICT');
    await w.setStatus(id, 'completed');
    const r = await del(id, 'analysisResults');
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, '');

    const scheduled = await folder(doc.analysisResults.folderId);
    assert.equal(scheduled.status, 'scheduledForDeletion');
    assert.equal(scheduled.deletedBy.id, w.s.admin.userId);
    assertIsoTime(scheduled.deletionDate);
    assert.deepEqual((await w.get(`/api/v1/folders?id=${doc.analysisResults.folderId}&status=ready&teamId=${w.ws}`)).json(), []);
    const after1 = await w.doc(id);
    assert.equal(after1.analysisResults.folderId, doc.analysisResults.folderId);
    assert.deepEqual(Object.keys(after1.analysisResults.deletedBy).sort(), ['email', 'id', 'name', 'surname']);
    assertIsoTime(after1.analysisResults.deletionDate);
    assert.ok(!('deletedBy' in after1.workDirectory));
    assertError(await del(id, 'analysisResults'), 409, 'DELETION_CONFLICT');

    // get_results_deletion_status: Analyses Results items with every status, the one named after the job.
    const ds = await w.datasets();
    const items = (await w.get(`/api/v1/datasets/${ds.AnalysesResults._id}/items?${ALL}&teamId=${w.ws}`)).json();
    assert.equal(items.folders.find((f: { name: string }) => f.name.includes(id)).status, 'scheduledForDeletion');

    // The worker moves it to deleting (seen from a second worker racing for it) and on to deleted.
    const seen: string[] = [];
    const real = createBlobStore(w.s.config);
    const watching: BlobStore = Object.assign(Object.create(real) as BlobStore, {
      deletePrefix: async (bucket: string, prefix: string) => {
        seen.push((await folder(doc.analysisResults.folderId)).status);
        assert.equal(
          await new DeletionWorker({ db: w.s.store.db, blobs: real, pollMs: 50 }).runOnce(),
          0,
          'a folder being deleted is claimed once',
        );
        return real.deletePrefix(bucket, prefix);
      },
    });
    assert.equal(await new DeletionWorker({ db: w.s.store.db, blobs: watching, pollMs: 50 }).runOnce(), 1);
    assert.deepEqual(seen, ['deleting']);
    const done = await folder(doc.analysisResults.folderId);
    assert.equal(done.status, 'deleted');
    assert.equal(done.deletedBy.id, w.s.admin.userId);
    assert.ok(!existsSync(file), 'the results are gone');
    assert.ok(!existsSync(jobPaths(w.s.config.dataDir, w.ws, id).results));
    assert.ok(existsSync(path.join(jobPaths(w.s.config.dataDir, w.ws, id).logs, 'stdout.txt')), 'the logs stay');
    // Deleted folders answer only when deleted is asked for; they leave the default listings.
    assert.deepEqual((await w.get(`/api/v1/folders/?id=${doc.analysisResults.folderId}&teamId=${w.ws}`)).json(), []);
    assert.equal(
      (await w.get(`/api/v1/folders/?id=${doc.analysisResults.folderId}&status=deleted&teamId=${w.ws}`)).json()[0].status,
      'deleted',
    );
    const listed = (await w.get(`/api/v1/datasets/${ds.AnalysesResults._id}/items?teamId=${w.ws}`)).json();
    assert.ok(!listed.folders.some((f: { name: string }) => f.name.includes(id)));
    assertError(await del(id, 'analysisResults'), 409, 'DELETION_CONFLICT');
  });

  it('runs in the background once started', async () => {
    const { id, doc } = await w.job({ name: 'bg' });
    const file = w.writeJobFile(id, 'work/ab/cdef/.command.sh', 'echo');
    await w.setStatus(id, 'failed');
    const worker = new DeletionWorker({ db: w.s.store.db, blobs: createBlobStore(w.s.config), pollMs: 20 });
    worker.start();
    try {
      assert.equal((await del(id, 'workDirectory')).statusCode, 204);
      for (let i = 0; i < 200 && (await folder(doc.workDirectory.folderId)).status !== 'deleted'; i++)
        await new Promise((r) => setTimeout(r, 20));
    } finally {
      await worker.stop();
    }
    assert.equal((await folder(doc.workDirectory.folderId)).status, 'deleted');
    assert.ok(!existsSync(file));
    const after1 = await w.doc(id);
    assert.equal(after1.workDirectory.deletedBy.id, w.s.admin.userId);
    assertIsoTime(after1.workDirectory.deletionDate);
  });

  it('records failedToDelete with the reason, and can be asked again', async () => {
    const { id, doc } = await w.job({ name: 'fails' });
    await w.setStatus(id, 'completed');
    assert.equal((await del(id, 'analysisResults')).statusCode, 204);
    const broken: BlobStore = Object.assign(Object.create(createBlobStore(w.s.config)) as BlobStore, {
      deletePrefix: async () => {
        throw new Error('storage is read-only');
      },
    });
    assert.equal(await new DeletionWorker({ db: w.s.store.db, blobs: broken, pollMs: 50 }).runOnce(), 1);
    const failed = await folder(doc.analysisResults.folderId);
    assert.equal(failed.status, 'failedToDelete');
    assert.match(failed.statusMessage, /read-only/);
    assert.equal((await del(id, 'analysisResults')).statusCode, 204);
    assert.equal((await folder(doc.analysisResults.folderId)).status, 'scheduledForDeletion');
    await w.worker.runOnce();
    assert.equal((await folder(doc.analysisResults.folderId)).status, 'deleted');
  });

  it('refuses a work directory in use by an active job (a resumed one included), naming it', async () => {
    const first = await w.job({ name: 'first', resumable: true });
    const workId = first.doc.workDirectory.folderId;
    const m = assertError(await del(first.id, 'workDirectory'), 409, 'FOLDER_IN_USE');
    assert.match(m, new RegExp(first.id));
    await w.setStatus(first.id, 'completed');
    const resumed = await w.job({ name: 'second', resumable: true, resumeWorkDir: workId });
    for (const status of ['queued', 'scheduled', 'initializing', 'running', 'aborting']) {
      await w.setStatus(resumed.id, status);
      const msg = assertError(await del(first.id, 'workDirectory'), 409, 'FOLDER_IN_USE');
      assert.match(msg, new RegExp(resumed.id));
      assert.equal((await folder(workId)).status, 'ready', 'nothing changed');
    }
    await w.setStatus(resumed.id, 'aborted');
    assert.equal((await del(resumed.id, 'workDirectory')).statusCode, 204);
    // A folder on its way out cannot be resumed from.
    const again = await w.req('POST', `/api/v2/jobs?teamId=${w.ws}`, bashBody(w, { resumeWorkDir: workId }));
    assertError(again, 409, 'DELETION_CONFLICT');
  });

  it('deletes both folders in one request, or neither', async () => {
    const first = await w.job({ name: 'both', resumable: true });
    await w.setStatus(first.id, 'completed');
    const user = await w.job({ name: 'user', resumable: true, resumeWorkDir: first.doc.workDirectory.folderId });
    const both = `/api/v1/jobs/${first.id}/data?properties[]=analysisResults&properties[]=workDirectory&teamId=${w.ws}`;
    assertError(await w.req('DELETE', both), 409, 'FOLDER_IN_USE');
    assert.equal((await folder(first.doc.analysisResults.folderId)).status, 'ready', 'the results were not scheduled either');
    await w.setStatus(user.id, 'completed');
    assert.equal((await w.req('DELETE', both)).statusCode, 204);
    assert.equal((await folder(first.doc.analysisResults.folderId)).status, 'scheduledForDeletion');
    assert.equal((await folder(first.doc.workDirectory.folderId)).status, 'scheduledForDeletion');
  });

  it('answers 404 for an unknown job or one of another workspace, and 400 without properties[]', async () => {
    const { id } = await w.job({ name: 'mine' });
    await w.setStatus(id, 'completed');
    const other = await w.s.newTenant('trudy');
    assertError(await del(id, 'analysisResults', other), 404, 'JOB_NOT_FOUND');
    assertError(
      await w.req('DELETE', `/api/v1/jobs/${id}/data?properties[]=analysisResults&teamId=${other.workspaceId}`),
      404,
      'WORKSPACE_NOT_FOUND',
    );
    assertError(await del('0123456789abcdef01234567', 'analysisResults'), 404, 'JOB_NOT_FOUND');
    assertError(await w.req('DELETE', `/api/v1/jobs/${id}/data?teamId=${w.ws}`), 400, 'VALIDATION_FAILED');
    assertError(await del(id, 'everything'), 400, 'VALIDATION_FAILED');
    assert.equal((await folder((await w.doc(id)).analysisResults.folderId)).status, 'ready');
  });
});
