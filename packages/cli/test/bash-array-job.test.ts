import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli, tempDir } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;

// `runyard bash array-job`, as cloudos-cli's: the array file is found in the File Explorer, its
// columns come from GET /api/v1/jobs/array-file/metadata, and the body carries arrayFile and the
// arrayFileColumn parameters (wire-api §2.2, §2.3).
describe('runyard bash array-job', { timeout: 300_000 }, () => {
  let w: JobWorld;
  const ids: Record<string, string> = {};
  let dir = '';
  before(async () => {
    w = await jobWorld();
    dir = tempDir('runyard-array-job-');
    const files: Record<string, string> = {
      'samples.csv': 'id,title,reads\n1,first,a.fq\n2,second,b.fq\n',
      'samples.tsv': 'id\ttitle\n1\tfirst\n',
      'run.sh': 'echo "$@"\n',
    };
    const datasets = await w.client.datasets(w.ws, 'demo');
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(path.join(dir, name), text);
      ids[name] = (await datasets.uploadFile(path.join(dir, name), 'Data'))._id;
    }
  });
  after(async () => {
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (args: string[]) => runCli([...args, ...w.conn]);
  const arrayJob = ['bash', 'array-job', '--project-name', 'demo', '--workflow-name', 'ubuntu'];
  const jobCount = async () => (await w.client.getJobList(w.ws, { lastNJobs: 'all' })).jobs.length;
  const payload = async (id: string) => w.client.getJobRequestPayload(id, w.ws);

  it('--list-columns prints the columns of the array file and runs nothing', async () => {
    const before = await jobCount();
    const r = await run(['bash', 'array-job', '--project-name', 'demo', '--array-file', 'Data/samples.csv', '--list-columns']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Columns of Data/samples.csv:\n  id\n  title\n  reads\n');
    const tab = await run([
      'bash',
      'array-job',
      '--project-name',
      'demo',
      '--array-file',
      'Data/samples.tsv',
      '--separator',
      'tab',
      '--list-columns',
    ]);
    assert.equal(tab.code, 0, tab.stderr);
    assert.equal(tab.stdout, 'Columns of Data/samples.tsv:\n  id\n  title\n');
    assert.equal(await jobCount(), before);
  });

  it('submits arrayFile and one arrayFileColumn parameter per -a, with the column index from the header', async () => {
    const r = await run([
      ...arrayJob,
      '--array-file',
      'Data/samples.csv',
      '--command',
      'echo',
      '-a',
      '--sample=id',
      '-a',
      'reads=reads',
      '-p',
      '--fixed=x',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, ID);
    assert.match(r.stderr, new RegExp(`^Array job "new_job" launched: .*/analyses/${id}\\n`));
    const body = await payload(id);
    assert.equal(body.command, 'echo');
    assert.deepEqual(body.arrayFile, { dataItem: { kind: 'File', item: ids['samples.csv'] }, separator: ',' });
    assert.equal(body.customScriptFile, undefined);
    assert.deepEqual(body.parameters, [
      { prefix: '--', name: 'fixed', parameterKind: 'textValue', textValue: 'x' },
      { prefix: '--', name: 'sample', parameterKind: 'arrayFileColumn', columnName: 'id', columnIndex: 0 },
      { prefix: '', name: 'reads', parameterKind: 'arrayFileColumn', columnName: 'reads', columnIndex: 2 },
    ]);
  });

  it('an array job runs to completion (one task per row), and its clone runs the same rows again', async () => {
    const r = await run([
      ...arrayJob,
      '--array-file',
      'Data/samples.csv',
      '--command',
      'printf "%s\\n" "$RUNYARD_PARAM_SAMPLE" > "$RUNYARD_RESULTS_DIR/$RUNYARD_ARRAY_INDEX.txt"; true',
      '-a',
      '--sample=title',
      '--wait-completion',
      '--request-interval',
      '0.1',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    const job = await w.client.getJobStatus(id, w.ws);
    assert.deepEqual(job.arrayTasks, { total: 2, queued: 0, running: 0, completed: 2, failed: 0, atOnce: 2 });
    const details = await run(['job', 'details', '--job-id', id]);
    assert.equal(details.code, 0, details.stderr);
    assert.match(details.stdout, /Array tasks\s+2 completed, 0 running, 0 queued, 0 failed of 2 \(2 at a time\)/);
    const clone = await run(['job', 'clone', '--job-id', id, '--wait-completion', '--request-interval', '0.1']);
    assert.equal(clone.code, 0, clone.stderr);
    const cloneId = clone.stdout.trim();
    assert.notEqual(cloneId, id);
    assert.deepEqual((await payload(cloneId)).arrayFile, (await payload(id)).arrayFile);
    const cloned = await w.client.getJobStatus(cloneId, w.ws);
    assert.deepEqual(cloned.arrayTasks, { total: 2, queued: 0, running: 0, completed: 2, failed: 0, atOnce: 2 });
    // Bash jobs are never resumable (wire-api §2.2: resumable is false for them), arrays included: resume says so.
    const resume = await run(['job', 'resume', '--job-id', id]);
    assert.notEqual(resume.code, 0);
    assert.match(resume.stderr, /The job was not set as resumable when originally run/);
  });

  it('--custom-script-path sends the script file and its name as the command; --separator tab is sent as tab', async () => {
    const r = await run([
      ...arrayJob,
      '--array-file',
      'Data/samples.tsv',
      '--separator',
      'tab',
      '--custom-script-path',
      'Data/run.sh',
      '-a',
      '-t=title',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const body = await payload(r.stdout.trim());
    assert.equal(body.command, 'run.sh');
    assert.deepEqual(body.customScriptFile, { dataItem: { kind: 'File', item: ids['run.sh'] } });
    assert.deepEqual(body.arrayFile, { dataItem: { kind: 'File', item: ids['samples.tsv'] }, separator: 'tab' });
    assert.deepEqual(body.parameters, [{ prefix: '-', name: 't', parameterKind: 'arrayFileColumn', columnName: 'title', columnIndex: 1 }]);
  });

  it('refuses a column the header lacks (exit 2, naming the columns); with --disable-column-check the server does (exit 1); nothing is submitted', async () => {
    const before = await jobCount();
    const r = await run([...arrayJob, '--array-file', 'Data/samples.csv', '--command', 'echo', '-a', '--sample=sample_id']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /Column 'sample_id' not found in the array file\. Columns in the array file: id, title, reads/);
    assert.equal(await jobCount(), before);
    const unchecked = await run([
      ...arrayJob,
      '--array-file',
      'Data/samples.csv',
      '--command',
      'echo',
      '-a',
      '--sample=sample_id',
      '--disable-column-check',
    ]);
    // Unchecked here, the column reaches the server, which checks it against the file and refuses it.
    assert.equal(unchecked.code, 1, unchecked.stderr);
    assert.match(unchecked.stderr, /parameter "sample" takes the column "sample_id", which its header lacks \(columns: id, title, reads\)/);
    assert.ok(!unchecked.stderr.includes("Column 'sample_id' not found"), 'the CLI checked the column');
    assert.equal(await jobCount(), before);
  });

  it('says what is missing: the array file in its folder, a command, an -a; an unknown separator', async () => {
    const missing = await run([...arrayJob, '--array-file', 'Data/nope.csv', '--list-columns']);
    assert.equal(missing.code, 1, missing.stderr);
    assert.match(missing.stderr, /File "nope\.csv" not found in the "Data" folder of the project "demo"/);
    const noCommand = await run([...arrayJob, '--array-file', 'Data/samples.csv', '-a', 'x=id']);
    assert.equal(noCommand.code, 2, noCommand.stderr);
    assert.match(noCommand.stderr, /Give --command or --custom-script-path/);
    const noColumn = await run([...arrayJob, '--array-file', 'Data/samples.csv', '--command', 'echo']);
    assert.equal(noColumn.code, 2, noColumn.stderr);
    assert.match(noColumn.stderr, /at least one -a\/--array-parameter/);
    const badSeparator = await run([...arrayJob, '--array-file', 'Data/samples.csv', '--separator', '#', '--list-columns']);
    assert.equal(badSeparator.code, 2, badSeparator.stderr);
    assert.match(badSeparator.stderr, /Allowed choices are ,, ;, tab, space, \|/);
  });
});
