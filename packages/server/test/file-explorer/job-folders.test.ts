import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bashBody } from '../jobs/fixtures.js';
import { assertError, assertIsoTime } from '../wire.js';
import { explorerWorld, type ExplorerWorld } from './world.js';

const ALL = 'status=ready&status=deleted&status=deleting&status=scheduledForDeletion&status=failedToDelete';

describe('datasets and the folders of jobs', () => {
  let w: ExplorerWorld;
  before(async () => {
    w = await explorerWorld();
  });
  after(() => w.close());

  it('gives a project its three datasets, made once whatever the number of calls', async () => {
    const replies = await Promise.all([1, 2, 3].map(() => w.get(`/api/v2/datasets?projectId=${w.projectId}&teamId=${w.ws}`)));
    for (const r of replies) assert.equal(r.statusCode, 200, r.body);
    const { datasets } = replies[0].json();
    assert.deepEqual(
      datasets.map((d: { name: string }) => d.name),
      ['Analyses Results', 'Cohorts', 'Data'],
    );
    assert.deepEqual(
      datasets.map((d: { kind: string }) => d.kind),
      ['AnalysesResults', 'Cohorts', 'Data'],
    );
    for (const d of datasets) {
      assert.equal(d.folderType, true);
      assert.match(d._id, /^[0-9a-f]{24}$/);
      assert.deepEqual(d.project, { id: w.projectId });
      assertIsoTime(d.createdAt);
    }
    for (const r of replies.slice(1))
      assert.deepEqual(
        r.json().datasets.map((d: { _id: string }) => d._id),
        datasets.map((d: { _id: string }) => d._id),
      );
    const rows = await w.s.store.db.selectFrom('datasets').select('id').where('project_id', '=', w.projectId).execute();
    assert.equal(rows.length, 3);
  });

  it('refuses a project that is not in the workspace', async () => {
    assertError(await w.get(`/api/v2/datasets?projectId=0123456789abcdef01234567&teamId=${w.ws}`), 404, 'PROJECT_NOT_FOUND');
    assertError(await w.get(`/api/v2/datasets?projectId=../x&teamId=${w.ws}`), 400, 'VALIDATION_FAILED');
    assertError(await w.get(`/api/v2/datasets?teamId=${w.ws}`), 400, 'VALIDATION_FAILED');
  });

  it("registers a job's results and work directory at submission; the job document names them", async () => {
    const { id, doc } = await w.job({ name: 'align' });
    const ds = await w.datasets();
    assert.deepEqual(Object.keys(doc.analysisResults), ['folderId']);
    assert.deepEqual(Object.keys(doc.workDirectory), ['folderId']);
    assert.equal(doc.resumeWorkDir, null, 'not resumable');
    assert.deepEqual(doc.logs, { s3BucketName: `runyard-${w.ws}`, s3Prefix: `${w.ws}/jobs/${id}/logs` });

    const items = (await w.get(`/api/v1/datasets/${ds.AnalysesResults._id}/items?teamId=${w.ws}`)).json();
    const results = items.folders.find((f: { name: string }) => f.name === `align-${id}`);
    assert.ok(results, 'the results folder is under Analyses Results');
    assert.equal(results._id, doc.analysisResults.folderId);
    assert.deepEqual(Object.keys(results).sort(), [
      '_id',
      'createdAt',
      'folderType',
      'isManagedByLifebit',
      'kind',
      'name',
      'parent',
      's3BucketName',
      's3Prefix',
      'status',
      'team',
      'updatedAt',
      'user',
    ]);
    assert.equal(results.folderType, 'S3Folder');
    assert.equal(results.s3BucketName, `runyard-${w.ws}`);
    assert.equal(results.s3Prefix, `${w.ws}/jobs/${id}/results`);
    assert.equal(results.isManagedByLifebit, true);
    assert.equal(results.status, 'ready');
    assert.deepEqual(results.parent, { kind: 'Dataset', id: ds.AnalysesResults._id });
    assert.deepEqual(results.team, { id: w.ws });
    assert.equal(results.user.id, w.s.admin.userId);
    assert.deepEqual(Object.keys(results.user).sort(), ['email', 'id', 'name', 'surname']);
    assert.deepEqual(items.paginationMetadata, {
      'Pagination-Count': items.folders.length + items.files.length,
      'Pagination-Page': 1,
      'Pagination-Limit': 10000,
    });

    // get_parent_job: the work directory's parent is the job.
    const parent = await w.get(`/api/v1/folders/?id=${doc.workDirectory.folderId}&status=ready&teamId=${w.ws}`);
    assert.equal(parent.statusCode, 200);
    const [work] = parent.json();
    assert.deepEqual(work.parent, { kind: 'Job', id });
    assert.equal(work.s3Prefix, `${w.ws}/jobs/${id}/work`);
    assert.equal(work.folderType, 'S3Folder');
    // The work directory is not an item of Analyses Results: get_results_deletion_status picks the results folder by the job id.
    assert.equal(items.folders.filter((f: { name: string }) => f.name.includes(id)).length, 1);
  });

  it('names job folders validly whatever the job is called', async () => {
    const long = `${'a/b\\c'.repeat(40)}`;
    const { id, doc } = await w.job({ name: long });
    const [results] = (await w.get(`/api/v1/folders?id=${doc.analysisResults.folderId}&teamId=${w.ws}`)).json();
    assert.equal(results.name.length, 200);
    assert.ok(results.name.endsWith(`-${id}`));
    assert.ok(!/[/\\]/.test(results.name));
    const [work] = (await w.get(`/api/v1/folders?id=${doc.workDirectory.folderId}&teamId=${w.ws}`)).json();
    assert.ok(work.name.endsWith(`-${id}-workdir`) && work.name.length === 200);
  });

  it('answers the folders GET with and without the trailing slash, filtered by the repeated status key', async () => {
    const { doc } = await w.job({ name: 'filters' });
    const folderId = doc.analysisResults.folderId;
    for (const path of ['/api/v1/folders', '/api/v1/folders/']) {
      const one = await w.get(`${path}?id=${folderId}&teamId=${w.ws}`);
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().length, 1);
      assert.equal(one.json()[0]._id, folderId);
      const five = (await w.get(`${path}?id=${folderId}&${ALL}&teamId=${w.ws}`)).json();
      assert.equal(five[0].status, 'ready');
      assert.deepEqual((await w.get(`${path}?id=${folderId}&status=deleted&teamId=${w.ws}`)).json(), []);
      assert.deepEqual((await w.get(`${path}?id=${folderId}&status=deleting&status=deleted&teamId=${w.ws}`)).json(), []);
    }
    assertError(await w.get(`/api/v1/folders?id=${folderId}&status=gone&teamId=${w.ws}`), 400, 'VALIDATION_FAILED');
    assertError(await w.get(`/api/v1/folders?id=0123456789abcdef01234567&teamId=${w.ws}`), 404, 'FOLDER_NOT_FOUND');
    assertError(await w.get(`/api/v1/folders?teamId=${w.ws}`), 400, 'VALIDATION_FAILED');
  });

  it("finds every job sharing a work directory; a resumed job reuses its parent's work folder", async () => {
    const first = await w.job({ name: 'resumable', resumable: true });
    const workId = first.doc.workDirectory.folderId;
    assert.equal(first.doc.resumeWorkDir, workId, 'a resumable job names its work folder');
    await w.setStatus(first.id, 'failed');
    const resumed = await w.job({ name: 'resumed', resumable: true, resumeWorkDir: workId });
    assert.equal(resumed.doc.workDirectory.folderId, workId);
    assert.equal(resumed.doc.resumeWorkDir, workId);
    assert.notEqual(resumed.doc.analysisResults.folderId, first.doc.analysisResults.folderId, 'each job has its own results');
    const row = await w.s.store.db
      .selectFrom('jobs')
      .select(['work_bucket', 'work_prefix'])
      .where('id', '=', resumed.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { work_bucket: `runyard-${w.ws}`, work_prefix: `${w.ws}/jobs/${first.id}/work` });
    const related = (
      await w.get(`/api/v2/jobs?limit=100&page=1&sort=-createdAt&archived.status=false&workDirectory.folderId=${workId}&teamId=${w.ws}`)
    ).json();
    assert.deepEqual(
      related.jobs.map((j: { _id: string }) => j._id),
      [resumed.id, first.id],
    );
    // A folder that is not a work directory, or not of this workspace, cannot be resumed from.
    const r = await w.req('POST', `/api/v2/jobs?teamId=${w.ws}`, bashBody(w, { resumeWorkDir: first.doc.analysisResults.folderId }));
    assertError(r, 404, 'FOLDER_NOT_FOUND');
  });

  it('refuses a resume of a job not launched resumable (the public client copies its null resumeWorkDir) with 400, creating nothing', async () => {
    const plain = await w.job({ name: 'not-resumable' });
    assert.equal(plain.doc.resumeWorkDir, null, 'the key is there, null: what the public client copies into its resume');
    const count = async () =>
      Number(
        (
          await w.s.store.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    const r = await w.req('POST', `/api/v2/jobs?teamId=${w.ws}`, bashBody(w, { name: 'resume', resumeWorkDir: null }));
    const message = assertError(r, 400, 'VALIDATION_FAILED');
    assert.match(message, /Resume is allowed only for jobs launched resumable/);
    assert.equal(await count(), before);
  });

  it('refuses to resume from a work directory an unfinished job uses (409 FOLDER_IN_USE naming the job), creating nothing', async () => {
    const first = await w.job({ name: 'holder', resumable: true });
    const workId = first.doc.workDirectory.folderId;
    const resume = (name: string) =>
      w.req('POST', `/api/v2/jobs?teamId=${w.ws}`, bashBody(w, { name, resumable: true, resumeWorkDir: workId }));
    const count = async () =>
      (
        await w.s.store.db
          .selectFrom('jobs')
          .select((e) => e.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = Number(await count());
    await w.setStatus(first.id, 'running');
    const msg = assertError(await resume('too-early'), 409, 'FOLDER_IN_USE');
    assert.match(
      msg,
      new RegExp(`is in use by job ${first.id} \\("holder"\\), which is running; resume from it once that job has finished\\.$`),
    );
    assert.equal(Number(await count()), before, 'no job was created');
    await w.setStatus(first.id, 'failed');
    const resumed = await w.job({ name: 'resumed', resumable: true, resumeWorkDir: workId });
    // Now the resumed job holds the directory, whatever its state before it finishes.
    for (const status of ['queued', 'initializing', 'aborting']) {
      await w.setStatus(resumed.id, status);
      assert.match(
        assertError(await resume('second'), 409, 'FOLDER_IN_USE'),
        new RegExp(`in use by job ${resumed.id} \\("resumed"\\), which is ${status}`),
      );
    }
    await w.setStatus(resumed.id, 'completed');
    assert.equal((await resume('third')).statusCode, 200);
  });

  it("lists a dataset's or a virtual folder's items with the status filter, and storage folders from storage", async () => {
    const { id, doc } = await w.job({ name: 'listing' });
    w.writeJobFile(id, 'results/results/out.txt', 'out');
    w.writeJobFile(id, 'results/summary.txt', 'summary!');
    const items = (await w.get(`/api/v1/datasets/${doc.analysisResults.folderId}/items?teamId=${w.ws}`)).json();
    assert.deepEqual(
      items.folders.map((f: { name: string }) => f.name),
      ['results'],
    );
    assert.equal(items.folders[0].s3Prefix, `${w.ws}/jobs/${id}/results/results`);
    assert.equal(items.folders[0].folderType, 'S3Folder');
    assert.equal(items.files[0].name, 'summary.txt');
    assert.equal(items.files[0].s3ObjectKey, `${w.ws}/jobs/${id}/results/summary.txt`);
    assert.equal(items.files[0].sizeInBytes, 8);
    assert.ok(!('_id' in items.files[0]), 'items inside storage folders have no id');
    assert.equal(items.paginationMetadata['Pagination-Count'], 2);
    const deleted = (await w.get(`/api/v1/datasets/${doc.analysisResults.folderId}/items?status=deleted&teamId=${w.ws}`)).json();
    assert.deepEqual([deleted.folders, deleted.files], [[], []]);
    // A storage folder is not a virtual folder.
    assertError(await w.get(`/api/v1/folders/virtual/${doc.analysisResults.folderId}/items?teamId=${w.ws}`), 400, 'NOT_A_VIRTUAL_FOLDER');
    assertError(await w.get(`/api/v1/datasets/0123456789abcdef01234567/items?teamId=${w.ws}`), 404, 'FOLDER_NOT_FOUND');
    // Paging across folders then files.
    const ds = await w.datasets();
    const all = (await w.get(`/api/v1/datasets/${ds.AnalysesResults._id}/items?teamId=${w.ws}`)).json();
    const page2 = (await w.get(`/api/v1/datasets/${ds.AnalysesResults._id}/items?page=2&limit=2&teamId=${w.ws}`)).json();
    assert.deepEqual(
      page2.folders.map((f: { _id: string }) => f._id),
      all.folders.slice(2, 4).map((f: { _id: string }) => f._id),
    );
    assert.deepEqual(page2.paginationMetadata, {
      'Pagination-Count': all.paginationMetadata['Pagination-Count'],
      'Pagination-Page': 2,
      'Pagination-Limit': 2,
    });
  });
});
