import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.js';
import { EngineError } from '../../src/engines/engine.js';
import { CROMWELL_TASK, cromwellDriver } from '../../src/engines/wdl/cromwell.js';
import { executionsDirOf, managedCromwellDir, workflowLogsDirOf } from '../../src/engines/wdl/cromwell-server.js';
import type { WdlRun } from '../../src/engines/wdl/driver.js';
import type { TaskSpec } from '../../src/executors/executor.js';
import { createSandbox } from '../../src/executors/sandbox/sandbox.js';
import { failureFileOf, jobPaths } from '../../src/scheduler/job-paths.js';
import { startCromwellFixture, type CromwellFixture } from '../../../../test/support/cromwell-fixture.js';
import { confineAsTheAttemptRunner, jobRow, workflowRow } from './rows.js';

/**
 * The Cromwell driver's task, run directly (spawned with the argv and env the driver returns,
 * outside the executor) against a Cromwell REST fixture: Cromwell is not installable here, so
 * test/support/cromwell-fixture.ts stands in for it, following Cromwell's documented REST API.
 * Three of them: an operator's Cromwell with call caching turned on (as a resume needs), one with
 * Cromwell's default configuration (call caching off), and one configured as Runyard's own
 * server is (cromwell-server.ts: its directories in <dataDir>/engine-servers/<workspace>, call
 * caching on, workflow logs in cromwell-workflow-logs), which the runs of a `managed` server use.
 */

const WORKSPACE = '65f0c0ffee0000000000beef';

const TWO_TASKS = `version 1.0

task make {
  input {
    String name
    Int times
  }
  command <<<
    for i in $(seq ~{times}); do echo "hello ~{name}"; done > greeting.txt
    echo "made ~{times} lines"
    echo "a warning" >&2
  >>>
  output {
    File greeting = "greeting.txt"
    String said = read_string(stdout())
  }
}

task count {
  input {
    File lines
  }
  command <<<
    wc -l < ~{lines} | tr -d ' '
  >>>
  output {
    Int n = read_int(stdout())
  }
}

workflow hello {
  input {
    String name
    Int times = 2
  }
  call make { input: name = name, times = times }
  call count { input: lines = make.greeting }
  output {
    File greeting = make.greeting
    String said = make.said
    Int lines = count.n
  }
}
`;

const FAILING = `version 1.0

task make {
  command <<<
    echo made > made.txt
  >>>
  output {
    File made = "made.txt"
  }
}

task check {
  input {
    File made
  }
  command <<<
    echo "checking ~{made}"
    echo "cannot open input.txt: No such file or directory" >&2
    exit 3
  >>>
}

workflow broken {
  call make
  call check { input: made = make.made }
}
`;

const SLOW = `version 1.0

task wait {
  input {
    Int seconds
  }
  command <<<
    echo started
    sleep ~{seconds}
    echo done > done.txt
  >>>
  output {
    File done = "done.txt"
  }
}

workflow slow {
  input {
    Int seconds
  }
  call wait { input: seconds = seconds }
  output {
    File done = wait.done
  }
}
`;

/** The second call fails until the flag file exists; the first counts its runs. */
const RESUMABLE = `version 1.0

task first {
  input {
    String counter
  }
  command <<<
    echo ran >> ~{counter}
    echo "first's data" > data.txt
  >>>
  output {
    File data = "data.txt"
  }
}

task second {
  input {
    File data
    String flag
  }
  command <<<
    if [ ! -f ~{flag} ]; then echo "missing ~{flag}" >&2; exit 1; fi
    cat ~{data} > final.txt
  >>>
  output {
    File final = "final.txt"
  }
}

workflow resumable {
  input {
    String counter
    String flag
  }
  call first { input: counter = counter }
  call second { input: data = first.data, flag = flag }
  output {
    File final = second.final
  }
}
`;

/**
 * A call that does what a call of Runyard's Cromwell can (it writes the workflow logs' folder): in
 * the background, once Cromwell has copied the workflow's log there, the copy becomes a link to
 * `secret` (how = link) or a FIFO (how = fifo).
 */
const SWAPS_THE_LOG = `version 1.0

task swap {
  input {
    String final_dir
    String secret
    String how
  }
  command <<<
    id=$(basename "$(dirname "$(dirname "$PWD")")")
    log="~{final_dir}/workflow.$id.log"
    (
      for i in $(seq 2000); do
        if [ -f "$log" ] && [ ! -L "$log" ]; then
          if [ "~{how}" = fifo ]; then mkfifo "$log.tmp"; else ln -sfn "~{secret}" "$log.tmp"; fi
          mv -T "$log.tmp" "$log"
          exit 0
        fi
        sleep 0.005
      done
    ) > /dev/null 2>&1 &
    echo swapping
  >>>
}

workflow hostile {
  input {
    String final_dir
    String secret
    String how
  }
  call swap { input: final_dir = final_dir, secret = secret, how = how }
}
`;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  log: string;
}

describe('cromwell driver', { timeout: 120_000 }, () => {
  /** An operator's Cromwell, with call-caching.enabled = true in its configuration. */
  let fixture: CromwellFixture;
  /** A Cromwell with Cromwell's default configuration: call caching off, no workflow logs asked for. */
  let defaults: CromwellFixture;
  /** Configured as Runyard's own server (cromwell-server.ts), in its directories. */
  let managed: CromwellFixture;
  let managedDir: string;
  let config: Config;
  let scratch: string;
  let jobs = 0;

  before(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-cromwell-'));
    config = loadConfig({ RUNYARD_DATA_DIR: path.join(scratch, 'data'), RUNYARD_ABORT_GRACE_MS: '8000' });
    fixture = await startCromwellFixture({ root: path.join(scratch, 'cromwell-executions'), callCaching: true });
    defaults = await startCromwellFixture({ root: path.join(scratch, 'default-executions') });
    managedDir = managedCromwellDir(config, WORKSPACE);
    // As the server makes them before Cromwell starts (the sandbox binds what exists).
    for (const dir of [executionsDirOf(managedDir), workflowLogsDirOf(managedDir)]) mkdirSync(dir, { recursive: true });
    managed = await startCromwellFixture({
      root: executionsDirOf(managedDir),
      callCaching: true,
      workflowLogDir: workflowLogsDirOf(managedDir),
    });
  });
  after(async () => {
    await Promise.all([fixture.close(), defaults.close(), managed.close()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  interface RunOptions {
    inputs?: Record<string, unknown>;
    jobId?: string;
    attempt?: number;
    resume?: boolean;
    url?: string | null;
    /** A server of Runyard's (the `managed` fixture, unless url says otherwise). */
    managed?: boolean;
    imports?: Buffer;
  }

  /** A WdlRun as the WDL engine hands it to the driver: sources and inputs file written. */
  function wdlRun(wdl: string, o: RunOptions = {}): WdlRun {
    const jobId = o.jobId ?? `65f0c0ffee00000000${String(++jobs).padStart(6, '0')}`;
    const attempt = o.attempt ?? 1;
    const paths = jobPaths(config.dataDir, WORKSPACE, jobId);
    for (const dir of [paths.work, paths.logs, paths.results, paths.control]) mkdirSync(dir, { recursive: true });
    const src = path.join(paths.control, 'src');
    mkdirSync(src, { recursive: true });
    const mainFile = path.join(src, 'main.wdl');
    writeFileSync(mainFile, wdl);
    let importsFile: string | null = null;
    if (o.imports) {
      importsFile = path.join(src, 'imports.zip');
      writeFileSync(importsFile, o.imports);
    }
    const inputsJson = o.inputs ?? {};
    const inputsFile = path.join(paths.control, `inputs-${attempt}.json`);
    writeFileSync(inputsFile, JSON.stringify(inputsJson), { mode: 0o600 });
    // As the WDL engine leaves it: empty, and writable to the task (see confined below).
    const failureFile = failureFileOf(paths.control, attempt);
    writeFileSync(failureFile, '', { mode: 0o600 });
    return {
      job: jobRow({ id: jobId, workflow_type: 'wdl', attempt, resumable: o.resume ? 1 : 0 }),
      workflow: workflowRow({ workflow_type: 'wdl', main_file: 'main.wdl' }),
      paths,
      // The driver writes where it is told (the engine tells it results/ of the job's results).
      resultsDir: paths.results,
      config,
      inputs: undefined,
      server: {
        id: 'engine',
        driver: 'cromwell',
        url: o.url === undefined ? (o.managed ? managed : fixture).url : o.url,
        managed: o.managed ?? false,
      },
      src,
      mainFile,
      importsFile,
      inputsJson,
      inputsFile,
      resume: o.resume ?? false,
      failureFile,
      preamble: ['Runyard: WDL engine cromwell'],
    };
  }

  /** Spawns the task as the executor would (argv, env, cwd, log file), with fast polling; argv may be a sandbox's. */
  function start(task: TaskSpec, argv = task.argv): { child: ChildProcess; ended: Promise<Ended> } {
    const fd = openSync(task.logFile, 'a');
    const env = { ...task.env, RUNYARD_CROMWELL_POLL_MS: '50' };
    const child = spawn(argv[0]!, argv.slice(1), { cwd: task.cwd, env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const ended = new Promise<Ended>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, log: readFileSync(task.logFile, 'utf8') })),
    );
    return { child, ended };
  }

  async function runToEnd(run: WdlRun): Promise<Ended> {
    return start(await cromwellDriver.task(run)).ended;
  }

  async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await sleep(25);
    }
  }

  const read = (file: string) => readFileSync(file, 'utf8');

  it('makes a task that carries nothing of the run on its command line, and needs the workspace URL', async () => {
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'world' } });
    const task = await cromwellDriver.task(run);
    assert.deepEqual(task.argv, [process.execPath, CROMWELL_TASK]);
    assert.match(CROMWELL_TASK, /\/dist\/engines\/wdl\/cromwell-task\/main\.mjs$/);
    assert.ok(existsSync(CROMWELL_TASK), 'the task is built');
    const controlFile = task.env.RUNYARD_CROMWELL_CONTROL!;
    assert.equal(statSync(controlFile).mode & 0o777, 0o600);
    assert.equal(JSON.parse(read(controlFile)).url, fixture.url);
    assert.ok(!Object.values(task.env).some((v) => v.includes(fixture.url)), 'the URL is not in the environment');
    assert.ok(task.readable?.includes(path.dirname(CROMWELL_TASK)));
    assert.equal(task.network, 'host');
    assert.equal(task.cwd, run.paths.work);
    assert.equal(task.logFile, path.join(run.paths.logs, 'stdout.txt'));
    assert.equal(JSON.parse(read(controlFile)).failureFile, run.failureFile);
    assert.deepEqual(task.writable, [path.join(run.paths.control, 'cromwell')]);

    await assert.rejects(cromwellDriver.task(wdlRun(TWO_TASKS, { url: null })), (e: Error) => {
      assert.ok(e instanceof EngineError);
      assert.match(e.message, /Cromwell URL is not set.*runyard admin workspace set-engine --driver cromwell --cromwell-url URL/);
      return true;
    });
  });

  it('runs a two-task workflow: File outputs in results, every output in outputs.json, call logs in logs', async () => {
    const imports = Buffer.from('PK\x05\x06' + '\0'.repeat(18), 'binary');
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'world', 'hello.times': 3 }, imports });
    const end = await runToEnd(run);
    assert.equal(end.code, 0, end.log);
    const { results, logs } = run.paths;
    assert.equal(read(path.join(results, 'greeting.txt')), 'hello world\nhello world\nhello world\n');
    const outputs = JSON.parse(read(path.join(results, 'outputs.json')));
    assert.equal(outputs['hello.said'], 'made 3 lines');
    assert.equal(outputs['hello.lines'], 3);
    // The File as its copy in the results, not Cromwell's path in its execution directory.
    assert.equal(outputs['hello.greeting'], 'greeting.txt');
    assert.equal(read(path.join(logs, 'call-make.stdout')), 'made 3 lines\n');
    assert.equal(read(path.join(logs, 'call-make.stderr')), 'a warning\n');
    assert.equal(read(path.join(logs, 'call-count.stdout')), '3\n');
    assert.equal(read(path.join(logs, 'call-count.stderr')), '');
    assert.match(end.log, /Submitted the workflow to Cromwell at http:\/\/127\.0\.0\.1:\d+: workflow [0-9a-f-]{36}\./);
    assert.match(end.log, /Call make: Done/);
    assert.match(end.log, /: Succeeded/);
    assert.equal(read(run.failureFile), '');
    // A Cromwell that Runyard does not run keeps the workflow's log where the task cannot read it: the log says where.
    assert.match(
      end.log,
      /Cromwell keeps the workflow's log on its own server, as workflow\.[0-9a-f-]{36}\.log in its workflow log directory \(workflow-options\.workflow-log-dir;/,
    );
    assert.equal(existsSync(path.join(logs, 'engine.log')), false);

    const submitted = fixture.submissions.at(-1)!;
    assert.equal(submitted.workflowSource, TWO_TASKS);
    assert.deepEqual(JSON.parse(submitted.workflowInputs!), { 'hello.name': 'world', 'hello.times': 3 });
    assert.deepEqual(JSON.parse(submitted.workflowOptions!), { read_from_cache: false, write_to_cache: true });
    assert.deepEqual(JSON.parse(submitted.labels!), { 'runyard-job-id': run.job.id });
    assert.deepEqual(submitted.workflowDependencies, imports);
    assert.equal(fixture.workflow(submitted.id)?.status, 'Succeeded');
    // The id is recorded before the submission, which asks for it.
    assert.equal(JSON.parse(read(path.join(run.paths.control, 'cromwell', 'workflow.json'))).id, submitted.id);
  });

  it('fails with exit code 1 and a failure paragraph naming the call, its error and the end of its stderr', async () => {
    const run = wdlRun(FAILING);
    const end = await runToEnd(run);
    assert.equal(end.code, 1, end.log);
    const failure = read(run.failureFile).trim();
    assert.match(failure, /^The WDL workflow failed in call check \(broken\.check\): Job broken\.check:NA:1 exited with return code 3/);
    assert.match(failure, /Its stderr ends with: cannot open input\.txt: No such file or directory$/);
    assert.equal(failure.split('\n').length, 1);
    assert.match(read(path.join(run.paths.logs, 'call-check.stdout')), /^checking \/.*\/made\.txt\n$/);
    assert.match(read(path.join(run.paths.logs, 'call-check.stderr')), /cannot open input\.txt/);
    assert.match(end.log, /: Failed/);
    assert.deepEqual(JSON.parse(read(path.join(run.paths.control, 'cromwell', 'workflow.json'))).attempt, 1);
  });

  it('aborts the workflow in Cromwell on SIGTERM and exits non-zero once Cromwell says Aborted', async () => {
    const run = wdlRun(SLOW, { inputs: { 'slow.seconds': 60 } });
    const before = fixture.submissions.length;
    const { child, ended } = start(await cromwellDriver.task(run));
    await until('the call to run', () => {
      const s = fixture.submissions[before];
      return !!s && fixture.workflow(s.id)?.calls['slow.wait']?.[0]?.executionStatus === 'Running';
    });
    const id = fixture.submissions[before]!.id;
    const t0 = Date.now();
    child.kill('SIGTERM');
    const end = await ended;
    assert.equal(end.code, 143, end.log);
    assert.ok(Date.now() - t0 < 8000);
    assert.equal(fixture.workflow(id)?.status, 'Aborted');
    assert.equal(fixture.workflow(id)?.calls['slow.wait']?.[0]?.executionStatus, 'Aborted');
    assert.ok(fixture.requests.includes(`POST /api/workflows/v1/${id}/abort`));
    assert.match(end.log, /asking Cromwell to abort workflow/);
    assert.match(end.log, /: Aborted/);
    assert.equal(read(path.join(run.paths.logs, 'call-wait.stdout')), 'started\n');
  });

  it('resumes with call caching: the finished call is not run again', async () => {
    const counter = path.join(scratch, 'counter');
    const flag = path.join(scratch, 'flag');
    const inputs = { 'resumable.counter': counter, 'resumable.flag': flag };
    const first = wdlRun(RESUMABLE, { inputs });
    const failed = await runToEnd(first);
    assert.equal(failed.code, 1, failed.log);
    assert.match(read(first.failureFile), /failed in call second .*missing/);

    writeFileSync(flag, '');
    // The resumed job: a new job (its own control directory), asking for the call cache.
    const resumed = wdlRun(RESUMABLE, { inputs, resume: true });
    const end = await runToEnd(resumed);
    assert.equal(end.code, 0, end.log);
    assert.equal(read(counter), 'ran\n', 'the first call ran once');
    assert.equal(read(path.join(resumed.paths.results, 'final.txt')), "first's data\n");
    const submitted = fixture.submissions.at(-1)!;
    assert.deepEqual(JSON.parse(submitted.workflowOptions!), { read_from_cache: true, write_to_cache: true });
    const calls = fixture.workflow(submitted.id)!.calls;
    assert.equal(calls['resumable.first']?.[0]?.callCaching.hit, true);
    assert.equal(calls['resumable.second']?.[0]?.callCaching.hit, false);
    assert.match(end.log, /Call first was taken from Cromwell's call cache/);
    // An operator's server: the resume needs its call caching, which Runyard cannot see.
    assert.match(end.log, /Resuming relies on the server's call caching \(call-caching\.enabled\)/);
    // The cached call's logs are in the resumed job's logs too.
    assert.ok(existsSync(path.join(resumed.paths.logs, 'call-first.stdout')));
  });

  it("on a Cromwell with Cromwell's default configuration (call caching off), a resumed job runs the finished call again", async () => {
    const counter = path.join(scratch, 'counter-defaults');
    const flag = path.join(scratch, 'flag-defaults');
    const inputs = { 'resumable.counter': counter, 'resumable.flag': flag };
    const failed = await runToEnd(wdlRun(RESUMABLE, { inputs, url: defaults.url }));
    assert.equal(failed.code, 1, failed.log);
    writeFileSync(flag, '');
    const resumed = wdlRun(RESUMABLE, { inputs, resume: true, url: defaults.url });
    const end = await runToEnd(resumed);
    assert.equal(end.code, 0, end.log);
    assert.equal(read(counter), 'ran\nran\n', 'the first call ran again');
    const submitted = defaults.submissions.at(-1)!;
    assert.deepEqual(JSON.parse(submitted.workflowOptions!), { read_from_cache: true, write_to_cache: true });
    // As Cromwell says of a call when call-caching.enabled is false (EngineJobExecutionActor).
    assert.deepEqual(defaults.workflow(submitted.id)!.calls['resumable.first']?.[0]?.callCaching, {
      allowResultReuse: false,
      effectiveCallCachingMode: 'CallCachingOff',
    });
    assert.doesNotMatch(end.log, /taken from Cromwell's call cache/);
    assert.match(end.log, /Resuming relies on the server's call caching \(call-caching\.enabled\)/);
  });

  it("on a server of Runyard's, Cromwell's log of the workflow is the job's engine.log, and none of it is in the job's log", async () => {
    const logsDir = workflowLogsDirOf(managedDir);
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'engine', 'hello.times': 1 }, managed: true });
    const task = await cromwellDriver.task(run);
    assert.ok(task.readable?.includes(logsDir), 'the task is shown the workflow log directory');
    const end = await start(task).ended;
    assert.equal(end.code, 0, end.log);
    const { id, workflowOptions } = managed.submissions.at(-1)!;
    assert.deepEqual(JSON.parse(workflowOptions!), {
      read_from_cache: false,
      write_to_cache: true,
      final_workflow_log_dir: path.join(logsDir, 'final'),
    });
    // Cromwell's lines, as its WorkflowLogger writes them: the workflow's start, its calls, its end, the copy.
    const engineLog = read(path.join(run.paths.logs, 'engine.log'));
    const line = (text: string) => new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} INFO  - ${text}$`, 'm');
    assert.match(engineLog, line(`WorkflowManagerActor: Starting workflow UUID\\(${id}\\)`));
    assert.match(engineLog, line(`WorkflowExecutionActor-${id} \\[UUID\\(${id.slice(0, 8)}\\)\\]: Starting hello\\.make`));
    assert.match(
      engineLog,
      line(
        `BackgroundConfigAsyncJobExecutionActor \\[UUID\\(${id.slice(0, 8)}\\)hello\\.count:NA:1\\]: Status change from WaitingForReturnCode to Done`,
      ),
    );
    assert.match(engineLog, /Workflow hello complete\. Final Outputs:/);
    assert.match(engineLog, /CopyWorkflowLogsActor \[UUID\(\w{8}\)\]: Copying workflow logs from /);
    assert.doesNotMatch(end.log, /INFO  - |WorkflowExecutionActor|Status change from/);
    assert.match(end.log, /Cromwell's log of the workflow is in the job's logs: engine\.log\./);
    assert.match(end.log, /Call make: Done/);
    // As Cromwell does: the copy in final/, named in the metadata; the temporary log deleted.
    assert.equal(managed.workflow(id)?.workflowLog, path.join(logsDir, 'final', `workflow.${id}.log`));
    assert.equal(existsSync(path.join(logsDir, `workflow.${id}.log`)), false);
  });

  it("on a server of Runyard's, a failed and an aborted workflow leave their engine.log too", async () => {
    const failing = wdlRun(FAILING, { managed: true });
    const failed = await runToEnd(failing);
    assert.equal(failed.code, 1, failed.log);
    const failedLog = read(path.join(failing.paths.logs, 'engine.log'));
    assert.match(
      failedLog,
      /INFO  - BackgroundConfigAsyncJobExecutionActor \[UUID\(\w{8}\)broken\.check:NA:1\]: Status change from WaitingForReturnCode to Done$/m,
    );
    assert.match(
      failedLog,
      /DEBUG - WorkflowActor-\S+ \[UUID\(\w{8}\)\]: transition from FinalizingWorkflowState to WorkflowFailedState\. Stopping self\.$/m,
    );

    const slow = wdlRun(SLOW, { inputs: { 'slow.seconds': 60 }, managed: true });
    const before = managed.submissions.length;
    const { child, ended } = start(await cromwellDriver.task(slow));
    await until('the call to run', () => {
      const s = managed.submissions[before];
      return !!s && managed.workflow(s.id)?.calls['slow.wait']?.[0]?.executionStatus === 'Running';
    });
    child.kill('SIGTERM');
    const aborted = await ended;
    assert.equal(aborted.code, 143, aborted.log);
    assert.match(
      read(path.join(slow.paths.logs, 'engine.log')),
      /INFO  - WorkflowExecutionActor-\S+ \[UUID\(\w{8}\)\]: Aborting workflow$/m,
    );
  });

  it("hostile: a call that swaps the copy of the workflow's log for a link to a file outside, or a FIFO: engine.log does not read them", async () => {
    const secret = path.join(scratch, 'secret.txt');
    writeFileSync(secret, 'TOP-SECRET-not-for-engine-log\n', { mode: 0o600 });
    const finalDir = path.join(workflowLogsDirOf(managedDir), 'final');
    for (const how of ['link', 'fifo']) {
      const run = wdlRun(SWAPS_THE_LOG, {
        inputs: { 'hostile.final_dir': finalDir, 'hostile.secret': secret, 'hostile.how': how },
        managed: true,
      });
      const end = await runToEnd(run);
      assert.equal(end.code, 0, `${how}: ${end.log}`);
      const { id } = managed.submissions.at(-1)!;
      // The swap happened where Cromwell copied the log (else this proves nothing).
      const swapped = lstatSync(path.join(finalDir, `workflow.${id}.log`));
      assert.ok(how === 'link' ? swapped.isSymbolicLink() : swapped.isFIFO(), how);
      const engineLog = path.join(run.paths.logs, 'engine.log');
      assert.ok(!existsSync(engineLog) || !read(engineLog).includes('TOP-SECRET'), `${how}: engine.log shows the file outside`);
      assert.match(
        end.log,
        new RegExp(
          `The workflow's log \\S+ is not copied to engine\\.log: it is ${how === 'link' ? 'a symbolic link' : 'not a regular file'}\\.`,
        ),
      );
    }
  });

  it('re-attaches to the workflow it submitted when the same attempt starts again', async () => {
    const run = wdlRun(SLOW, { inputs: { 'slow.seconds': 1 } });
    const before = fixture.submissions.length;
    const task = await cromwellDriver.task(run);
    const lost = start(task);
    await until('the submission', () => fixture.submissions.length > before);
    lost.child.kill('SIGKILL');
    await lost.ended;
    const again = await start(await cromwellDriver.task(run)).ended;
    assert.equal(again.code, 0, again.log);
    assert.equal(fixture.submissions.length, before + 1, 'submitted once');
    assert.match(again.log, /Re-attaching to Cromwell workflow [0-9a-f-]{36} \((Submitted|Running|Succeeded)\), submitted by attempt 1/);
    assert.equal(read(path.join(run.paths.results, 'done.txt')), 'done\n');

    // A later attempt (the previous one's task was lost) re-attaches to a workflow that succeeded.
    const later = await start(await cromwellDriver.task({ ...run, job: { ...run.job, attempt: 2 } })).ended;
    assert.equal(later.code, 0, later.log);
    assert.equal(fixture.submissions.length, before + 1);
  });

  it("runs in the bwrap sandbox, reading Cromwell's call directories where the configuration names them", async () => {
    const sandbox = createSandbox({
      sandbox: 'bwrap',
      taskNetwork: 'none',
      taskPath: '/usr/local/bin:/usr/bin:/bin',
      dataDir: config.dataDir,
    });
    const confined = async (run: WdlRun) => {
      const task = await cromwellDriver.task(run);
      confineAsTheAttemptRunner(task, run.paths);
      // The WDL engine makes the failure file (in the control directory, read-only otherwise) writable.
      task.writable!.push(run.failureFile);
      await sandbox.prepare?.(task);
      return start(task, sandbox.argv(task)).ended;
    };
    const withExecutions = { ...config, cromwellExecutionsDir: path.join(scratch, 'cromwell-executions') } as Config;
    const run = { ...wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'sandbox', 'hello.times': 1 } }), config: withExecutions };
    const end = await confined(run);
    assert.equal(end.code, 0, end.log);
    assert.equal(read(path.join(run.paths.results, 'greeting.txt')), 'hello sandbox\n');
    assert.equal(read(path.join(run.paths.logs, 'call-make.stdout')), 'made 1 lines\n');

    // A server of Runyard's: the workflow log directory is shown to the task, which copies the log from it.
    const onManaged = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'sandboxed', 'hello.times': 1 }, managed: true });
    const managedEnd = await confined(onManaged);
    assert.equal(managedEnd.code, 0, managedEnd.log);
    assert.match(read(path.join(onManaged.paths.logs, 'engine.log')), /Starting hello\.make$/m);

    // The failure paragraph reaches the failure file of the control directory.
    const failing = { ...wdlRun(FAILING), config: withExecutions };
    const failed = await confined(failing);
    assert.equal(failed.code, 1, failed.log);
    assert.match(read(failing.failureFile), /failed in call check .*cannot open input\.txt/);

    // Without the executions directory, the output files cannot be read: the job fails saying so.
    const blind = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'blind', 'hello.times': 1 } });
    const unread = await confined(blind);
    assert.equal(unread.code, 1, unread.log);
    assert.match(
      read(blind.failureFile),
      /output files could not be copied .*hello\.greeting .*ENOENT.*must be able to read Cromwell's execution directory/,
    );
    assert.match(unread.log, /The stdout of call hello\.make \(.*\) could not be copied: ENOENT/);
  });

  it("a later attempt submits the workflow again when the earlier attempt's workflow failed", async () => {
    const run = wdlRun(FAILING);
    assert.equal((await runToEnd(run)).code, 1);
    const before = fixture.submissions.length;
    const second = wdlRun(FAILING, { jobId: run.job.id, attempt: 2 });
    const end = await runToEnd(second);
    assert.equal(end.code, 1, end.log);
    assert.equal(fixture.submissions.length, before + 1);
    assert.match(end.log, /Cromwell workflow [0-9a-f-]{36} of attempt 1 ended Failed: the workflow is submitted again\./);
    assert.match(read(second.failureFile), /failed in call check/);
  });

  it('says what Cromwell answered, or that it could not be reached, in the log and the failure file', async () => {
    const wrongPath = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'x' }, url: `${fixture.url}/nowhere` });
    const refused = await runToEnd(wrongPath);
    assert.equal(refused.code, 1);
    assert.match(
      read(wrongPath.failureFile),
      /Cromwell at http:\/\/127\.0\.0\.1:\d+\/nowhere answered 404 Not Found to POST \/api\/workflows\/v1: The requested resource could not be found\./,
    );
    assert.match(refused.log, /answered 404/);

    // A port nothing listens on.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const closed = wdlRun(TWO_TASKS, { url: `http://127.0.0.1:${port}` });
    const unreachable = await runToEnd(closed);
    assert.equal(unreachable.code, 1);
    assert.match(
      read(closed.failureFile),
      new RegExp(`Cromwell at http://127\\.0\\.0\\.1:${port} could not be reached \\(POST /api/workflows/v1\\): connect ECONNREFUSED`),
    );
  });

  it('fixture: refuses what Cromwell refuses', async () => {
    const post = (form: FormData) => fetch(`${fixture.url}/api/workflows/v1`, { method: 'POST', body: form });
    const noSource = new FormData();
    noSource.append('workflowInputs', '{}');
    const r1 = await post(noSource);
    assert.equal(r1.status, 400);
    assert.deepEqual(await r1.json(), { status: 'fail', message: 'Error(s): workflowSource or workflowUrl needs to be supplied' });
    const unknown = new FormData();
    unknown.append('workflowSource', 'version 1.0');
    unknown.append('inputs', '{}');
    const r2 = await post(unknown);
    assert.equal(r2.status, 400);
    assert.match(((await r2.json()) as { message: string }).message, /Unexpected body part name: inputs/);
    const r3 = await fetch(`${fixture.url}/api/workflows/v1/00000000-0000-0000-0000-000000000000/status`);
    assert.equal(r3.status, 404);
    assert.match(((await r3.json()) as { message: string }).message, /Unrecognized workflow ID/);
    const r4 = await fetch(`${fixture.url}/api/workflows/v1/not-an-id/status`);
    assert.equal(r4.status, 400);
  });
});
