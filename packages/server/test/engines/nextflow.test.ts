import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type Config } from '../../src/config.js';
import { EngineError } from '../../src/engines/engine.js';
import { nextflowEngine, RUNYARD_NEXTFLOW_CONFIG } from '../../src/engines/nextflow.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { createSandbox } from '../../src/executors/sandbox/sandbox.js';
import { groupMembers } from '../../src/executors/proc.js';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { nextflowHomeEnv } from '../../../../test/support/nextflow-home.js';
import { FIXTURE_BIN } from '../scheduler/helpers.js';
import { allCmdlines, cmdlinesHolding } from './cmdlines.js';
import { confineAsTheAttemptRunner, jobRow, pathsFor, workflowRow } from './rows.js';

describe('nextflow engine', { timeout: 300_000 }, () => {
  let mirror: GitMirror;
  let commit: string;
  let config: Config;
  const workflow = () =>
    workflowRow({ workflow_type: 'nextflow', repository_url: 'https://github.com/acme/pipe', main_file: 'pipelines/main.nf' });
  before(() => {
    mirror = createGitMirror();
    commit = mirror.create('acme/pipe', { files: { 'pipelines/main.nf': 'workflow { }\n', 'README.md': 'x' } }).heads.main;
    config = loadConfig({
      RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-nf-')),
      RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
      ...nextflowHomeEnv(),
    });
  });
  after(() => mirror.remove());

  const job = (values: Parameters<typeof jobRow>[0] = {}) =>
    jobRow({
      workflow_type: 'nextflow',
      revision_json: JSON.stringify({ revisionType: 'branch', commit, branch: 'main', tag: '' }),
      ...values,
    });

  it('materialises the commit and launches nextflow run with the params file, work dir, trace, name, profile and NXF_VER', async () => {
    const paths = pathsFor(config.dataDir);
    const row = job({
      nextflow_version: '22.10.8',
      profile: 'test,docker',
      params: [
        { name: 'reads', textValue: 's3://b/*.fq' },
        { name: 'n', textValue: 3 },
        { name: 'skip', textValue: 'false' },
        { name: 'ratio', textValue: '0.5' },
        { name: 'sample', textValue: '007a' },
      ],
    });
    const task = await nextflowEngine.prepare(row, workflow(), paths, config);
    const src = path.join(paths.control, 'src');
    const paramsFile = path.join(paths.control, 'params-1.json');
    assert.deepEqual(task.argv, [
      path.join(FIXTURE_BIN, 'nextflow'),
      '-log',
      path.join(paths.logs, '.nextflow.log'),
      '-c',
      path.join(paths.control, 'runyard-1.config'),
      'run',
      path.join(src, 'pipelines/main.nf'),
      '-params-file',
      paramsFile,
      '-work-dir',
      paths.work,
      '-with-trace',
      path.join(paths.logs, 'trace.txt'),
      '-name',
      `runyard-${row.id}-1`,
      '-profile',
      'test,docker',
    ]);
    assert.equal(readFileSync(path.join(src, 'pipelines/main.nf'), 'utf8'), 'workflow { }\n');
    // Typed as Nextflow types `--name value` on its command line: booleans and numbers.
    assert.deepEqual(JSON.parse(readFileSync(paramsFile, 'utf8')), {
      reads: 's3://b/*.fq',
      n: 3,
      skip: false,
      ratio: 0.5,
      sample: '007a',
      outdir: path.join(paths.results, 'results'),
    });
    assert.equal(statSync(paramsFile).mode & 0o777, 0o600);
    // Runyard's config over the pipeline's: a later attempt may write the trace file again.
    assert.equal(readFileSync(path.join(paths.control, 'runyard-1.config'), 'utf8'), RUNYARD_NEXTFLOW_CONFIG);
    assert.match(RUNYARD_NEXTFLOW_CONFIG, /^trace\.overwrite = true$/m);
    assert.equal(task.env.NXF_VER, '22.10.8');
    assert.equal(task.env.HOME, paths.work);
    assert.equal(task.cwd, paths.work);
    assert.equal(task.logFile, path.join(paths.logs, 'stdout.txt'));
  });

  it('keeps an outdir the job gives; a resumable job re-run as a later attempt gets -resume', async () => {
    const paths = pathsFor(config.dataDir);
    const task = await nextflowEngine.prepare(
      job({ attempt: 2, resumable: 1, params: [{ name: 'outdir', textValue: 'mine' }] }),
      workflow(),
      paths,
      config,
    );
    assert.equal(task.argv.at(-1), '-resume');
    assert.ok(task.argv.includes(`runyard-${jobRow().id}-2`));
    assert.equal(JSON.parse(readFileSync(path.join(paths.control, 'params-2.json'), 'utf8')).outdir, 'mine');
    assert.equal(task.env.NXF_VER, undefined);
  });

  it("puts the parametersFile under the parameters, staged inputs as paths; a job in another job's work directory gets -resume", async () => {
    const paths = { ...pathsFor(config.dataDir), workPrefix: 'ws/jobs/parent/work' };
    const inputs = {
      parameters: new Map([[1, { value: '/in/reads/*.fq', files: ['/in/reads/a.fq'] }]]),
      paramsFile: { genome: 'hg19', reads: 'from-file', nested: { depth: 2 } },
      readPaths: ['/in/reads'],
      held: [],
      notes: ['Runyard: a note'],
    };
    const task = await nextflowEngine.prepare(
      job({
        parameters_json: JSON.stringify([
          { prefix: '--', name: 'genome', parameterKind: 'textValue', textValue: 'hg38' },
          { prefix: '--', name: 'reads', parameterKind: 'globPattern', globPattern: '*.fq', folder: 'F' },
        ]),
      }),
      workflow(),
      paths,
      config,
      inputs,
    );
    assert.deepEqual(JSON.parse(readFileSync(path.join(paths.control, 'params-1.json'), 'utf8')), {
      genome: 'hg38',
      reads: '/in/reads/*.fq',
      nested: { depth: 2 },
      outdir: path.join(paths.results, 'results'),
    });
    assert.equal(task.argv.at(-1), '-resume');
    assert.deepEqual(task.preamble, ['Runyard: a note']);
  });

  it('T11: parameter values are in the params file only, on no command line of the machine while the task runs', async () => {
    const paths = pathsFor(config.dataDir);
    const secret = `canary-${randomUUID()}`;
    const task = await nextflowEngine.prepare(
      job({
        params: [
          { name: 'token', textValue: secret },
          { name: 'sleep', textValue: 1 },
        ],
      }),
      workflow(),
      paths,
      config,
    );
    assert.ok(!task.argv.join(' ').includes(secret));
    confineAsTheAttemptRunner(task, paths);
    const control = { dir: paths.control, attempt: 1 };
    // The server's sandbox: a root server's tasks run as their own user, given what they read in the data directory.
    const executor = new LocalExecutor(undefined, createSandbox(config));
    const id = await executor.launch(task, control);
    await new Promise((r) => setTimeout(r, 300));
    // The scan sees the task's own processes (wrapper and nextflow), so its silence means something.
    const all = allCmdlines();
    assert.ok(groupMembers(id.pid as number).filter((pid) => all.has(pid)).length >= 2);
    assert.deepEqual(cmdlinesHolding(secret), []);
    assert.deepEqual(await executor.wait(control, id), { state: 'exited', exitCode: 0 });
    assert.ok(existsSync(path.join(paths.results, 'results', 'result.txt')));
  });

  it('a missing nextflow binary fails with a clear message', async () => {
    const noNextflow = { ...config, taskPath: '/usr/bin:/bin' };
    await assert.rejects(
      nextflowEngine.prepare(job(), workflow(), pathsFor(), noNextflow),
      new EngineError('Nextflow was not found: there is no nextflow executable on the task PATH and RUNYARD_NEXTFLOW_BIN is not set.'),
    );
    await assert.rejects(
      nextflowEngine.prepare(job(), workflow(), pathsFor(), { ...noNextflow, nextflowBin: '/nonexistent/nextflow' }),
      new EngineError('Nextflow was not found: RUNYARD_NEXTFLOW_BIN is /nonexistent/nextflow, which is not an executable file.'),
    );
  });

  it('RUNYARD_NEXTFLOW_BIN wins over the task PATH', async () => {
    const bin = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-nfbin-')), 'nf');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o755);
    const task = await nextflowEngine.prepare(job(), workflow(), pathsFor(config.dataDir), { ...config, nextflowBin: bin });
    assert.equal(task.argv[0], bin);
  });

  it('refuses a main file outside the repository, a job without a resolved commit, and an unknown commit', async () => {
    await assert.rejects(
      nextflowEngine.prepare(job(), workflowRow({ ...workflow(), main_file: '../../etc/passwd' }), pathsFor(config.dataDir), config),
      /not inside its repository/,
    );
    await assert.rejects(
      nextflowEngine.prepare(job({ revision_json: '{}' }), workflow(), pathsFor(config.dataDir), config),
      /no resolved commit/,
    );
    await assert.rejects(
      nextflowEngine.prepare(
        job({ revision_json: JSON.stringify({ commit: 'f'.repeat(40) }) }),
        workflow(),
        pathsFor(config.dataDir),
        config,
      ),
      /could not be fetched at commit f{40}/,
    );
  });
});
