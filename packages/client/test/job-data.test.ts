import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  ApiError,
  ConflictError,
  JobNotCompletedError,
  NoResultDirectoriesError,
  NotFoundError,
  RunyardValueError,
  type JobDocument,
} from '@runyard/client';
import { jobDataWorld, type JobDataWorld } from './job-data-world.js';

const STATUS5 = 'status=ready&status=deleted&status=deleting&status=scheduledForDeletion&status=failedToDelete';

// A bash job really runs (scheduler, local executor) and writes a log and results; the deletion
// worker really deletes. Every request goes through a recording proxy.
describe('SDK job data: logs, results, work directory, deletion and related jobs', { timeout: 300_000 }, () => {
  let w: JobDataWorld;
  let ws: string;
  let id: string;
  let doc: JobDocument;
  const folderOf = (d: JobDocument, key: 'analysisResults' | 'workDirectory') => (d[key] as { folderId: string }).folderId;

  before(async () => {
    w = await jobDataWorld();
    ws = w.ws;
    id = await w.runJob();
    doc = await w.client.getJobStatus(id, ws);
  });
  after(() => w?.close());

  it('get_job_logs: one listing of the logs prefix; the log file by display name with its s3:// URL', async () => {
    const n = w.proxy.requests.length;
    const logs = await w.client.getJobLogs(id, ws);
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${id}/logs&teamId=W`,
    ]);
    const url = `s3://${w.bucket}/${ws}/jobs/${id}/logs/stdout.txt`;
    assert.deepEqual(logs, { 'Nextflow standard output': url });
    assert.match(readFileSync(path.join(w.jobDir(id, 'logs'), 'stdout.txt'), 'utf8'), /sum is 5/);
  });

  it('get_job_results: the job twice, the results folder status, one listing; the results directory', async () => {
    const n = w.proxy.requests.length;
    const url = await w.client.getJobResults(id, ws);
    assert.equal(url, `s3://${w.bucket}/${ws}/jobs/${id}/results/results`);
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/folders/?id=${folderOf(doc, 'analysisResults')}&${STATUS5}&teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${id}/results&teamId=W`,
    ]);
    assert.equal(readFileSync(path.join(w.jobDir(id, 'results'), 'results', 'out.txt'), 'utf8'), 'hello results\n');
  });

  it('get_job_results: a job whose results hold only files has no result directory', async () => {
    const flat = await w.runJob('echo flat > "$RUNYARD_RESULTS_DIR/only.txt"', 'flat');
    await assert.rejects(w.client.getJobResults(flat, ws), (e: unknown) => {
      assert.ok(e instanceof NoResultDirectoriesError);
      assert.equal((e as Error).message, 'No result directories found for this job');
      return true;
    });
  });

  it('get_job_workdir: the folder status, then the folder; its s3:// URL', async () => {
    const n = w.proxy.requests.length;
    const url = await w.client.getJobWorkdir(id, ws);
    assert.equal(url, `s3://${w.bucket}/${ws}/jobs/${id}/work`);
    const folder = folderOf(doc, 'workDirectory');
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/folders/?id=${folder}&${STATUS5}&teamId=W`,
      `GET /api/v1/folders?id=${folder}&teamId=W`,
    ]);
  });

  it('get_storage_contents (aws): one level of the job prefix; a path with .. is refused before sending, and by the server', async () => {
    const contents = await w.client.getStorageContents('aws', {}, w.bucket, `${ws}/jobs/${id}`, ws);
    assert.deepEqual(contents.map((c) => [c.name, c.path, c.isDir]).sort(), [
      ['logs', `${ws}/jobs/${id}/logs`, true],
      ['results', `${ws}/jobs/${id}/results`, true],
      ['work', `${ws}/jobs/${id}/work`, true],
    ]);
    const n = w.proxy.requests.length;
    for (const p of [`${ws}/jobs/${id}/../../..`, '..', `${ws}/%2e%2e/x`, `${ws}/a\\..\\b`]) {
      await assert.rejects(w.client.getStorageContents('aws', {}, w.bucket, p, ws), RunyardValueError, p);
    }
    assert.equal(w.proxy.requests.length, n, 'nothing was sent');
    for (const p of [`${ws}/jobs/${id}/../..`, `${ws}/%2e%2e%2f%2e%2e`]) {
      const r = await w.client.rawRequest('GET', '/api/v1/data-access/s3/bucket-contents', {
        query: { bucket: w.bucket, path: p, teamId: ws },
      });
      assert.equal(r.status, 400, p);
      assert.equal((r.body as { code: string }).code, 'INVALID_STORAGE_PATH');
    }
    // On a server that keeps data in the local store, the Azure listing is not found.
    await assert.rejects(
      w.client.getStorageContents('azure', { storage: { storageAccount: 'acct' } }, w.bucket, ws, ws),
      (e: unknown) => e instanceof NotFoundError,
    );
  });

  it('get_parent_job and the related jobs of a working directory', async () => {
    const folder = folderOf(doc, 'workDirectory');
    let n = w.proxy.requests.length;
    const parent = await w.client.getParentJob(ws, folder);
    assert.equal(parent?.id, id);
    assert.equal(parent?.name, doc.name);
    assert.equal(parent?.status, doc.status);
    assert.equal(parent?.createdAt, doc.createdAt);
    const user = doc.user as { name: string; surname: string; email: string };
    assert.deepEqual(parent?.user, { name: user.name, surname: user.surname, email: user.email });
    assert.deepEqual(w.since(n), [`GET /api/v1/folders/?id=${folder}&status=ready&teamId=W`, `GET /api/v1/jobs/${id}?teamId=W`]);
    // A bash job has no related analyses, as on CloudOS (its work directory is its own)...
    assert.deepEqual(await w.client.getRelatedJobs(ws, folder, 2), {});
    // ...unless it was launched resumable (through the API; the public client never makes one): then its work directory is shared.
    await w.s.store.db.updateTable('jobs').set({ resumable: 1 }).where('id', '=', id).execute();
    n = w.proxy.requests.length;
    const related = await w.client.getRelatedJobs(ws, folder, 2);
    assert.deepEqual(w.since(n), [
      `GET /api/v2/jobs?limit=2&page=1&sort=-createdAt&archived.status=false&workDirectory.folderId=${folder}&teamId=W`,
    ]);
    assert.deepEqual(Object.keys(related), [id]);
    const r = related[id];
    assert.equal(r.status, 'completed');
    assert.equal(r.name, 'results-job');
    assert.equal(r.user_name, 'Admin');
    assert.equal(typeof r.runTime, 'number');
    // Its instance type's price for its run time, as on its job document.
    assert.equal(r.computeCostSpent, doc.computeCostSpent);
    assert.ok((r.computeCostSpent as number) > 0, String(r.computeCostSpent));
    await w.s.store.db.updateTable('jobs').set({ resumable: 0 }).where('id', '=', id).execute();
  });

  it('a job still running: no results yet; its work directory cannot be deleted (409 naming the job)', async () => {
    const running = await w.client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'sleep 30',
      jobName: 'long',
    });
    for (let i = 0; i < 200 && (await w.client.getJobStatus(running, ws)).status !== 'running'; i++) await sleep(50);
    try {
      await assert.rejects(w.client.getJobResults(running, ws), (e: unknown) => {
        assert.ok(e instanceof JobNotCompletedError && e instanceof RunyardValueError);
        assert.equal(
          (e as Error).message,
          `Job ${running} has status running. Results are only available for jobs with status "completed"`,
        );
        return true;
      });
      await assert.rejects(w.client.deleteJobResults(running, 'workDirectory', ws), (e: unknown) => {
        assert.ok(e instanceof ConflictError);
        assert.match((e as ApiError).serverMessage, /^Conflict\. The folder cannot be deleted due to a conflict/);
        assert.match((e as ApiError).serverMessage, new RegExp(`in use by job ${running}`));
        return true;
      });
    } finally {
      await w.client.abortJob(running, ws, true);
      await w.client.waitJobCompletion(running, ws, { waitTime: 30, requestInterval: 0.1 });
    }
  });

  it('delete_job_results (analysisResults): 204, the status moves to deleted, the blobs go, results are refused', async () => {
    const job = await w.runJob(undefined, 'to-delete');
    const d = await w.client.getJobStatus(job, ws);
    assert.ok(existsSync(path.join(w.jobDir(job, 'results'), 'results', 'out.txt')));
    const analyses = await analysesId();
    let n = w.proxy.requests.length;
    assert.deepEqual(await w.client.deleteJobResults(job, 'analysisResults', ws), {
      message: 'Results deleted successfully',
      status: 'deleted',
    });
    assert.deepEqual(w.since(n), [`DELETE /api/v1/jobs/${job}/data?properties[]=analysisResults&teamId=W`]);
    const folder = await w.waitFolderStatus(folderOf(d, 'analysisResults'), 'deleted');
    assert.equal((folder.deletedBy as { id: string }).id, w.s.admin.userId);
    assert.ok(!existsSync(path.join(w.jobDir(job, 'results'), 'results', 'out.txt')), 'the results are gone');
    assert.ok(existsSync(path.join(w.jobDir(job, 'logs'), 'stdout.txt')), 'the logs stay');

    n = w.proxy.requests.length;
    const status = await w.client.getResultsDeletionStatus(job, ws);
    assert.deepEqual(w.since(n), [
      `GET /api/v1/jobs/${job}?teamId=W`,
      'GET /api/v2/projects?teamId=W&search=demo',
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
      `GET /api/v1/datasets/${analyses}/items?${STATUS5}&teamId=W`,
    ]);
    assert.deepEqual(
      { ...status, items: undefined },
      {
        job_id: job,
        job_name: 'to-delete',
        results_folder_id: folderOf(d, 'analysisResults'),
        results_folder_name: `to-delete-${job}`,
        status: 'deleted',
        items: undefined,
      },
    );
    assert.deepEqual(Object.keys(status.items.deletedBy as object).sort(), ['email', 'id', 'name', 'surname']);

    await assert.rejects(w.client.getJobResults(job, ws), {
      name: 'RunyardValueError',
      message: 'Analysis results have been deleted. The results folder is no longer available.',
    });
    await assert.rejects(w.client.deleteJobResults(job, 'analysisResults', ws), (e: unknown) => {
      assert.ok(e instanceof ConflictError);
      assert.match((e as ApiError).serverMessage, /^Conflict\. /);
      return true;
    });
  });

  async function analysesId(): Promise<string> {
    const ds = await w.client.datasets(ws, 'demo', { projectId: w.projectId });
    return (await ds.listProjectContent()).folders.find((f) => f.name === 'Analyses Results')!._id!;
  }

  it('delete_job_results (workDirectory): the work directory status moves to deleted; workdir then says so', async () => {
    const job = await w.runJob('mkdir -p "$HOME/tmp" && echo scratch > "$HOME/tmp/scratch.txt"', 'wd');
    const d = await w.client.getJobStatus(job, ws);
    const folder = folderOf(d, 'workDirectory');
    let status = await w.client.getWorkdirDeletionStatus(job, ws);
    assert.equal(status.status, 'ready');
    assert.deepEqual(await w.client.deleteJobResults(job, 'workDirectory', ws), {
      message: 'Results deleted successfully',
      status: 'deleted',
    });
    await w.waitFolderStatus(folder, 'deleted');
    const n = w.proxy.requests.length;
    status = await w.client.getWorkdirDeletionStatus(job, ws);
    assert.deepEqual(w.since(n), [`GET /api/v1/jobs/${job}?teamId=W`, `GET /api/v1/folders/?id=${folder}&${STATUS5}&teamId=W`]);
    assert.equal(status.job_id, job);
    assert.equal(status.job_name, 'wd');
    assert.equal(status.workdir_folder_id, folder);
    assert.equal(status.workdir_folder_name, `wd-${job}-workdir`);
    assert.equal(status.status, 'deleted');
    assert.equal((status.items.deletedBy as { id: string }).id, w.s.admin.userId);
    assert.ok(
      !existsSync(w.jobDir(job, 'work')) || !existsSync(path.join(w.jobDir(job, 'work'), 'tmp', 'scratch.txt')),
      'the work files are gone',
    );
    await assert.rejects(w.client.getJobWorkdir(job, ws), {
      message: 'Intermediate job results have been deleted. The working directory is no longer available.',
    });
    // The folder (with status `deleted`) still names the job that made it.
    const items = await w.client.getFolderDeletionStatus(folder, ws);
    assert.equal(items[0].status, 'deleted');
  });

  it('get_job_workdir of a resumable job whose work directory is gone: a warning, then the logs-based path', async () => {
    const job = await w.client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'true',
      jobName: 'resumable',
    });
    assert.equal((await w.client.waitJobCompletion(job, ws, { waitTime: 60, requestInterval: 0.1 })).status, 'completed');
    // Bash jobs are not resumable; marked so here, the job stands in for a resumable Nextflow job.
    await w.s.store.db.updateTable('jobs').set({ resumable: 1 }).where('id', '=', job).execute();
    const d = await w.client.getJobStatus(job, ws);
    const folder = folderOf(d, 'workDirectory');
    assert.equal(d.resumeWorkDir, folder);
    assert.equal(await w.client.getJobWorkdir(job, ws), `s3://${w.bucket}/${ws}/jobs/${job}/work`);
    await w.client.deleteJobResults(job, 'workDirectory', ws);
    await w.waitFolderStatus(folder, 'deleted');
    const warnings: string[] = [];
    const n = w.proxy.requests.length;
    const url = await w.client.getJobWorkdir(job, ws, { warn: (m) => warnings.push(m) });
    assert.deepEqual(w.since(n), [`GET /api/v1/jobs/${job}?teamId=W`, `GET /api/v1/folders?id=${folder}&teamId=W`]);
    assert.equal(url, `s3://${w.bucket}/${ws}/jobs/${job}/work`);
    assert.deepEqual(warnings, [`Warning: Could not get shared workdir from folders API: Folder ${folder} was not found.`]);
  });

  it('get_folder_items_deletion_status lists the items of a dataset with their status', async () => {
    const items = await w.client.getFolderItemsDeletionStatus(await analysesId(), ws);
    const ours = items.folders.find((f) => String(f.name).endsWith(`-${id}`));
    assert.equal(ours?.status, 'ready');
    assert.ok(
      items.folders.some((f) => f.status === 'deleted'),
      'deleted folders are listed when asked for',
    );
  });

  it('refusals: an unknown job is 404 with the server message; a bad mode is refused before sending', async () => {
    const unknown = '0123456789abcdef01234567';
    await assert.rejects(w.client.deleteJobResults(unknown, 'analysisResults', ws), (e: unknown) => {
      assert.ok(e instanceof NotFoundError);
      assert.match((e as ApiError).serverMessage, new RegExp(unknown));
      return true;
    });
    const n = w.proxy.requests.length;
    await assert.rejects(w.client.deleteJobResults(id, 'everything' as never, ws), {
      message: "Invalid mode 'everything'. Supported modes are 'analysisResults' and 'workDirectory'.",
    });
    assert.equal(w.proxy.requests.length, n);
    await assert.rejects(w.client.getJobLogs(unknown, ws), (e: unknown) => e instanceof NotFoundError);
  });
});
