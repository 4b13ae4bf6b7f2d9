import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobDataWorld, type JobDataWorld } from '../../client/test/job-data-world.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir } from './support/run-cli.js';

/** `runyard datasets ...` through a recording proxy in front of a real server whose job wrote real results (wire-api §2.6, §6). */
describe('runyard datasets ls|mkdir|upload|rename|mv|cp|rm', { timeout: 300_000 }, () => {
  let w: JobDataWorld;
  let ws: string;
  let jobId: string;
  let ids: Record<string, string>;
  const work = tempDir('runyard-datasets-');
  const jf = () => `results-job-${jobId}`;

  before(async () => {
    w = await jobDataWorld();
    ws = w.ws;
    jobId = await w.runJob();
    const ds = await w.client.datasets(ws, 'demo');
    ids = Object.fromEntries((await ds.listProjectContent()).folders.map((f) => [f.name, f._id!]));
  });
  after(() => w?.close());

  async function wire(args: string[]) {
    const n = w.proxy.requests.length;
    const r = await runCli([...args, '--project-name', 'demo', ...connectionArgs(w.proxy.url, w.s.admin.apikey, ws)], { cwd: work });
    return { r, seq: w.since(n) };
  }
  const SEARCH = 'GET /api/v2/projects?teamId=W&search=demo';
  const DATASETS = () => `GET /api/v2/datasets?projectId=${w.projectId}&teamId=W`;
  const ITEMS = (name: string) => `GET /api/v1/datasets/${ids[name]}/items?teamId=W`;

  it('ls: the projects search, the datasets; names one per line', async () => {
    const { r, seq } = await wire(['datasets', 'ls']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [SEARCH, DATASETS()]);
    assert.equal(r.stdout, 'Analyses Results\nCohorts\nData\n');
  });

  it("ls AnalysesResults --details: the dataset's items, with type, owner, size, time, name and storage path", async () => {
    const { r, seq } = await wire(['datasets', 'ls', 'AnalysesResults', '--details']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [SEARCH, DATASETS(), ITEMS('Analyses Results')]);
    const [row] = r.stdout.split('\n').filter((l) => l.includes(jf()));
    const cells = row.split('\t');
    assert.deepEqual(
      [cells[0], cells[1], cells[2], cells[4], cells[5]],
      ['s3 folder', 'Admin', '-', jf(), `s3://${w.bucket}/${ws}/jobs/${jobId}/results`],
    );
    assert.match(cells[3], /^\d{4}-\d\d-\d\dT/);
  });

  it("ls of a job's results folder goes through the bucket listing; csv gives names and storage paths", async () => {
    const { r, seq } = await wire(['datasets', 'ls', `Analyses Results/${jf()}`, '--output-format', 'csv']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      SEARCH,
      DATASETS(),
      ITEMS('Analyses Results'),
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${jobId}/results&teamId=W`,
    ]);
    assert.equal(
      r.stdout,
      `Name,Storage Path\nsummary.txt,s3://${w.bucket}/${ws}/jobs/${jobId}/results/summary.txt\nresults,s3://${w.bucket}/${ws}/jobs/${jobId}/results/results\n`,
    );
    const missing = await wire(['datasets', 'ls', 'AnalysesResults/none']);
    assert.equal(missing.r.code, 1);
    assert.equal(
      missing.r.stderr,
      "Error: Failed to list files for project 'demo'. Folder 'none' not found under dataset 'AnalysesResults'\n",
    );
  });

  let inputsId = '';
  let uploadedId = '';

  it('mkdir: the parent found in its parent, one POST', async () => {
    const { r, seq } = await wire(['datasets', 'mkdir', 'Data/inputs']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [SEARCH, DATASETS(), 'POST /api/v1/folders/virtual?teamId=W']);
    assert.equal(r.stdout, "Folder 'inputs' created under 'Data'\n");
    assert.match(r.stderr, /Creating folder 'inputs' under 'Data' \(Dataset\)\.\.\./);
    const ds = await w.client.datasets(ws, 'demo');
    inputsId = (await ds.findFolder('Data/inputs'))._id!;
    const nested = await wire(['datasets', 'mkdir', 'Data/inputs/deeper']);
    assert.equal(nested.r.code, 0, nested.r.stderr);
    assert.deepEqual(nested.seq, [SEARCH, DATASETS(), ITEMS('Data'), 'POST /api/v1/folders/virtual?teamId=W']);
    assert.match(nested.r.stderr, /\(Folder\)/);
  });

  it('upload: streams a local file into a virtual folder of Data; the new id on stdout', async () => {
    const local = path.join(work, 'reads.csv');
    writeFileSync(local, 'sample,reads\ns1,100\n');
    const { r, seq } = await wire(['datasets', 'upload', local, 'Data/inputs']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      SEARCH,
      DATASETS(),
      ITEMS('Data'),
      `POST /api/runyard/datasets/upload?teamId=W&projectId=${w.projectId}&parentId=${inputsId}&name=reads.csv`,
    ]);
    uploadedId = r.stdout.trim();
    assert.match(uploadedId, /^[0-9a-f]{24}$/);
    assert.match(r.stderr, /File 'reads\.csv' \(20 B\) uploaded to 'Data\/inputs'\./);
    const top = await wire(['datasets', 'upload', local, 'Data', '--name', 'top.csv']);
    assert.equal(top.r.code, 0, top.r.stderr);
    assert.deepEqual(top.seq, [SEARCH, `POST /api/runyard/datasets/upload?teamId=W&projectId=${w.projectId}&name=top.csv`]);
    const ls = await wire(['datasets', 'ls', 'Data/inputs']);
    assert.deepEqual(ls.seq, [SEARCH, DATASETS(), ITEMS('Data'), `GET /api/v1/folders/virtual/${inputsId}/items?teamId=W`]);
    assert.equal(ls.r.stdout, 'reads.csv\ndeeper\n');
  });

  it('rename: the parent listed, one PUT', async () => {
    const { r, seq } = await wire(['datasets', 'rename', 'Data/inputs/reads.csv', 'samples.csv']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      SEARCH,
      DATASETS(),
      ITEMS('Data'),
      `GET /api/v1/folders/virtual/${inputsId}/items?teamId=W`,
      `PUT /api/v1/files/${uploadedId}?teamId=W`,
    ]);
    assert.equal(r.stdout, "File 'reads.csv' renamed to 'samples.csv' in folder 'Data/inputs'.\n");
  });

  it('mv: two project searches, the source parent, the destination parent, one PUT', async () => {
    const { r, seq } = await wire(['datasets', 'mv', 'Data/inputs/samples.csv', 'Data']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seq, [
      SEARCH,
      SEARCH,
      DATASETS(),
      ITEMS('Data'),
      `GET /api/v1/folders/virtual/${inputsId}/items?teamId=W`,
      DATASETS(),
      'PUT /api/v1/dataItems/move?teamId=W',
    ]);
    assert.equal(r.stdout, "File 'samples.csv' moved to 'Data' in project 'demo'.\n");
    const back = await wire(['datasets', 'mv', 'Data/samples.csv', 'Data/inputs']);
    assert.equal(back.r.code, 0, back.r.stderr);
    assert.deepEqual(back.seq, [
      SEARCH,
      SEARCH,
      DATASETS(),
      ITEMS('Data'),
      DATASETS(),
      ITEMS('Data'),
      'PUT /api/v1/dataItems/move?teamId=W',
    ]);
  });

  it("cp: a file and a folder of a job's results into Data (S3 copies), and a virtual folder", async () => {
    const file = await wire(['datasets', 'cp', `AnalysesResults/${jf()}/summary.txt`, 'Data/inputs']);
    assert.equal(file.r.code, 0, file.r.stderr);
    assert.deepEqual(file.seq, [
      SEARCH,
      SEARCH,
      DATASETS(),
      ITEMS('Analyses Results'),
      `GET /api/v1/data-access/s3/bucket-contents?bucket=runyard-W&path=W/jobs/${jobId}/results&teamId=W`,
      DATASETS(),
      ITEMS('Data'),
      'POST /api/v1/files/s3?teamId=W',
    ]);
    assert.equal(file.r.stdout, 'Item copied successfully.\n');
    assert.match(file.r.stderr, /Copying file 'summary\.txt' to 'Data\/inputs'\.\.\./);
    const folder = await wire(['datasets', 'cp', `AnalysesResults/${jf()}`, 'Data']);
    assert.equal(folder.r.code, 0, folder.r.stderr);
    assert.deepEqual(folder.seq, [SEARCH, SEARCH, DATASETS(), ITEMS('Analyses Results'), DATASETS(), 'POST /api/v1/folders/s3?teamId=W']);
    const intoItself = await wire(['datasets', 'cp', 'Data/inputs', 'Data/inputs/deeper']);
    assert.equal(intoItself.r.code, 1);
    assert.equal(intoItself.r.stderr.split('\n').at(-2), 'Error: Copy operation failed. "inputs" cannot be copied into itself. (HTTP 400)');
    assert.equal((await wire(['datasets', 'mkdir', 'Data/copies'])).r.code, 0);
    const virtual = await wire(['datasets', 'cp', 'Data/inputs', 'Data/copies']);
    assert.equal(virtual.r.code, 0, virtual.r.stderr);
    assert.equal(virtual.seq.at(-1), 'POST /api/v1/folders/virtual?teamId=W');
    const ls = await wire(['datasets', 'ls', 'Data/copies/inputs']);
    assert.equal(ls.r.stdout, 'samples.csv\nsummary.txt\ndeeper\n');
    const intoS3 = await wire(['datasets', 'cp', 'Data/inputs/samples.csv', `Data/${jf()}`]);
    assert.equal(intoS3.r.code, 1);
    assert.match(intoS3.r.stderr, /The destination is an S3 folder, and only virtual folders can be selected as valid copy destinations\./);
    const mvIntoS3 = await wire(['datasets', 'mv', 'Data/inputs/samples.csv', `Data/${jf()}`]);
    assert.equal(mvIntoS3.r.code, 1);
    assert.match(
      mvIntoS3.r.stderr,
      new RegExp(
        `Unable to move item 'samples\\.csv' to 'Data/${jf()}'\\. The destination is an S3 folder, and only virtual folders can be selected as valid move destinations\\.`,
      ),
    );
    assert.ok(!mvIntoS3.seq.some((s) => s.startsWith('PUT')));
  });

  it('rm: a file, a folder; items Runyard manages only with --force; items inside a storage folder never', async () => {
    const file = await wire(['datasets', 'rm', 'Data/inputs/summary.txt']);
    assert.equal(file.r.code, 0, file.r.stderr);
    assert.equal(file.seq.at(-1)?.replace(/[0-9a-f]{24}/, 'ID'), 'DELETE /api/v1/files/ID?teamId=W');
    assert.deepEqual(file.seq.slice(0, -1), [SEARCH, DATASETS(), ITEMS('Data'), `GET /api/v1/folders/virtual/${inputsId}/items?teamId=W`]);
    assert.equal(file.r.stdout, "File 'summary.txt' was removed from 'Data/inputs'.\n");
    assert.match(file.r.stderr, /This item will still be available on your Cloud Provider\./);

    const inside = await wire(['datasets', 'rm', `Data/${jf()}/summary.txt`]);
    assert.equal(inside.r.code, 1);
    assert.match(
      inside.r.stderr,
      /Item 'summary\.txt' could not be removed as the parent folder is an s3 folder and their content cannot be modified\./,
    );

    // A folder pointing into a job's results is a reference: removed, the job's results kept.
    const reference = await wire(['datasets', 'rm', `Data/${jf()}`]);
    assert.equal(reference.r.code, 0, reference.r.stderr);
    assert.match(reference.seq.at(-1)!, /^DELETE \/api\/v1\/folders\/[0-9a-f]{24}\?teamId=W$/);
    assert.equal(reference.r.stdout, `Folder '${jf()}' was removed from 'Data'.\n`);
    assert.match(reference.r.stderr, /This item will still be available on your Cloud Provider\./);
    const results = await w.client.getJobResults(jobId, ws);
    assert.ok(results.endsWith('/results/results'));

    // An upload is managed: only with --force, and then it is deleted from storage.
    const managed = await wire(['datasets', 'rm', 'Data/top.csv']);
    assert.equal(managed.r.code, 1);
    assert.match(
      managed.r.stderr,
      /By removing this file, it will be permanently deleted\. If you want to go forward, please use the --force flag\./,
    );
    assert.ok(!managed.seq.some((s) => s.startsWith('DELETE')));
    const forced = await wire(['datasets', 'rm', 'Data/top.csv', '--force']);
    assert.equal(forced.r.code, 0, forced.r.stderr);
    assert.match(forced.seq.at(-1)!, /^DELETE \/api\/v1\/files\/[0-9a-f]{24}\?teamId=W&force=true$/);
    assert.equal(forced.r.stdout, "File 'top.csv' was permanently deleted from 'Data'.\n");

    // A virtual folder that holds an upload: the server asks for force, as the upload goes with it.
    const holding = await wire(['datasets', 'rm', 'Data/inputs']);
    assert.equal(holding.r.code, 1);
    assert.match(holding.r.stderr, /holds "[^"]+", which is managed by Runyard/);
    const folder = await wire(['datasets', 'rm', 'Data/inputs', '--force']);
    assert.equal(folder.r.code, 0, folder.r.stderr);
    assert.equal(folder.r.stdout, "Folder 'inputs' was removed from 'Data'.\n");
    assert.match(folder.r.stderr, /Files uploaded into it were deleted from storage/);
    const missing = await wire(['datasets', 'rm', 'Data/inputs']);
    assert.equal(missing.r.code, 1);
    assert.equal(missing.r.stderr, "Error: Item 'inputs' not found in 'Data'\n");
  });

  it('paths are checked before anything is sent (exit 2): Data where cloudos-cli requires it, no traversal (T9)', async () => {
    const local = path.join(work, 'x.txt');
    writeFileSync(local, 'x');
    const cases: Array<[string[], RegExp]> = [
      [['datasets', 'ls', 'Data/../Cohorts'], /'\.\.' is not a folder or file name/],
      [['datasets', 'ls', 'Data/%2e%2e/x'], /is not a folder or file name/],
      [['datasets', 'mv', 'Cohorts/x', 'Data'], /SOURCE_PATH must start with 'Data\/' or be 'Data'\./],
      [['datasets', 'mv', 'Data/x', 'Cohorts'], /Destination path must begin with 'Data\/' or be 'Data'\./],
      [['datasets', 'mv', 'Data/../Cohorts/x', 'Data'], /is not a folder or file name/],
      [['datasets', 'rename', 'Cohorts/x', 'y'], /SOURCE_PATH must start with 'Data\/', pointing to a file or folder in that dataset\./],
      [['datasets', 'rename', 'Data/x', '../y'], /Invalid name '\.\.\/y'/],
      [['datasets', 'cp', 'Data/x', 'Cohorts'], /DESTINATION_PATH must start with 'Data\/'\./],
      [['datasets', 'cp', 'AnalysesResults/../../x', 'Data'], /is not a folder or file name/],
      [['datasets', 'mkdir', 'Cohorts/x'], /NEW_FOLDER_PATH must start with 'Data'\./],
      [['datasets', 'mkdir', 'Data'], /NEW_FOLDER_PATH must include at least a parent folder and the new folder name\./],
      [['datasets', 'mkdir', 'Data/..'], /is not a folder or file name/],
      [['datasets', 'rm', 'Data'], /TARGET_PATH must start with 'Data\/', pointing to a file or folder\./],
      [['datasets', 'rm', 'Data/a/../../x'], /is not a folder or file name/],
      [['datasets', 'upload', local, 'Cohorts'], /DEST_PATH must start with 'Data\/' or be 'Data'\./],
      [['datasets', 'upload', local, 'Data/../x'], /is not a folder or file name/],
      [['datasets', 'upload', local, 'Data', '--name', '..'], /Invalid name '\.\.'/],
      [['datasets', 'upload', path.join(work, 'absent.txt'), 'Data'], /does not exist/],
    ];
    for (const [args, message] of cases) {
      const { r, seq } = await wire(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.deepEqual(seq, [], `${args.join(' ')} sent nothing`);
    }
  });
});
