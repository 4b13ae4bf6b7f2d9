import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli, tempDir } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;
const WAIT = ['--wait-completion', '--request-interval', '0.1', '--wait-time', '30'];

describe('runyard job run', { timeout: 300_000 }, () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(async () => {
    await w.close();
  });

  const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli([...args, ...w.conn], options);
  const jobRun = ['job', 'run', '--project-name', 'demo', '--workflow-name', 'rnatoy'];
  const jobCount = async () => (await w.client.getJobList(w.ws, { lastNJobs: 'all' })).jobs.length;

  it('runs a Nextflow job to completion with a job-config file and -p (which wins), exit 0', async () => {
    const dir = tempDir('runyard-jobrun-');
    const config = path.join(dir, 'job.config');
    writeFileSync(
      config,
      "// a comment\nparams {\n  reads = 's3://bucket/reads/*.fq'\n  genome = 'GRCh37'   # replaced by -p\n  processes = 3\n}\n",
    );
    const r = await run([
      ...jobRun,
      '--job-config',
      config,
      '-p',
      'genome=GRCh38',
      '-p',
      '--extra=1',
      '--job-name',
      'nf-run',
      '--nextflow-profile',
      'test',
      '--nextflow-version',
      '25.04.8',
      ...WAIT,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const id = r.stdout.trim();
    assert.match(id, ID);
    assert.match(r.stderr, new RegExp(`^Job "nf-run" launched: ${w.s.url}/app/advanced-analytics/analyses/${id}\\n`));
    assert.match(r.stderr, new RegExp(`Job ${id} completed \\(\\d+s\\)\\.\\n$`));
    const job = await w.client.getJobStatus(id, w.ws);
    assert.equal(job.status, 'completed');
    assert.equal(job.jobType, 'nextflowAWS');
    assert.equal(job.nextflowVersion, '25.04.8');
    assert.equal(job.profile, 'test');
    assert.deepEqual(
      (job.parameters as Array<{ prefix: string; name: string; textValue: string }>).map((p) => `${p.prefix}${p.name}=${p.textValue}`),
      ['--reads=s3://bucket/reads/*.fq', '--genome=GRCh38', '--processes=3', '--extra=1'],
    );
    assert.equal((job.revision as { commit: string }).commit, w.heads.main);
  });

  it('--git-tag and --git-branch choose the revision; two of them are a usage error and create nothing', async () => {
    const tag = await run([...jobRun, '--git-tag', 'v1.0']);
    assert.equal(tag.code, 0, tag.stderr);
    const tagged = await w.client.getJobStatus(tag.stdout.trim(), w.ws);
    assert.deepEqual([(tagged.revision as { tag: string }).tag, (tagged.revision as { commit: string }).commit], ['v1.0', w.heads.main]);
    const branch = await run([...jobRun, '--git-branch', 'dev', ...WAIT]);
    assert.equal(branch.code, 0, branch.stderr);
    assert.equal(((await w.client.getJobStatus(branch.stdout.trim(), w.ws)).revision as { commit: string }).commit, w.heads.dev);

    const before = await jobCount();
    const two = await run([...jobRun, '--git-tag', 'v1.0', '--git-branch', 'dev']);
    assert.equal(two.code, 2);
    assert.equal(two.stdout, '');
    assert.equal(two.stderr, 'Error: Give only one of --git-commit, --git-tag and --git-branch, not --git-tag and --git-branch.\n');
    const three = await run([...jobRun, '--git-commit', w.heads.main, '--git-tag', 'v1.0', '--git-branch', 'dev']);
    assert.equal(three.code, 2);
    assert.match(three.stderr, /not --git-commit and --git-tag and --git-branch\.\n$/);
    assert.equal(await jobCount(), before);
  });

  it('a failing Nextflow run exits 1 with the reason', async () => {
    // The fixture nextflow cannot create its results directory under a file, and exits 1.
    const r = await run([...jobRun, '-p', 'outdir=/dev/null/results', ...WAIT]);
    assert.equal(r.code, 1, r.stderr);
    const id = r.stdout.trim();
    assert.match(r.stderr, new RegExp(`\\nError: Job ${id} failed after \\d+s[^\\n]*\\n$`));
    assert.equal((await w.client.getJobStatus(id, w.ws)).status, 'failed');
  });

  it('bad input: an unknown project or workflow, a broken job-config file (with its line), a missing file', async () => {
    const before = await jobCount();
    const project = await run(['job', 'run', '--project-name', 'nope', '--workflow-name', 'rnatoy']);
    assert.equal(project.code, 1);
    assert.match(project.stderr, /^Error: Project 'nope' was not found in workspace '[0-9a-f]{24}'\.\n$/);
    const workflow = await run(['job', 'run', '--project-name', 'demo', '--workflow-name', 'nope']);
    assert.equal(workflow.code, 1);
    assert.match(workflow.stderr, /^Error: [^\n]*"nope"[^\n]*\n$/);
    const dir = tempDir('runyard-jobrun-');
    const broken = path.join(dir, 'broken.config');
    writeFileSync(broken, 'params {\n  a = 1\n  b = {\n}\n');
    const config = await run([...jobRun, '--job-config', broken]);
    assert.equal(config.code, 1);
    assert.match(config.stderr, /^Error: Line 3 of [^\n]*broken\.config: [^\n]*'b = \{'\n$/);
    const missing = await run([...jobRun, '--job-config', path.join(dir, 'absent.config')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /absent\.config" does not exist/);
    const version = await run([...jobRun, '--nextflow-version', '1.0']);
    assert.equal(version.code, 2);
    assert.match(version.stderr, /--nextflow-version/);
    assert.equal(await jobCount(), before);
  });

  it('an unknown --job-queue falls back to the default queue with a warning', async () => {
    const r = await run([...jobRun, '--job-queue', 'nope']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: Queue 'nope' you specified was not found, using the default queue 'default' instead\./);
    const job = await w.client.getJobStatus(r.stdout.trim(), w.ws);
    assert.equal((job.batch as { jobQueue: { label: string } }).jobQueue.label, 'default');
    await w.client.waitJobCompletion(job._id, w.ws, { requestInterval: 0.1, waitTime: 30 });
  });

  it('on hpc it says which options it ignores', async () => {
    const r = await run([...jobRun, '--execution-platform', 'hpc', '--job-queue', 'default', '--instance-disk', '100']);
    assert.match(
      r.stderr,
      /^Note: on hpc these options are ignored: --job-queue, --instance-disk\.\nNote: on hpc the process logs are not saved\.\n/,
    );
    if (r.code === 0) await w.client.waitJobCompletion(r.stdout.trim(), w.ws, { requestInterval: 0.1, waitTime: 30 });
  });
});
