import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.js';
import { EngineError } from '../../src/engines/engine.js';
import { WDL_TASK_SHARED_DIR, type WdlRun } from '../../src/engines/wdl/driver.js';
import { MINIWDL_TASK, miniwdlDriver } from '../../src/engines/wdl/miniwdl.js';
import type { TaskSpec } from '../../src/executors/executor.js';
import { createSandbox } from '../../src/executors/sandbox/sandbox.js';
import { failureFileOf, jobPaths, type JobPaths } from '../../src/scheduler/job-paths.js';
import { confineAsTheAttemptRunner, jobRow, workflowRow } from './rows.js';

/**
 * The miniwdl driver's task, run directly (spawned with the argv and env the driver returns,
 * outside the executor). miniwdl is not installable here (not in Debian, no PyPI), so the task
 * finds test/fixtures/bin/miniwdl first on its PATH: a stand-in that follows `miniwdl run`'s
 * contract (arguments, run directory, outputs.json, error.json, exit codes, call cache, SIGTERM).
 */

const FIXTURE_BIN = fileURLToPath(new URL('../../../../test/fixtures/bin', import.meta.url));
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

/** A main file whose task comes from the imports zip (lib/tasks.wdl), resolved relative to the main file. */
const WITH_IMPORT = `version 1.0

import "lib/tasks.wdl" as lib

workflow greeter {
  input {
    String who
  }
  call lib.shout { input: who = who }
  output {
    File loud = shout.loud
  }
}
`;

const LIB_TASKS = `version 1.0

task shout {
  input {
    String who
  }
  command <<<
    echo "HELLO ~{who}" > loud.txt
  >>>
  output {
    File loud = "loud.txt"
  }
}
`;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  log: string;
}

describe('miniwdl driver', { timeout: 120_000 }, () => {
  let config: Config;
  let scratch: string;
  let jobs = 0;

  before(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'runyard-miniwdl-'));
    config = loadConfig({
      RUNYARD_DATA_DIR: path.join(scratch, 'data'),
      RUNYARD_ABORT_GRACE_MS: '8000',
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    });
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  interface RunOptions {
    inputs?: Record<string, unknown>;
    jobId?: string;
    attempt?: number;
    resume?: boolean;
    /** The work directory of another job (a resumed job runs in its parent's). */
    work?: string;
    imports?: Record<string, string>;
    config?: Config;
  }

  /** An imports zip of these files (Python's zipfile: the test has no zip library). */
  function zipOf(files: Record<string, string>, dest: string): void {
    const script =
      'import json, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], "w")\nfor k, v in json.loads(sys.argv[2]).items(): z.writestr(k, v)\nz.close()\n';
    execFileSync('python3', ['-c', script, dest, JSON.stringify(files)]);
  }

  /** A WdlRun as the WDL engine hands it to the driver: sources and inputs file written. */
  function wdlRun(wdl: string, o: RunOptions = {}): WdlRun {
    const jobId = o.jobId ?? `65f0c0ffee00000000${String(++jobs).padStart(6, '0')}`;
    const attempt = o.attempt ?? 1;
    const own = jobPaths(config.dataDir, WORKSPACE, jobId);
    const paths: JobPaths = o.work ? { ...own, work: o.work } : own;
    for (const dir of [paths.work, paths.logs, paths.results, paths.control]) mkdirSync(dir, { recursive: true });
    const src = path.join(paths.control, 'src');
    mkdirSync(path.join(src, 'workflows'), { recursive: true });
    const mainFile = path.join(src, 'workflows', 'main.wdl');
    writeFileSync(mainFile, wdl);
    let importsFile: string | null = null;
    if (o.imports) {
      importsFile = path.join(src, 'imports.zip');
      zipOf(o.imports, importsFile);
    }
    const inputsJson = o.inputs ?? {};
    const inputsFile = path.join(paths.control, `inputs-${attempt}.json`);
    writeFileSync(inputsFile, JSON.stringify(inputsJson), { mode: 0o600 });
    // As the WDL engine leaves it: empty, and writable to the task.
    const failureFile = failureFileOf(paths.control, attempt);
    writeFileSync(failureFile, '', { mode: 0o600 });
    return {
      job: jobRow({ id: jobId, workflow_type: 'wdl', attempt, resumable: 1 }),
      workflow: workflowRow({ workflow_type: 'wdl', main_file: 'workflows/main.wdl' }),
      paths,
      // The driver writes where it is told (the engine tells it results/ of the job's results).
      resultsDir: paths.results,
      config: o.config ?? config,
      inputs: undefined,
      server: { id: 'engine', driver: 'miniwdl', url: null, managed: false },
      src,
      mainFile,
      importsFile,
      inputsJson,
      inputsFile,
      resume: o.resume ?? false,
      failureFile,
      preamble: ['Runyard: WDL engine miniwdl'],
    };
  }

  /** Spawns the task as the executor would (argv, env, cwd, log file); argv may be a sandbox's. */
  function start(task: TaskSpec, argv = task.argv): { child: ChildProcess; ended: Promise<Ended> } {
    const fd = openSync(task.logFile, 'a');
    const child = spawn(argv[0]!, argv.slice(1), { cwd: task.cwd, env: task.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const ended = new Promise<Ended>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal, log: readFileSync(task.logFile, 'utf8') })),
    );
    return { child, ended };
  }

  async function runToEnd(run: WdlRun): Promise<Ended> {
    return start(await miniwdlDriver.task(run)).ended;
  }

  async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await sleep(25);
    }
  }

  const read = (file: string) => readFileSync(file, 'utf8');
  const runsOf = (run: WdlRun) => path.join(run.paths.work, 'runyard-miniwdl', 'runs');

  it('makes a task that carries nothing of the run on its command line, and needs miniwdl on the task PATH', async () => {
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'world' } });
    const task = await miniwdlDriver.task(run);
    assert.deepEqual(task.argv, [process.execPath, MINIWDL_TASK]);
    assert.match(MINIWDL_TASK, /\/dist\/engines\/wdl\/miniwdl-task\/main\.mjs$/);
    assert.ok(existsSync(MINIWDL_TASK), 'the task is built');
    const controlFile = task.env.RUNYARD_MINIWDL_CONTROL!;
    assert.equal(statSync(controlFile).mode & 0o777, 0o600);
    const control = JSON.parse(read(controlFile));
    assert.equal(control.inputsFile, run.inputsFile);
    assert.equal(control.failureFile, run.failureFile);
    assert.equal(control.resume, false);
    assert.ok(!JSON.stringify(task.env).includes('world') && !task.argv.join(' ').includes('world'), 'no input value in argv or env');
    assert.deepEqual(task.readable, [path.dirname(MINIWDL_TASK), WDL_TASK_SHARED_DIR]);
    assert.equal(task.cwd, run.paths.work);
    assert.equal(task.logFile, path.join(run.paths.logs, 'stdout.txt'));
    assert.match(task.preamble!.at(-1)!, new RegExp(`runs ${FIXTURE_BIN}/miniwdl \\(miniwdl run\\)`));

    const noMiniwdl = { ...config, taskPath: '/usr/bin:/bin' };
    await assert.rejects(miniwdlDriver.task(wdlRun(TWO_TASKS, { config: noMiniwdl })), (e: Error) => {
      assert.ok(e instanceof EngineError);
      assert.match(e.message, /miniwdl was not found on the task PATH \(RUNYARD_TASK_PATH\)/);
      return true;
    });
  });

  it('runs a two-task workflow: File outputs in results, every output in outputs.json, call logs in logs', async () => {
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'world', 'hello.times': 3 } });
    const end = await runToEnd(run);
    assert.equal(end.code, 0, end.log);
    const { results, logs } = run.paths;
    assert.equal(read(path.join(results, 'greeting.txt')), 'hello world\nhello world\nhello world\n');
    assert.deepEqual(readdirSync(results).sort(), ['greeting.txt', 'outputs.json']);
    const outputs = JSON.parse(read(path.join(results, 'outputs.json')));
    assert.equal(outputs['hello.said'], 'made 3 lines');
    assert.equal(outputs['hello.lines'], 3);
    const runDir = path.join(runsOf(run), `${run.job.id}-1`);
    // The File as its copy in the results, not miniwdl's link in its run directory.
    assert.equal(outputs['hello.greeting'], 'greeting.txt');
    assert.equal(read(path.join(logs, 'call-make.stdout')), 'made 3 lines\n');
    assert.equal(read(path.join(logs, 'call-make.stderr')), 'a warning\n');
    assert.equal(read(path.join(logs, 'call-count.stdout')), '3\n');
    assert.equal(read(path.join(logs, 'call-count.stderr')), '');
    assert.equal(read(run.failureFile), '');
    // The job's log: miniwdl's lines at its default level (NOTICE and up) and the calls' stderr it relays.
    assert.match(end.log, /wdl\.w:hello NOTICE workflow start/);
    assert.match(end.log, /wdl\.w:hello\.t:call-make NOTICE done/);
    assert.match(end.log, /wdl\.w:hello\.t:call-make\.stderr VERBOSE a warning/);
    assert.match(end.log, /Runyard: output hello\.greeting: greeting\.txt/);
    // The rest of miniwdl's --verbose log and its outputs JSON are its own: engine.log, beside the job's log.
    const engineLog = read(path.join(logs, 'engine.log'));
    assert.doesNotMatch(end.log, / INFO command :: |"dir": /);
    assert.match(engineLog, /wdl\.w:hello\.t:call-make INFO command :: command: /);
    assert.match(engineLog, /wdl\.w:hello\.t:call-make\.stderr VERBOSE a warning/);
    assert.match(engineLog, /"dir": ".*runyard-miniwdl\/runs\/65f0c0ffee\d+-1"/);
    assert.doesNotMatch(engineLog, /Runyard: /);
    // Call caching is on (put), in the work directory, but nothing is taken from it on a first run.
    assert.match(read(path.join(runDir, 'rerun')), /--dir/);
    assert.ok(readdirSync(path.join(run.paths.work, 'runyard-miniwdl', 'call-cache')).includes('make'));
    assert.doesNotMatch(end.log, /call cache hit/);
  });

  it('fails with exit code 1 and a failure paragraph naming the call, its exit code and the end of its stderr', async () => {
    const run = wdlRun(FAILING);
    const end = await runToEnd(run);
    assert.equal(end.code, 1, end.log);
    assert.equal(
      read(run.failureFile),
      'The WDL call check failed: its command exited with code 3. Its stderr ends with: cannot open input.txt: No such file or directory\n',
    );
    assert.match(read(path.join(run.paths.logs, 'call-check.stdout')), /^checking \/.*\/made\.txt\n$/);
    assert.match(read(path.join(run.paths.logs, 'call-check.stderr')), /cannot open input\.txt/);
    assert.ok(existsSync(path.join(run.paths.logs, 'call-make.stdout')));
    assert.deepEqual(readdirSync(run.paths.results), []);
    // miniwdl's error.json names the call; miniwdl exits with the command's code.
    const error = JSON.parse(read(path.join(runsOf(run), `${run.job.id}-1`, 'error.json')));
    assert.equal(error.cause.error, 'CommandFailed');
    assert.equal(error.cause.run, 'call-check');
    assert.match(end.log, /miniwdl-run ERROR task command failed with exit status 3/);

    // The failure file keeps the first reason: a second run of the attempt does not overwrite it.
    writeFileSync(run.failureFile, 'an earlier reason\n');
    assert.equal((await runToEnd(run)).code, 1);
    assert.equal(read(run.failureFile), 'an earlier reason\n');
    assert.ok(existsSync(path.join(runsOf(run), `${run.job.id}-1.2`)), 'the same attempt again runs in a directory of its own');
    assert.ok(existsSync(path.join(run.paths.logs, 'call-check-2.stdout')), "the second run's call logs beside the first's");
  });

  it('says what miniwdl refused before running anything', async () => {
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.nme': 'typo' } });
    const end = await runToEnd(run);
    assert.equal(end.code, 1, end.log);
    assert.equal(
      read(run.failureFile),
      'miniwdl exited with code 2 before it ran the workflow: check JSON input; unknown input/output: hello.nme.\n',
    );
  });

  it('resumes with the call cache: the finished call is not run again', async () => {
    const counter = path.join(scratch, 'counter');
    const flag = path.join(scratch, 'flag');
    const inputs = { 'resumable.counter': counter, 'resumable.flag': flag };
    const first = wdlRun(RESUMABLE, { inputs });
    const failed = await runToEnd(first);
    assert.equal(failed.code, 1, failed.log);
    assert.match(read(first.failureFile), /^The WDL call second failed: its command exited with code 1\. Its stderr ends with: missing /);

    writeFileSync(flag, '');
    // The resumed job: a new job (its own logs, results and control directory) in its parent's work directory.
    const resumed = wdlRun(RESUMABLE, { inputs, resume: true, work: first.paths.work });
    const end = await runToEnd(resumed);
    assert.equal(end.code, 0, end.log);
    assert.equal(read(counter), 'ran\n', 'the first call ran once');
    assert.equal(read(path.join(resumed.paths.results, 'final.txt')), "first's data\n");
    assert.match(end.log, /Runyard: resuming: miniwdl takes the calls that finished earlier from its call cache/);
    assert.match(end.log, /miniwdl-run NOTICE call cache hit/);
    assert.match(end.log, /Runyard: call first was taken from miniwdl's call cache: it did not run again\./);
    // Only the call that ran has logs in the resumed job.
    assert.deepEqual(
      readdirSync(resumed.paths.logs)
        .filter((f) => f.startsWith('call-'))
        .sort(),
      ['call-second.stderr', 'call-second.stdout'],
    );

    // A workflow that succeeded with the same inputs: miniwdl takes it whole from its cache.
    const again = wdlRun(RESUMABLE, { inputs, resume: true, work: first.paths.work });
    const cached = await runToEnd(again);
    assert.equal(cached.code, 0, cached.log);
    assert.match(cached.log, /Runyard: miniwdl took the whole workflow from its call cache: no call ran again\./);
    assert.equal(read(path.join(again.paths.results, 'final.txt')), "first's data\n");
    assert.equal(read(counter), 'ran\n');

    // Without resume, the cache is not read: the first call runs again.
    const fresh = wdlRun(RESUMABLE, { inputs, work: first.paths.work });
    assert.equal((await runToEnd(fresh)).code, 0);
    assert.equal(read(counter), 'ran\nran\n');
  });

  it('passes SIGTERM on to miniwdl, which stops the call; exits 143 with the call logs copied', async () => {
    const run = wdlRun(SLOW, { inputs: { 'slow.seconds': 60 } });
    const { child, ended } = start(await miniwdlDriver.task(run));
    const stdout = path.join(runsOf(run), `${run.job.id}-1`, 'call-wait', 'stdout.txt');
    await until('the call to run', () => existsSync(stdout) && read(stdout) === 'started\n');
    const t0 = Date.now();
    child.kill('SIGTERM');
    const end = await ended;
    assert.equal(end.code, 143, end.log);
    assert.ok(Date.now() - t0 < 6000, 'stopped before the call would have ended');
    assert.match(end.log, /miniwdl-run CRITICAL aborting workflow :: signal: 15/);
    assert.match(end.log, /Runyard: stopped \(SIGTERM\): miniwdl exited with code 2\./);
    assert.equal(read(path.join(run.paths.logs, 'call-wait.stdout')), 'started\n');
    const error = JSON.parse(read(path.join(runsOf(run), `${run.job.id}-1`, 'error.json')));
    assert.equal(error.cause.error, 'Terminated');
    assert.equal(read(run.failureFile), '', 'a stop is not a failure of the workflow');
    await sleep(300);
    assert.ok(!existsSync(path.join(runsOf(run), `${run.job.id}-1`, 'call-wait', 'work', 'done.txt')), 'the call did not go on');
  });

  it('unpacks the imports zip beside a copy of the main file: with the Python running miniwdl, else with unzip', async () => {
    // The fixture is a Node script: its imports are unpacked with unzip from the task PATH.
    const withUnzip = wdlRun(WITH_IMPORT, { inputs: { 'greeter.who': 'zip' }, imports: { 'lib/tasks.wdl': LIB_TASKS } });
    const a = await runToEnd(withUnzip);
    assert.equal(a.code, 0, a.log);
    assert.equal(read(path.join(withUnzip.paths.results, 'loud.txt')), 'HELLO zip\n');
    assert.match(a.log, /Runyard: unpacking the imports file with \/usr\/bin\/unzip: .* is not a Python script\./);
    const sources = path.join(withUnzip.paths.work, 'runyard-miniwdl', 'sources', `${withUnzip.job.id}-1`);
    assert.deepEqual(readdirSync(sources).sort(), ['lib', 'main.wdl']);
    assert.equal(read(path.join(withUnzip.paths.logs, 'call-shout.stdout')), '');

    // A real miniwdl is a Python script: its Python's zipfile unpacks them (here a Python miniwdl that runs the fixture).
    const bin = path.join(scratch, 'python-miniwdl');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      path.join(bin, 'miniwdl'),
      `#!/usr/bin/python3\nimport os, sys\nos.execv(${JSON.stringify(path.join(FIXTURE_BIN, 'miniwdl'))}, ['miniwdl'] + sys.argv[1:])\n`,
      { mode: 0o755 },
    );
    const pythonConfig = { ...config, taskPath: `${bin}${path.delimiter}${config.taskPath}` };
    const imports = { 'lib/tasks.wdl': LIB_TASKS, 'main.wdl': 'version 1.0\n# the main file wins over an entry of its name\n' };
    const withPython = wdlRun(WITH_IMPORT, { inputs: { 'greeter.who': 'python' }, imports, config: pythonConfig });
    const b = await runToEnd(withPython);
    assert.equal(b.code, 0, b.log);
    assert.equal(read(path.join(withPython.paths.results, 'loud.txt')), 'HELLO python\n');
    assert.doesNotMatch(b.log, /unpacking the imports file with/);

    // A zip miniwdl cannot use: what it said is the job's failure.
    const broken = wdlRun(WITH_IMPORT, { inputs: { 'greeter.who': 'x' }, imports: { 'other.wdl': LIB_TASKS } });
    assert.equal((await runToEnd(broken)).code, 1);
    assert.match(read(broken.failureFile), /^miniwdl exited with code 2 before it ran the workflow: .*Failed to import lib\/tasks\.wdl/);
  });

  it('runs in the bwrap sandbox', async () => {
    const sandbox = createSandbox({ sandbox: 'bwrap', taskNetwork: 'none', taskPath: config.taskPath, dataDir: config.dataDir });
    const confined = async (run: WdlRun) => {
      const task = await miniwdlDriver.task(run);
      confineAsTheAttemptRunner(task, run.paths);
      // The WDL engine makes the failure file (in the control directory, read-only otherwise) writable.
      task.writable = [...(task.writable ?? []), run.failureFile];
      await sandbox.prepare?.(task);
      return start(task, sandbox.argv(task)).ended;
    };
    const run = wdlRun(TWO_TASKS, { inputs: { 'hello.name': 'sandbox', 'hello.times': 1 } });
    const end = await confined(run);
    assert.equal(end.code, 0, end.log);
    assert.equal(read(path.join(run.paths.results, 'greeting.txt')), 'hello sandbox\n');
    assert.equal(read(path.join(run.paths.logs, 'call-make.stdout')), 'made 1 lines\n');

    const failing = wdlRun(FAILING);
    const failed = await confined(failing);
    assert.equal(failed.code, 1, failed.log);
    assert.match(read(failing.failureFile), /^The WDL call check failed: its command exited with code 3\./);
  });
});
