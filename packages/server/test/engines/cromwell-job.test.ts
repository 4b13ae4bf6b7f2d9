import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCromwellFixture, type CromwellFixture } from '../../../../test/support/cromwell-fixture.js';
import { FIXTURE_BIN } from '../../../../test/support/running-server.js';
import { buildJavaFixture, FIXTURE_JAR, managedServer } from '../cromwell/managed-world.js';
import { waitFor } from '../scheduler/helpers.js';
import { startWdlWorld, type WdlWorld } from '../wdl/wdl-world.js';

/**
 * WDL jobs on the cromwell driver, through the API as the public client sends them. Cromwell is
 * not installable here: test/support/cromwell-fixture.ts stands in for it, following Cromwell's
 * documented REST API. Its call directories (RUNYARD_CROMWELL_EXECUTIONS_DIR) are shown to the
 * sandboxed tasks read-only. Then the same jobs on the Cromwell server that Runyard runs
 * (RUNYARD_CROMWELL_JAR, with the stand-in `java` of ../cromwell/managed-world.ts).
 */

/** greet counts its runs in the file `counter` names; count fails until the file `flag` names exists. */
const WDL = `version 1.0

task greet {
  input {
    String name
    Int times
    String counter
  }
  command <<<
    for i in $(seq ~{times}); do echo "hello ~{name}"; done > greeting.txt
    echo run >> ~{counter}
    echo "greet says hi on stderr" >&2
  >>>
  output {
    File greeting = "greeting.txt"
  }
}

task count {
  input {
    File f
    String flag
    Int pause
  }
  command <<<
    sleep ~{pause}
    if [ ! -e ~{flag} ]; then echo "count is not allowed yet" >&2; exit 3; fi
    wc -l < ~{f} | tr -d ' ' > n.txt
  >>>
  output {
    File n = "n.txt"
  }
}

workflow hello {
  input {
    String name
    Int times = 2
    String counter
    String flag
    Int pause = 0
  }
  call greet { input: name = name, times = times, counter = counter }
  call count { input: f = greet.greeting, flag = flag, pause = pause }
  output {
    File greeting = greet.greeting
    File lines = count.n
  }
}
`;

/** Imports WDL as the workflow `cromwell-wdl` of the world's workspace: its id. */
async function importWorkflow(w: WdlWorld): Promise<string> {
  const repo = w.mirror.create('acme/cromwell-wdl', { files: { 'main.wdl': WDL } });
  const body = { name: 'cromwell-wdl', workflowType: 'wdl', mainFile: 'main.wdl', repository: { url: repo.url, platform: 'github' } };
  return (await w.ok('POST', `/api/v1/workflows?teamId=${w.ws}`, body))._id;
}

describe('WDL jobs on Cromwell', { timeout: 300_000 }, () => {
  let fixture: CromwellFixture;
  let w: WdlWorld;
  let scratch: string;
  let workflowId: string;

  before(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-cromwell-job-'));
    // A Cromwell server's executions directory exists before the jobs that read it start (the sandbox binds only what exists).
    mkdirSync(path.join(scratch, 'cromwell-executions'));
    // An operator's Cromwell, with call caching turned on in its configuration (Cromwell's default is off), as a resume needs.
    fixture = await startCromwellFixture({ root: path.join(scratch, 'cromwell-executions'), callCaching: true });
    w = await startWdlWorld({
      RUNYARD_WDL_ENGINE: 'cromwell',
      RUNYARD_CROMWELL_URL: fixture.url,
      RUNYARD_CROMWELL_EXECUTIONS_DIR: path.join(scratch, 'cromwell-executions'),
    });
    workflowId = await importWorkflow(w);
    assert.equal((await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`)).status, 'Running');
  });
  after(async () => {
    await w.close();
    await fixture.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const params = (extra: Record<string, string> = {}) => ({
    'hello.name': '"Ada"',
    'hello.counter': path.join(scratch, 'greet-runs'),
    'hello.flag': path.join(scratch, 'allow-count'),
    ...extra,
  });
  const submit = async (parameters: Record<string, string>, extra: Record<string, unknown> = {}) =>
    (await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body(parameters, { workflow: workflowId, ...extra }))).jobId as string;

  it('a failing call fails the job with its error; the resumed job takes the finished call from the call cache', async () => {
    const jobId = await submit(params({ 'hello.times': '3' }));
    const failed = await w.ended(jobId);
    assert.equal(failed.status, 'failed');
    assert.match(
      failed.statusMessage,
      /^The WDL workflow failed in call count \(hello\.count\): Job hello\.count:NA:1 exited with return code 3 /,
    );
    assert.match(failed.statusMessage, /Its stderr ends with: count is not allowed yet$/);
    assert.match(w.read(jobId, 'logs', 'call-count.stderr'), /count is not allowed yet/);
    assert.equal(readFileSync(path.join(scratch, 'greet-runs'), 'utf8'), 'run\n');

    writeFileSync(path.join(scratch, 'allow-count'), '');
    const resumedId = await submit(params({ 'hello.times': '3' }), { name: 'hello-resumed', resumeWorkDir: failed.resumeWorkDir });
    const job = await w.ended(resumedId);
    assert.equal(job.status, 'completed', job.statusMessage ?? '');
    assert.equal(readFileSync(path.join(scratch, 'greet-runs'), 'utf8'), 'run\n', 'greet did not run again');
    assert.equal(w.read(resumedId, 'results', 'results/greeting.txt'), 'hello Ada\n'.repeat(3));
    assert.equal(w.read(resumedId, 'results', 'results/n.txt').trim(), '3');
    assert.deepEqual(readdirSync(path.join(w.paths(resumedId).results, 'results')).sort(), ['greeting.txt', 'n.txt', 'outputs.json']);
    assert.match(w.read(resumedId, 'logs', 'call-greet.stderr'), /greet says hi on stderr/);
    const log = w.read(resumedId, 'logs', 'stdout.txt');
    assert.match(log, /Runyard: WDL engine cromwell; inputs: hello\.name, hello\.counter, hello\.flag, hello\.times/);
    assert.match(log, /Call greet was taken from Cromwell's call cache/);
    const submitted = fixture.submissions.at(-1)!;
    assert.deepEqual(JSON.parse(submitted.workflowOptions!), { read_from_cache: true, write_to_cache: true });
    assert.deepEqual(JSON.parse(submitted.labels!), { 'runyard-job-id': resumedId });
    assert.equal(JSON.parse(submitted.workflowInputs!)['hello.name'], 'Ada');
    assert.equal(fixture.workflow(submitted.id)?.calls['hello.greet']?.[0]?.callCaching.hit, true);
  });

  it('an abort of the job aborts the workflow in Cromwell', async () => {
    const before = fixture.submissions.length;
    const jobId = await submit(params({ 'hello.name': '"slow"', 'hello.pause': '60' }));
    await waitFor(
      'the count call to run',
      async () => {
        const s = fixture.submissions[before];
        return s && fixture.workflow(s.id)?.calls['hello.count']?.[0]?.executionStatus === 'Running' ? true : undefined;
      },
      120_000,
    );
    await w.ok('PUT', `/api/v2/jobs/${jobId}/abort?teamId=${w.ws}`);
    const job = await w.ended(jobId);
    assert.equal(job.status, 'aborted');
    assert.equal(fixture.workflow(fixture.submissions[before]!.id)?.status, 'Aborted');
  });
});

describe('WDL jobs on the Cromwell server Runyard runs', { timeout: 300_000 }, () => {
  let scratch: string;
  let w: WdlWorld;
  let workflowId: string;
  const { running, engineDir } = managedServer(() => w);

  before(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-cromwell-job-managed-'));
    const bin = path.join(scratch, 'bin');
    mkdirSync(bin);
    await buildJavaFixture(path.join(bin, 'java'));
    const jar = path.join(scratch, 'cromwell-86.jar');
    writeFileSync(jar, FIXTURE_JAR);
    w = await startWdlWorld({
      RUNYARD_WDL_ENGINE: 'cromwell',
      RUNYARD_CROMWELL_JAR: jar,
      RUNYARD_TASK_PATH: [bin, FIXTURE_BIN, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    });
    workflowId = await importWorkflow(w);
    assert.equal((await w.ok('PUT', `/api/v1/cromwell/restart?teamId=${w.ws}`)).status, 'Starting');
    await running();
  });
  after(async () => {
    // The server outlives Runyard's processes by design: the test stops it.
    await w.api('PUT', `/api/v1/cromwell/stop?teamId=${w.ws}`);
    await w.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("a job's engine.log is Cromwell's log of its workflow, its log has none of it; a resume takes the finished call from the call cache Runyard turns on", async () => {
    // Where the calls can write and look: the server's home (its sandbox shows nothing of the test's scratch).
    const home = path.join(engineDir(), 'home');
    const counter = path.join(home, 'greet-runs');
    const flag = path.join(home, 'allow-count');
    const parameters = { 'hello.name': '"Ada"', 'hello.counter': counter, 'hello.flag': flag };
    const submit = async (extra: Record<string, unknown> = {}) =>
      (await w.ok('POST', `/api/v2/jobs?teamId=${w.ws}`, await w.body(parameters, { workflow: workflowId, ...extra }))).jobId as string;

    const jobId = await submit();
    const failed = await w.ended(jobId);
    assert.equal(failed.status, 'failed');
    assert.match(failed.statusMessage, /^The WDL workflow failed in call count \(hello\.count\)/);
    const engineLog = w.read(jobId, 'logs', 'engine.log');
    assert.match(
      engineLog,
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO  - WorkflowManagerActor: Starting workflow UUID\([0-9a-f-]{36}\)$/m,
    );
    assert.match(engineLog, /INFO  - WorkflowExecutionActor-\S+ \[UUID\(\w{8}\)\]: Starting hello\.greet$/m);
    assert.match(engineLog, /DEBUG - WorkflowActor-\S+ \[UUID\(\w{8}\)\]: transition from FinalizingWorkflowState to WorkflowFailedState/);
    const log = w.read(jobId, 'logs', 'stdout.txt');
    assert.doesNotMatch(log, /INFO  - |WorkflowExecutionActor|Status change from/);
    assert.match(log, /Call greet: Done/);
    assert.match(log, /Cromwell's log of the workflow is in the job's logs: engine\.log\./);
    assert.equal(readFileSync(counter, 'utf8'), 'run\n');

    writeFileSync(flag, '');
    const resumedId = await submit({ name: 'hello-resumed', resumeWorkDir: failed.resumeWorkDir });
    const resumed = await w.ended(resumedId);
    assert.equal(resumed.status, 'completed', resumed.statusMessage ?? '');
    assert.equal(readFileSync(counter, 'utf8'), 'run\n', 'greet did not run again');
    const resumedLog = w.read(resumedId, 'logs', 'stdout.txt');
    assert.match(resumedLog, /Call greet was taken from Cromwell's call cache/);
    // Runyard's server has call caching on (-Dcall-caching.enabled=true): nothing to say of the server's configuration.
    assert.doesNotMatch(resumedLog, /Resuming relies on the server's call caching/);
    assert.match(w.read(resumedId, 'logs', 'engine.log'), /Job results retrieved \(CallCached\): 'hello\.greet'/);
  });
});
