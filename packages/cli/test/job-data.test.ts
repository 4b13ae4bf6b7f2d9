import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { jobDataWorld, type JobDataWorld } from '../../client/test/job-data-world.js';
import { connectionArgs } from './support/connection-args.js';
import { CLI, cliEnv, runCli, tempDir } from './support/run-cli.js';

const STATUS5 = 'status=ready&status=deleted&status=deleting&status=scheduledForDeletion&status=failedToDelete';
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** `job logs|results|workdir|related` through a recording proxy in front of a server that runs and deletes for real (wire-api §6). */
describe('runyard job logs, results, workdir and related', { timeout: 300_000 }, () => {
  let w: JobDataWorld;
  let ws: string;
  let id: string;
  let folders: { results: string; work: string };

  before(async () => {
    w = await jobDataWorld();
    ws = w.ws;
    id = await w.runJob();
    const doc = await w.client.getJobStatus(id, ws);
    folders = {
      results: (doc.analysisResults as { folderId: string }).folderId,
      work: (doc.workDirectory as { folderId: string }).folderId,
    };
  });
  after(() => w?.close());

  /** Runs the CLI through the proxy: its result and the requests it made (W for the workspace). */
  async function wire(args: string[], input?: string) {
    const n = w.proxy.requests.length;
    const r = await runCli([...args, ...connectionArgs(w.proxy.url, w.s.admin.apikey, ws)], { input });
    return { r, seq: w.since(n) };
  }

  it('job logs: the job, one listing of its logs; each file by display name with its URL', async () => {
    const { r, seq } = await wire(['job', 'logs', '--job-id', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${id}?teamId=W`, // its type: the label of its standard output
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${id}/logs&teamId=W`,
    ]);
    // A bash job's standard output is the job's own, not Nextflow's.
    assert.equal(r.stdout, `Job output (standard output): s3://${w.bucket}/${ws}/jobs/${id}/logs/stdout.txt\n`);
    const json = await wire(['job', 'logs', '--job-id', id, '--output-format', 'json']);
    assert.deepEqual(JSON.parse(json.r.stdout), { 'Job output (standard output)': `s3://${w.bucket}/${ws}/jobs/${id}/logs/stdout.txt` });
    const csv = await wire(['job', 'logs', '--job-id', id, '--output-format', 'csv']);
    assert.equal(csv.r.stdout, `name,url\nJob output (standard output),s3://${w.bucket}/${ws}/jobs/${id}/logs/stdout.txt\n`);
  });

  it('job results: the job twice, the results folder status, the listing; `results: <url>`', async () => {
    const { r, seq } = await wire(['job', 'results', '--job-id', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/folders/?id=${folders.results}&${STATUS5}&teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${id}/results&teamId=W`,
    ]);
    assert.equal(r.stdout, `results: s3://${w.bucket}/${ws}/jobs/${id}/results/results\n`);
  });

  it('job results and job workdir take --output-format json|csv, for the URL and for --status', async () => {
    const url = `s3://${w.bucket}/${ws}/jobs/${id}/results/results`;
    const json = await wire(['job', 'results', '--job-id', id, '--output-format', 'json']);
    assert.deepEqual(JSON.parse(json.r.stdout), { job_id: id, results: url });
    const csv = await wire(['job', 'results', '--job-id', id, '--output-format', 'csv']);
    assert.equal(csv.r.stdout, `job_id,results\n${id},${url}\n`);
    const workdir = await wire(['job', 'workdir', '--job-id', id, '--output-format', 'json']);
    assert.deepEqual(Object.keys(JSON.parse(workdir.r.stdout)), ['job_id', 'workdir']);
    const status = await wire(['job', 'workdir', '--job-id', id, '--status', '--output-format', 'json']);
    assert.equal(JSON.parse(status.r.stdout).status, 'ready');
    const statusCsv = await wire(['job', 'results', '--job-id', id, '--status', '--output-format', 'csv']);
    assert.match(statusCsv.r.stdout, new RegExp(`^job_id,status,updatedAt\n${id},ready,`));
  });

  it('job workdir: the job, the folder status, the folder; `Working directory for job J: <url>`', async () => {
    const { r, seq } = await wire(['job', 'workdir', '--job-id', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v1/folders/?id=${folders.work}&${STATUS5}&teamId=W`,
      `GET /api/v1/folders?id=${folders.work}&teamId=W`,
    ]);
    assert.equal(r.stdout, `Working directory for job ${id}: s3://${w.bucket}/${ws}/jobs/${id}/work\n`);
  });

  it('job results --status: the job, the projects search, the datasets, the items of Analyses Results with their status', async () => {
    const { r, seq } = await wire(['job', 'results', '--job-id', id, '--status', '--verbose']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(seq.length, 4, seq.join('\n'));
    assert.deepEqual(seq.slice(0, 3), [
      `GET /api/v1/jobs/${id}?teamId=W`,
      'GET /api/v2/projects?teamId=W&search=demo',
      `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`,
    ]);
    assert.match(seq[3], new RegExp(`^GET /api/v1/datasets/[0-9a-f]{24}/items\\?${STATUS5}&teamId=W$`));
    assert.match(r.stdout, new RegExp(`^The results of job ${id} are in status: available\n`));
    assert.match(r.stdout, new RegExp(`Results folder name: results-job-${id}\n`));
    assert.match(r.stdout, new RegExp(`Results folder ID: ${folders.results}\n`));
    assert.match(r.stdout, /Folder type: S3Folder\n/);
  });

  it('job workdir --status: the job, then the folder with its status', async () => {
    const { r, seq } = await wire(['job', 'workdir', '--job-id', id, '--status']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [`GET /api/v1/jobs/${id}?teamId=W`, `GET /api/v1/folders/?id=${folders.work}&${STATUS5}&teamId=W`]);
    assert.equal(r.stdout, `The working directory of job ${id} is in status: available\n`);
  });

  it('--delete without a terminal and without -y: refused (exit 2), nothing deleted; -y alone is ignored with a note', async () => {
    const { r, seq } = await wire(['job', 'results', '--job-id', id, '--delete']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Error: Refusing to delete without a confirmation: stdin is not a terminal\. Add -y \(--yes\)/);
    assert.ok(!seq.some((s) => s.startsWith('DELETE')), seq.join('\n'));
    const yes = await wire(['job', 'workdir', '--job-id', id, '-y']);
    assert.equal(yes.r.code, 0, yes.r.stderr);
    assert.match(yes.r.stderr, /'--yes' flag is ignored when '--delete' is not specified\./);
  });

  it('job results --delete -y: the lookup, then the DELETE; the folder moves to deleted and --status says so, with who', async () => {
    const job = await w.runJob(undefined, 'cli-delete');
    const doc = await w.client.getJobStatus(job, ws);
    const folder = (doc.analysisResults as { folderId: string }).folderId;
    const { r, seq } = await wire(['job', 'results', '--job-id', job, '--delete', '-y']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${job}?teamId=W`,
      `GET /api/v1/jobs/${job}?teamId=W`,
      `GET /api/v1/folders/?id=${folder}&${STATUS5}&teamId=W`,
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${job}/results&teamId=W`,
      `DELETE /api/v1/jobs/${job}/data?properties[]=analysisResults&teamId=W`,
    ]);
    assert.equal(
      r.stdout,
      `results: s3://${w.bucket}/${ws}/jobs/${job}/results/results\n` +
        `The results of job ${job} are being deleted; "runyard job results --job-id ${job} --status" shows when the deletion is done.\n`,
    );
    await w.waitFolderStatus(folder, 'deleted');
    assert.ok(!existsSync(path.join(w.jobDir(job, 'results'), 'results')), 'the blobs are gone');
    const status = await wire(['job', 'results', '--job-id', job, '--status']);
    assert.equal(status.r.code, 0, status.r.stderr);
    assert.match(
      status.r.stdout,
      new RegExp(
        `^The results of job ${job} are in status: deleted\nStatus changed at: \\d{4}-\\d\\d-\\d\\dT[^\n]+\nUser: Admin \\(admin@localhost\\)\n$`,
      ),
    );
    const again = await wire(['job', 'results', '--job-id', job]);
    assert.equal(again.r.code, 1);
    assert.match(
      again.r.stderr,
      new RegExp(
        `^Error: Failed to retrieve results for job '${job}'\\. Analysis results have been deleted\\. The results folder is no longer available\\.\n$`,
      ),
    );
  });

  it('job results --delete -y of a job whose results hold only files: a warning, and the results are still deleted', async () => {
    const job = await w.runJob('echo flat > "$RUNYARD_RESULTS_DIR/only.txt"', 'flat');
    const { r, seq } = await wire(['job', 'results', '--job-id', job, '--delete', '-y']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: No result directories found for this job\n/);
    assert.equal(seq.at(-1), `DELETE /api/v1/jobs/${job}/data?properties[]=analysisResults&teamId=W`);
    assert.match(r.stdout, /^The results of job [0-9a-f]{24} are being deleted; /);
    const plain = await wire(['job', 'results', '--job-id', job]);
    assert.equal(plain.r.code, 1);
  });

  it('job workdir --delete -y: the lookup, then the DELETE of the work directory', async () => {
    const job = await w.runJob('echo work', 'cli-wd');
    const doc = await w.client.getJobStatus(job, ws);
    const folder = (doc.workDirectory as { folderId: string }).folderId;
    const { r, seq } = await wire(['job', 'workdir', '--job-id', job, '--delete', '--yes']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${job}?teamId=W`,
      `GET /api/v1/folders/?id=${folder}&${STATUS5}&teamId=W`,
      `GET /api/v1/folders?id=${folder}&teamId=W`,
      `DELETE /api/v1/jobs/${job}/data?properties[]=workDirectory&teamId=W`,
    ]);
    // One message, on stdout, that says what happens: the deletion has started.
    assert.equal(
      r.stdout.split('\n').slice(1).join('\n'),
      `The working directory of job ${job} is being deleted; "runyard job workdir --job-id ${job} --status" shows when the deletion is done.\n`,
    );
    assert.equal(r.stderr, '');
    await w.waitFolderStatus(folder, 'deleted');
    const status = await wire(['job', 'workdir', '--job-id', job, '--status']);
    assert.match(status.r.stdout, new RegExp(`^The working directory of job ${job} is in status: deleted\n`));
    const gone = await wire(['job', 'workdir', '--job-id', job]);
    assert.equal(gone.r.code, 1);
    assert.match(gone.r.stderr, /Intermediate job results have been deleted\. The working directory is no longer available\./);
  });

  it('a refused deletion keeps the server message; an unknown job is not found; a running job has no results yet', async () => {
    const deleted = await w.runJob(undefined, 'twice');
    await w.client.deleteJobResults(deleted, 'workDirectory', ws);
    const twice = await wire(['job', 'workdir', '--job-id', deleted, '--delete', '-y']);
    assert.equal(twice.r.code, 1);
    // The first deletion may still be under way (the deletion worker) or done: either way the refusal says which.
    assert.match(
      twice.r.stderr,
      /Error: Failed to retrieve the working directory for job|Intermediate job results have been|Intermediate job results are currently being deleted/,
    );
    const unknown = '0123456789abcdef01234567';
    const r = await wire(['job', 'logs', '--job-id', unknown]);
    assert.equal(r.r.code, 1);
    assert.match(r.r.stderr, new RegExp(`^Error: Job '${unknown}' not found or not accessible\\. .*\\(HTTP 404\\)\n$`));
    const running = await w.client.sendJob({
      workspaceId: ws,
      projectName: 'demo',
      workflowName: 'ubuntu',
      workflowType: 'docker',
      command: 'sleep 30',
      jobName: 'long',
    });
    try {
      for (let i = 0; i < 200 && (await w.client.getJobStatus(running, ws)).status !== 'running'; i++) await sleep(50);
      const res = await wire(['job', 'results', '--job-id', running]);
      assert.equal(res.r.code, 1);
      assert.equal(
        res.r.stderr,
        `Error: Failed to retrieve results for job '${running}'. Job ${running} has status running. Results are only available for jobs with status "completed"\n`,
      );
      const wd = await wire(['job', 'workdir', '--job-id', running, '--delete', '-y']);
      assert.equal(wd.r.code, 1);
      assert.match(wd.r.stderr, new RegExp(`Conflict\\. The folder cannot be deleted due to a conflict.*in use by job ${running}`));
    } finally {
      await w.client.abortJob(running, ws, true);
      await w.client.waitJobCompletion(running, ws, { waitTime: 30, requestInterval: 0.1 });
    }
  });

  it('job related: the job, the jobs of its working directory, its parent; a table, or json', async () => {
    // A bash job has no related analyses, as on CloudOS (its work directory is its own)...
    const none = await wire(['job', 'related', '--job-id', id]);
    assert.equal(none.r.code, 0, none.r.stderr);
    assert.match(none.r.stderr, /Total related analyses found: 0\n/);
    // ...unless it was launched resumable (through the API; the public client never makes one): then its work directory is shared.
    await w.s.store.db.updateTable('jobs').set({ resumable: 1 }).where('id', '=', id).execute();
    const { r, seq } = await wire(['job', 'related', '--job-id', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      `GET /api/v1/jobs/${id}?teamId=W`,
      `GET /api/v2/jobs?limit=100&page=1&sort=-createdAt&archived.status=false&workDirectory.folderId=${folders.work}&teamId=W`,
      `GET /api/v1/folders/?id=${folders.work}&status=ready&teamId=W`,
      `GET /api/v1/jobs/${id}?teamId=W`,
    ]);
    assert.match(
      r.stderr,
      new RegExp(`Parent job link: ${w.proxy.url}/app/advanced-analytics/analyses/${id} \\(${id}, "[^"]+", \\w+\\)\n`),
    );
    assert.match(r.stderr, /Total related analyses found: 1\n/);
    assert.match(
      r.stdout,
      new RegExp(`^completed\tresults-job\tAdmin\t${id}\t\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\t\\d+s\t\\$0\\.0000\n$`),
    );
    const json = await wire(['job', 'related', '--job-id', id, '--output-format', 'json']);
    const map = JSON.parse(json.r.stdout);
    assert.deepEqual(Object.keys(map), [id]);
    assert.deepEqual(Object.keys(map[id]).sort(), [
      '_id',
      'computeCostSpent',
      'createdAt',
      'name',
      'runTime',
      'status',
      'user_name',
      'user_surname',
    ]);
    await w.s.store.db.updateTable('jobs').set({ resumable: 0 }).where('id', '=', id).execute();
  });

  describe('on a terminal', { skip: !hasScript && 'needs util-linux script' }, () => {
    /** Runs the CLI on a pseudo-terminal and types `answer` once the question shows. */
    function onTerminal(args: string[], answer: string): Promise<{ code: number | null; output: string }> {
      const command = [process.execPath, CLI, ...args, ...connectionArgs(w.proxy.url, w.s.admin.apikey, ws)].map((a) => `'${a}'`).join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: cliEnv(tempDir('runyard-home-')),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let output = '';
      let typed = false;
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString();
        if (!typed && /\[y\/n\] /.test(output)) {
          typed = true;
          child.stdin.write(`${answer}\r`);
        }
      });
      child.stderr.resume();
      return new Promise((resolve) =>
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, output });
        }),
      );
    }

    it('asks before deleting: n cancels, y deletes', async () => {
      const job = await w.runJob(undefined, 'tty');
      let n = w.proxy.requests.length;
      const no = await onTerminal(['job', 'results', '--job-id', job, '--delete'], 'n');
      assert.equal(no.code, 0, no.output);
      assert.match(no.output, /Deleting final analysis results is irreversible\./);
      assert.match(no.output, /Deletion cancelled\./);
      assert.ok(!w.since(n).some((s) => s.startsWith('DELETE')));
      n = w.proxy.requests.length;
      const yes = await onTerminal(['job', 'workdir', '--job-id', job, '--delete'], 'y');
      assert.equal(yes.code, 0, yes.output);
      assert.match(yes.output, /will no longer be resumable/);
      assert.match(yes.output, /The working directory of job [0-9a-f]{24} is being deleted;/);
      assert.deepEqual(
        w.since(n).filter((s) => s.startsWith('DELETE')),
        [`DELETE /api/v1/jobs/${job}/data?properties[]=workDirectory&teamId=W`],
      );
    });
  });
});
