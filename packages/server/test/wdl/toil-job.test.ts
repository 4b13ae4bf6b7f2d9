import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processesOfJob } from '../engines/cmdlines.js';
import { waitFor } from '../scheduler/helpers.js';
import { TYPED_OUTPUTS_WDL } from '../../../../test/support/wdl-workflows.js';
import { startWdlWorld, type WdlWorld } from './wdl-world.js';

/** WDL jobs on toil-wdl-runner (Debian's toil 5, installed by .ci/run), through the API as the public client sends them. */
describe('WDL jobs on toil', { timeout: 600_000 }, () => {
  let w: WdlWorld;
  before(async () => {
    w = await startWdlWorld({ RUNYARD_WDL_ENGINE: 'toil' });
  });
  after(() => w.close());

  it('a WDL job is refused while the engine server is stopped, and runs once it is started', async () => {
    const body = await w.body({ 'hello.name': '"Ada"' });
    const refused = await w.api('POST', `/api/v2/jobs?teamId=${w.ws}`, body);
    assert.equal(refused.status, 409, JSON.stringify(refused.json));
    assert.match(refused.json.message, /WDL engine server is stopped: start it with "runyard cromwell start"/);
    const started = await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`);
    assert.equal(started.status, 'Running');
  });

  it("runs two calls to completion: typed inputs, the File outputs in its results, the calls' logs in its logs", async () => {
    const { jobId } = await w.ok(
      'POST',
      `/api/v2/jobs?teamId=${w.ws}`,
      await w.body({ 'hello.name': '"Ada Lovelace"', 'hello.times': '3' }),
    );
    const job = await w.ended(jobId);
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    assert.equal(w.read(jobId, 'results', 'results/greeting.txt'), 'hello Ada Lovelace\n'.repeat(3));
    assert.equal(w.read(jobId, 'results', 'results/n.txt').trim(), '3');
    // Every output of the workflow, each File as its copy in the results.
    assert.deepEqual(JSON.parse(w.read(jobId, 'results', 'results/outputs.json')), {
      'hello.greeting': 'greeting.txt',
      'hello.lines': 'n.txt',
    });
    assert.match(w.read(jobId, 'logs', 'call-greet.stderr'), /greet says hi on stderr/);
    const log = w.read(jobId, 'logs', 'stdout.txt');
    assert.match(log, /Runyard: WDL engine toil; inputs: hello\.name, hello\.times/);
    // The job's log is the workflow's: Runyard's lines and its calls; toil's own diagnostics are in engine.log.
    assert.match(log, /Runyard: call greet started \(its output: call-greet\.stdout\)\nRunyard: call greet finished\n/);
    assert.match(log, /Runyard: call count finished\n/);
    assert.doesNotMatch(log, /ANTLR|cwltool|toil\.leader|toil\.worker/);
    assert.match(w.read(jobId, 'logs', 'engine.log'), /Finished toil run successfully/);
  });

  it('keeps every output of the workflow, of every type, in outputs.json, each File as its copy in the results', async () => {
    w.mirror.create('acme/typed-wdl', { files: { 'typed.wdl': TYPED_OUTPUTS_WDL } });
    const typed = (
      await w.ok('POST', `/api/v1/workflows?teamId=${w.ws}`, {
        name: 'typed-wdl',
        workflowType: 'wdl',
        mainFile: 'typed.wdl',
        repository: { url: 'https://github.com/acme/typed-wdl', platform: 'github' },
      })
    )._id;
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body({}, { workflow: typed, name: 'typed' }));
    const job = await w.ended(jobId);
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    assert.deepEqual(JSON.parse(w.read(jobId, 'results', 'results/outputs.json')), {
      'typed.longest_n': 4,
      'typed.labels': ['word-a', 'word-bb', 'word-ccc'],
      'typed.sizes': [1, 2, 3],
      'typed.name': 'typed',
      'typed.ratio': 0.5,
      'typed.flag': true,
      'typed.pair': { left: 'p', right: 7 },
      'typed.maybe': null,
      'typed.report': 'r-dddd.txt',
      'typed.table': { a: '1', bb: '2' },
    });
    assert.equal(w.read(jobId, 'results', 'results/r-dddd.txt'), 'measured dddd\n');
    // What the public client's job results looks for (wire-api get_job_results): a folder in the job's results, `results` first.
    const doc = await w.ok('GET', `/api/v1/jobs/${jobId}?teamId=${w.ws}`);
    const listed = await w.ok(
      'GET',
      `/api/v1/data-access/s3/bucket-contents?bucket=${doc.results.s3BucketName}&path=${encodeURIComponent(doc.results.s3Prefix)}&teamId=${w.ws}`,
    );
    assert.deepEqual(
      listed.contents.filter((c: { isDir: boolean }) => c.isDir).map((c: { name: string }) => c.name),
      ['results'],
    );
  });

  it('a failing call fails the job with its error; the resumed job restarts from the job store and skips the call that finished', async () => {
    const body = await w.body({ 'hello.name': 'Grace', 'hello.mode': '"strict"' });
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, body);
    const failed = await w.ended(jobId);
    assert.equal(failed.status, 'failed');
    assert.match(
      failed.statusMessage,
      /^The WDL call count failed: its command exited with code 3\. Its stderr ends with: count is not allowed yet$/,
    );
    assert.equal(w.read(jobId, 'work', 'greet-runs'), 'run\n');
    assert.ok(existsSync(path.join(w.paths(jobId).work, 'runyard-wdl', 'jobstore')), 'the job store is kept for a resume');
    // What failed is fixed; the resumed job runs in the same work directory (its parent's).
    writeFileSync(path.join(w.paths(jobId).work, 'allow-count'), '');
    const resumed = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, {
      ...body,
      name: 'hello-resumed',
      resumeWorkDir: failed.resumeWorkDir,
    });
    const job = await w.ended(resumed.jobId);
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    assert.equal(w.read(jobId, 'work', 'greet-runs'), 'run\n', 'greet did not run again');
    assert.match(w.read(resumed.jobId, 'logs', 'stdout.txt'), /Runyard: restarting the workflow with toil/);
    assert.deepEqual(readdirSync(path.join(w.paths(resumed.jobId).results, 'results')).sort(), ['greeting.txt', 'n.txt', 'outputs.json']);
    assert.equal(w.read(resumed.jobId, 'results', 'results/n.txt').trim(), '2', 'two lines: times defaults to 2');
    assert.deepEqual(
      readdirSync(w.paths(resumed.jobId).logs)
        .filter((f) => f.startsWith('call-'))
        .sort(),
      ['call-count.stderr', 'call-count.stdout'],
    );
  });

  it('a parameter the workflow does not declare, or of the wrong type, fails the job before its task starts', async () => {
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body({ 'hello.name': 'x', 'hello.times': 'many' }));
    const job = await w.ended(jobId);
    assert.equal(job.status, 'failed');
    assert.equal(job.statusMessage, 'The parameter hello.times must be a whole number (the workflow declares it Int); it is "many".');
  });

  it("an abort ends the run: the engine's processes and its running call are gone when the job says aborted", async () => {
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body({ 'hello.name': 'slow', 'hello.times': '1' }));
    await w.running(jobId);
    // The call is running (its `sleep 600`), under the engine.
    await waitFor(
      'the slow call to run',
      async () => (processesOfJob(jobId).some((p) => p.cmdline === 'sleep 600') ? true : undefined),
      120_000,
    );
    assert.ok(processesOfJob(jobId).length > 2, JSON.stringify(processesOfJob(jobId)));
    await w.ok('PUT', `/api/v2/jobs/${jobId}/abort?teamId=${w.ws}`);
    const job = await w.ended(jobId);
    assert.equal(job.status, 'aborted');
    assert.deepEqual(processesOfJob(jobId), [], 'a process of the job outlived its abort');
  });

  it('stopping the engine refuses new WDL jobs with a clear message, and restarting accepts them', async () => {
    const stopped = await w.ok('PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`);
    assert.equal(stopped.status, 'Stopped');
    const refused = await w.api('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body({ 'hello.name': 'x' }));
    assert.equal(refused.status, 409);
    assert.match(refused.json.message, /stopped: start it/);
    assert.equal((await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`)).status, 'Running');
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body({ 'hello.name': 'again', 'hello.times': '1' }));
    assert.equal((await w.ended(jobId)).status, 'completed');
  });
});
