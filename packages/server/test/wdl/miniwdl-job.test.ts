import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { processesOfJob } from '../engines/cmdlines.js';
import { waitFor } from '../scheduler/helpers.js';
import { startWdlWorld, type WdlWorld } from './wdl-world.js';
import { HELLO_WDL } from '../../../../test/support/wdl-workflows.js';

/**
 * WDL jobs on miniwdl, through the API as the public client sends them. miniwdl is not installable
 * here (not in Debian, no PyPI): the tasks find test/fixtures/bin/miniwdl first on their PATH, a
 * stand-in that follows `miniwdl run`'s contract (run directory, outputs.json, error.json, exit
 * codes, call cache, SIGTERM), and runs the calls' commands itself.
 */
describe('WDL jobs on miniwdl', { timeout: 600_000 }, () => {
  let w: WdlWorld;
  before(async () => {
    w = await startWdlWorld({ RUNYARD_WDL_ENGINE: 'miniwdl' });
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
    assert.deepEqual(Object.keys(JSON.parse(w.read(jobId, 'results', 'results/outputs.json'))).sort(), ['hello.greeting', 'hello.lines']);
    assert.match(w.read(jobId, 'logs', 'call-greet.stderr'), /greet says hi on stderr/);
    const log = w.read(jobId, 'logs', 'stdout.txt');
    assert.match(log, /Runyard: WDL engine miniwdl; inputs: hello\.name, hello\.times/);
    assert.match(log, /wdl\.w:hello NOTICE done/);
    assert.match(log, /wdl\.w:hello\.t:call-greet\.stderr VERBOSE greet says hi on stderr/);
    assert.match(log, /Runyard: the workflow succeeded\./);
    // miniwdl's detail (its INFO lines, the outputs JSON it prints) is in engine.log, not in the job's log.
    assert.doesNotMatch(log, / INFO |"outputs": /);
    assert.match(w.read(jobId, 'logs', 'engine.log'), /wdl\.w:hello\.t:call-greet INFO command :: /);
  });

  it('a failing call fails the job with its error; the resumed job takes the finished call from the call cache', async () => {
    const body = await w.body({ 'hello.name': 'Grace', 'hello.mode': '"strict"' });
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, body);
    const failed = await w.ended(jobId);
    assert.equal(failed.status, 'failed');
    assert.match(
      failed.statusMessage,
      /^The WDL call count failed: its command exited with code 3\. Its stderr ends with: count is not allowed yet$/,
    );
    // How often greet ran, from what it wrote in its own working directory, in miniwdl's run directories (a call in a
    // container writes there too; nothing here depends on the call sharing the host's HOME).
    const runs = path.join(w.paths(jobId).work, 'runyard-miniwdl', 'runs');
    const stamps = () => readdirSync(runs, { recursive: true, encoding: 'utf8' }).filter((f) => path.basename(f) === 'stamp.txt');
    assert.equal(stamps().length, 1, stamps().join(', '));
    assert.ok(existsSync(path.join(w.paths(jobId).work, 'runyard-miniwdl', 'call-cache', 'greet')), 'the call cache is kept for a resume');
    // What failed is fixed by a parameter of count's; the resumed job runs in the same work directory (its parent's).
    const resumed = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, {
      ...(await w.body({ 'hello.name': 'Grace', 'hello.mode': '"lenient"' })),
      name: 'hello-resumed',
      resumeWorkDir: failed.resumeWorkDir,
    });
    const job = await w.ended(resumed.jobId);
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    assert.equal(stamps().length, 1, `greet ran again: ${stamps().join(', ')}`);
    const log = w.read(resumed.jobId, 'logs', 'stdout.txt');
    assert.match(log, /Runyard: resuming: miniwdl takes the calls that finished earlier from its call cache/);
    assert.match(log, /Runyard: call greet was taken from miniwdl's call cache: it did not run again\./);
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

  it("a main file that is a link out of the repository (to the server's key) fails the job, and is never read", async () => {
    const secret = readFileSync(w.s.config.secretKeyFile!);
    const linked = w.mirror.create('mallory/linked-wdl', {
      files: { 'real.wdl': HELLO_WDL },
      symlinks: { 'main.wdl': w.s.config.secretKeyFile!, 'inside.wdl': 'real.wdl' },
    });
    const importWorkflow = async (name: string, mainFile: string) =>
      (
        await w.ok('POST', `/api/v1/workflows?teamId=${w.ws}`, {
          name,
          workflowType: 'wdl',
          mainFile,
          repository: { url: linked.url, platform: 'github' },
        })
      )._id;
    const out = await importWorkflow('linked-out', 'main.wdl');
    const { jobId } = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, { ...(await w.body({ 'hello.name': 'x' })), workflow: out });
    const job = await w.ended(jobId);
    assert.equal(job.status, 'failed');
    assert.equal(job.statusMessage, "The workflow's main file main.wdl could not be read: it is a link that leads outside the repository.");
    // Failed before its task started: a log only if the server wrote one.
    const logFile = path.join(w.paths(jobId).logs, 'stdout.txt');
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    for (const text of [log, JSON.stringify(job)]) assert.ok(!text.includes(secret.toString('utf8').trim()), 'the key was read');
    assert.deepEqual(readFileSync(w.s.config.secretKeyFile!), secret);
    // A link that stays inside the repository is followed.
    const inside = await importWorkflow('linked-inside', 'inside.wdl');
    const ran = await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, {
      ...(await w.body({ 'hello.name': '"Ada"', 'hello.times': '1' })),
      workflow: inside,
    });
    const done = await w.ended(ran.jobId);
    assert.equal(done.status, 'completed', done.statusMessage ?? '');
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
