import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { nextflowHomeEnv } from '../../../../test/support/nextflow-home.js';
import { loadConfig, type Config } from '../../src/config.js';
import { nextflowEngine } from '../../src/engines/nextflow.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { createSandbox } from '../../src/executors/sandbox/sandbox.js';
import { FIXTURE_BIN } from '../scheduler/helpers.js';
import { confineAsTheAttemptRunner, jobRow, pathsFor, workflowRow } from './rows.js';

const NEXTFLOW = path.join(FIXTURE_BIN, 'nextflow');

/** A launch directory with a pipeline (main.nf and its nextflow.config). */
function launchDir(config = ''): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-nfc-'));
  writeFileSync(path.join(dir, 'main.nf'), 'workflow { }\n');
  writeFileSync(path.join(dir, 'nextflow.config'), config);
  // The fixture's default version installed in its home, as the launcher wants it.
  mkdirSync(path.join(dir, 'home', 'framework', '23.10.1'), { recursive: true });
  writeFileSync(path.join(dir, 'home', 'framework', '23.10.1', 'nextflow-23.10.1-one.jar'), '');
  return dir;
}

function nextflow(dir: string, args: string[], params: Record<string, unknown> = {}) {
  writeFileSync(path.join(dir, 'params.json'), JSON.stringify(params));
  const argv = [
    ...args.slice(0, args.indexOf('run') + 1),
    'main.nf',
    '-params-file',
    'params.json',
    ...args.slice(args.indexOf('run') + 1),
  ];
  return spawnSync(NEXTFLOW, argv, { cwd: dir, encoding: 'utf8', env: { ...process.env, NXF_HOME: path.join(dir, 'home'), NXF_VER: '' } });
}

/** The session ids of the launch directory's history, oldest first. */
function sessions(dir: string): string[] {
  return readFileSync(path.join(dir, '.nextflow', 'history'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t')[5]);
}

// The fixture nextflow refuses what the real program refuses (nextflow-io/nextflow: ConfigBuilder,
// TraceHelper, DefaultCacheStore, TaskProcessor, CmdRun), so that Runyard's way of running it is the one that works with the real one.
describe('the nextflow fixture follows the real program', { timeout: 120_000 }, () => {
  it('rejects a profile no configuration declares, as ConfigBuilder.checkValidProfile does', () => {
    const dir = launchDir("profiles {\n  test { params.small = true }\n  'docker' {\n    process { cpus = 2 }\n  }\n}\n");
    const ok = nextflow(dir, ['run', '-profile', 'test,docker', '-name', 'one']);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /Profile: test,docker/);
    for (const [profile, unknown] of [
      ['test,nope', 'nope'],
      ['process', 'process'],
      ['small', 'small'],
    ]) {
      const r = nextflow(dir, ['run', '-profile', profile, '-name', 'two']);
      assert.equal(r.status, 1);
      assert.equal(r.stderr, `ERROR ~ Unknown configuration profile: '${unknown}'\n`);
    }
    // A profile declared in a -c file, or in $NXF_HOME/config, counts.
    writeFileSync(path.join(dir, 'extra.config'), 'profiles { extra { } }\n');
    writeFileSync(path.join(dir, 'home', 'config'), 'profiles { site { } }\n');
    const more = nextflow(dir, ['-c', 'extra.config', 'run', '-profile', 'extra,site', '-name', 'three']);
    assert.equal(more.status, 0, more.stderr);
  });

  it("refuses to overwrite a trace file, unless trace.overwrite is set (Nextflow 22.10+'s TraceHelper)", () => {
    const dir = launchDir();
    const trace = path.join(dir, 'logs', 'trace.txt');
    assert.equal(nextflow(dir, ['run', '-with-trace', trace, '-name', 'first']).status, 0);
    const again = nextflow(dir, ['run', '-with-trace', trace, '-name', 'second']);
    assert.equal(again.status, 1);
    assert.equal(
      again.stderr,
      `ERROR ~ Trace file already exists: ${trace} -- enable the 'trace.overwrite' option in your config file to overwrite existing files\n`,
    );
    writeFileSync(path.join(dir, 'overwrite.config'), 'trace.overwrite = true\n');
    const overwritten = nextflow(dir, ['-c', 'overwrite.config', 'run', '-with-trace', trace, '-name', 'third']);
    assert.equal(overwritten.status, 0, overwritten.stderr);
    assert.equal(readFileSync(trace, 'utf8').trim().split('\n').length, 3);
  });

  it('-resume resumes the last session of the history and skips the tasks it completed; a used run name is refused', () => {
    const dir = launchDir();
    const first = nextflow(dir, ['run', '-name', 'first'], { failAt: 2 });
    assert.equal(first.status, 1);
    assert.match(first.stdout, /\] process > PROC_1 \[100%\] 1 of 1 ✔/);
    const resumed = nextflow(dir, ['run', '-name', 'second', '-resume', '-with-trace', 'trace.txt']);
    assert.equal(resumed.status, 0, resumed.stderr);
    const [one, two] = sessions(dir);
    assert.equal(one, two, 'the same session');
    assert.match(resumed.stdout, new RegExp(`Resuming session ${one}\\n`));
    assert.match(resumed.stdout, /^\[[0-9a-f]{2}\/[0-9a-f]{6}\] Cached process > PROC_1$/m);
    assert.doesNotMatch(resumed.stdout, /process > PROC_1 \[100%\]/);
    assert.match(resumed.stdout, /process > PROC_2 \[100%\] 1 of 1 ✔/);
    assert.deepEqual(
      readFileSync(path.join(dir, 'trace.txt'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t')[4]),
      ['CACHED', 'COMPLETED'],
    );
    // Without -resume, a new session runs everything.
    const fresh = nextflow(dir, ['run', '-name', 'third']);
    assert.doesNotMatch(fresh.stdout, /Cached/);
    assert.notEqual(sessions(dir)[2], one);
    const used = nextflow(dir, ['run', '-name', 'third']);
    assert.equal(used.status, 1);
    assert.equal(used.stderr, 'ERROR ~ Run name `third` has been already used -- Specify a different one\n');
    // Nothing to resume in a new launch directory: the option is ignored with a warning.
    const none = nextflow(launchDir(), ['run', '-resume']);
    assert.equal(none.status, 0, none.stderr);
    assert.match(none.stdout, /It appears you have never run this project before -- Option `-resume` is ignored/);
  });

  it('refuses to resume a session another run holds ("Unable to acquire lock"); a killed holder holds nothing', async () => {
    const dir = launchDir();
    writeFileSync(path.join(dir, 'params.json'), JSON.stringify({ sleep: 60 }));
    const holder = spawn(NEXTFLOW, ['run', 'main.nf', '-params-file', 'params.json', '-name', 'holder'], {
      cwd: dir,
      env: { ...process.env, NXF_HOME: path.join(dir, 'home') },
      stdio: 'ignore',
    });
    const exited = new Promise((r) => holder.on('exit', r));
    try {
      const deadline = Date.now() + 120_000;
      while (!(existsSync(path.join(dir, '.nextflow', 'history')) && sessions(dir).length === 1)) {
        assert.ok(Date.now() < deadline, 'the first run started');
        await new Promise((r) => setTimeout(r, 50));
      }
      const [session] = sessions(dir);
      await new Promise((r) => setTimeout(r, 200));
      const second = nextflow(dir, ['run', '-name', 'second', '-resume']);
      assert.equal(second.status, 1);
      assert.ok(second.stderr.startsWith(`ERROR ~ Unable to acquire lock on session with ID ${session}\n\nCommon reasons`), second.stderr);
      // A run of a new session in the same directory is not refused (as with Nextflow).
      assert.equal(nextflow(dir, ['run', '-name', 'other']).status, 0);
      holder.kill('SIGKILL');
      await exited;
      const third = nextflow(dir, ['run', '-name', 'third', '-resume', session]);
      assert.equal(third.status, 0, third.stderr);
    } finally {
      holder.kill('SIGKILL');
    }
  });
});

describe('the nextflow engine with the fixture', { timeout: 120_000 }, () => {
  let mirror: GitMirror;
  let commit: string;
  let config: Config;
  before(() => {
    mirror = createGitMirror();
    commit = mirror.create('acme/pipe', { files: { 'main.nf': 'workflow { }\n', 'nextflow.config': '' } }).heads.main;
    config = loadConfig({
      RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-nfe-')),
      RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
      ...nextflowHomeEnv(),
    });
  });
  after(() => mirror.remove());

  it("a later attempt of a job writes its trace file again and resumes the earlier attempt's session", async () => {
    const paths = pathsFor(config.dataDir);
    const workflow = workflowRow({ workflow_type: 'nextflow', repository_url: 'https://github.com/acme/pipe', main_file: 'main.nf' });
    const revision_json = JSON.stringify({ commit });
    // The server's sandbox: a root server's tasks run as their own user, given what they read in the data directory.
    const executor = new LocalExecutor(undefined, createSandbox(config));
    const run = async (attempt: number, argv?: (a: string[]) => string[]) => {
      const row = jobRow({ workflow_type: 'nextflow', revision_json, resumable: 1, attempt, params: [{ name: 'failAt', textValue: 2 }] });
      const task = await nextflowEngine.prepare(row, workflow, paths, config);
      if (argv) task.argv = argv(task.argv);
      confineAsTheAttemptRunner(task, paths);
      const control = { dir: paths.control, attempt };
      return executor.wait(control, await executor.launch(task, control));
    };
    assert.deepEqual(await run(1), { state: 'exited', exitCode: 1 });
    const trace = path.join(paths.logs, 'trace.txt');
    assert.ok(existsSync(trace));
    // Without Runyard's config, the fixture refuses the existing trace file as Nextflow 22.10+ does.
    assert.deepEqual(await run(2, (a) => a.filter((arg, i) => arg !== '-c' && a[i - 1] !== '-c')), { state: 'exited', exitCode: 1 });
    assert.match(readFileSync(path.join(paths.logs, 'stdout.txt'), 'utf8'), /ERROR ~ Trace file already exists: .*trace\.txt/);
    assert.deepEqual(await run(3), { state: 'exited', exitCode: 1 });
    const out = readFileSync(path.join(paths.logs, 'stdout.txt'), 'utf8');
    assert.match(out, /Cached process > PROC_1\n/);
    assert.deepEqual(
      readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t').slice(3, 5).join(' ')),
      ['PROC_1 CACHED', 'PROC_2 FAILED'],
    );
  });
});
