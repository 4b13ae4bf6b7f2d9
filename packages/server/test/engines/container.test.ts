import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { BASH_JOB_SCRIPT } from '../../src/engines/bash-arguments.js';
import { containerEngine } from '../../src/engines/container.js';
import { EngineError } from '../../src/engines/engine.js';
import { parameterEnvName } from '../../src/engines/parameters.js';
import { engineFor } from '../../src/engines/registry.js';
import { localArrayTask } from '../../src/executors/array-run.js';
import { LocalExecutor } from '../../src/executors/local.js';
import { fakeRuntime } from './fake-runtime.js';
import { jobRow, pathsFor, workflowRow } from './rows.js';

const config = loadConfig({ RUNYARD_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'runyard-cfg-')), PATH: process.env.PATH });
/** A server whose container jobs run on the host's system (RUNYARD_JOB_IMAGES=host). */
const hostConfig = { ...config, jobImages: 'host' as const };

describe('container engine', () => {
  it('runs bash -c BASH_JOB_SCRIPT with the command as RUNYARD_COMMAND, <prefix><name>, <value> as RUNYARD_ARG_* and RUNYARD_PARAM_* variables, on the host by default', async () => {
    const paths = pathsFor();
    const job = jobRow({
      command: 'echo hi',
      params: [
        { name: 'a', textValue: 1 },
        { name: 'b', prefix: '-', textValue: 'x y' },
        { name: 'c-d', prefix: '', textValue: true },
      ],
    });
    const task = await containerEngine.prepare(job, workflowRow(), paths, config);
    assert.deepEqual(task.argv, ['bash', '-c', BASH_JOB_SCRIPT, 'runyard-job']);
    assert.deepEqual(task.env, {
      PATH: process.env.PATH,
      HOME: paths.work,
      RUNYARD_JOB_ID: job.id,
      RUNYARD_RESULTS_DIR: paths.results,
      RUNYARD_COMMAND: 'echo hi',
      RUNYARD_PARAM_A: '1',
      RUNYARD_PARAM_B: 'x y',
      RUNYARD_PARAM_C_D: 'true',
      RUNYARD_ARG_COUNT: '6',
      RUNYARD_ARG_1: '--a',
      RUNYARD_ARG_2: '1',
      RUNYARD_ARG_3: '-b',
      RUNYARD_ARG_4: 'x y',
      RUNYARD_ARG_5: 'c-d',
      RUNYARD_ARG_6: 'true',
    });
    assert.equal(task.cwd, paths.work);
    assert.equal(task.logFile, path.join(paths.logs, 'stdout.txt'));
    // By default in the workflow's image, which the scheduler pulls before the launch (test/image-jobs).
    assert.deepEqual(task.image, { name: 'library/ubuntu' });
    assert.deepEqual(task.preamble, []);
    const onHost = await containerEngine.prepare(job, workflowRow(), paths, hostConfig);
    assert.equal(onHost.image, undefined);
    assert.deepEqual(onHost.preamble, ['Runyard: this job runs on the host, not in the image library/ubuntu: RUNYARD_JOB_IMAGES=host.']);
    const unconfined = await containerEngine.prepare(job, workflowRow(), paths, { ...config, sandbox: 'none' });
    assert.equal(unconfined.image, undefined);
    assert.match(unconfined.preamble![0], /runs on the host, not in the image library\/ubuntu: images run in the sandbox only/);
    const noImage = await containerEngine.prepare(job, workflowRow({ container_name: null }), paths, config);
    assert.equal(noImage.image, undefined);
    assert.deepEqual(noImage.preamble, ['Runyard: the workflow names no container image; this job runs on the host (in the sandbox).']);
  });

  it('passes staged inputs as paths, with RUNYARD_FILES_<NAME>, and mounts them read-only into a container', async () => {
    const { dir } = fakeRuntime('podman');
    const paths = pathsFor();
    const job = jobRow({
      command: 'cat',
      parameters_json: JSON.stringify([
        { prefix: '--', name: 'in', parameterKind: 'dataItem', dataItem: { kind: 'File', item: 'F1' } },
        { prefix: '--', name: 'reads', parameterKind: 'globPattern', globPattern: '*.fq', folder: 'D1' },
        { prefix: '--', name: 'loose', parameterKind: 'dataItem', dataItem: { kind: 'File', item: 'F2' } },
      ]),
    });
    const inputs = {
      parameters: new Map([
        [0, { value: '/store/a.txt', files: ['/store/a.txt'] }],
        [1, { value: '/in/reads/*.fq', files: ['/in/reads/x.fq', '/in/reads/y.fq'] }],
      ]),
      paramsFile: null,
      readPaths: ['/store/a.txt', '/in/reads'],
      held: [],
      notes: [],
    };
    const host = await containerEngine.prepare(job, workflowRow(), paths, config, inputs);
    assert.deepEqual(
      [1, 2, 3, 4].map((i) => host.env[`RUNYARD_ARG_${i}`]),
      ['--in', '/store/a.txt', '--reads', '/in/reads/*.fq'],
    );
    assert.equal(host.env.RUNYARD_ARG_COUNT, '4');
    assert.equal(host.env.RUNYARD_FILES_IN, '/store/a.txt');
    assert.equal(host.env.RUNYARD_FILES_READS, '/in/reads/x.fq\n/in/reads/y.fq');
    assert.equal(host.env.RUNYARD_PARAM_READS, '/in/reads/*.fq');
    // Without staging (an engine called alone), a data item is not passed and says so.
    assert.match(host.preamble!.join('\n'), /not passed to the task.*loose \(dataItem\)/);
    const boxed = await containerEngine.prepare(
      job,
      workflowRow(),
      paths,
      { ...config, containerRuntime: 'podman', taskPath: dir },
      inputs,
    );
    const options = boxed.argv.join(' ');
    assert.ok(options.includes('-v /store/a.txt:/store/a.txt:ro -v /in/reads:/in/reads:ro'), options);
  });

  it("runs an array job as an array task (the local executor's driver): each row's variables in a 0600 file of the attempt, none in the argv or the task's own environment", async () => {
    const paths = pathsFor();
    const csv = path.join(paths.root, 'rows.csv');
    mkdirSync(paths.root, { recursive: true });
    writeFileSync(csv, 'sample,reads\ns1,"a b.fq"\ns2,$(x)\n');
    const stored = [
      { prefix: '--', name: 'sample', parameterKind: 'arrayFileColumn', columnName: 'sample', columnIndex: 0 },
      { prefix: '-', name: 'fixed', parameterKind: 'textValue', textValue: 'v' },
      { prefix: '', name: 'reads', parameterKind: 'arrayFileColumn', columnName: 'reads', columnIndex: 1 },
    ];
    const job = jobRow({
      command: 'echo',
      array_size: 2,
      array_limit: 2,
      attempt: 3,
      parameters_json: JSON.stringify(stored),
      request_json: JSON.stringify({ arrayFile: { dataItem: { kind: 'File', item: 'f' }, separator: ',' } }),
    });
    const inputs = { parameters: new Map(), paramsFile: null, readPaths: [csv], held: [], notes: [], arrayFileBytes: readFileSync(csv) };
    const task = await containerEngine.prepare(job, workflowRow(), paths, config, inputs);
    const arrayDir = path.join(paths.control, 'array-3');
    // One row's argv, with the rows for the executor to run (the local driver, or a Slurm array).
    assert.deepEqual(task.argv, ['bash', '-c', BASH_JOB_SCRIPT, 'runyard-job']);
    assert.equal(task.env.RUNYARD_COMMAND, 'echo');
    assert.deepEqual(task.array, { size: 2, limit: 2, dir: arrayDir, taskLogsDir: path.join(paths.logs, 'tasks') });
    const local = localArrayTask({ ...task, array: task.array! });
    assert.deepEqual(local.argv.slice(0, 2), ['bash', '-c']);
    assert.deepEqual(local.argv.slice(3), [
      'runyard-array',
      '2',
      '2',
      arrayDir,
      path.join(paths.logs, 'tasks'),
      'bash',
      '-c',
      BASH_JOB_SCRIPT,
      'runyard-job',
    ]);
    assert.deepEqual(local.writable, [arrayDir]);
    assert.equal(local.array, undefined);
    // Each row is given the job's resources: the one sandbox holds what the rows running at once need.
    const held = localArrayTask({ ...task, array: task.array!, resources: { cpus: 1.5, memoryGiB: 2 } }).resources;
    assert.deepEqual(held, { cpus: 3, memoryGiB: 4 });
    assert.ok(!Object.keys(task.env).some((k) => k.startsWith('RUNYARD_PARAM_') || k.startsWith('RUNYARD_ARG_')));
    const records = (i: number) =>
      readFileSync(path.join(arrayDir, `env-${i}`), 'utf8')
        .split('\0')
        .slice(0, -1);
    assert.deepEqual(records(1), [
      'RUNYARD_PARAM_SAMPLE=s2',
      'RUNYARD_PARAM_FIXED=v',
      'RUNYARD_PARAM_READS=$(x)',
      'RUNYARD_ARG_COUNT=6',
      'RUNYARD_ARG_1=--sample',
      'RUNYARD_ARG_2=s2',
      'RUNYARD_ARG_3=-fixed',
      'RUNYARD_ARG_4=v',
      'RUNYARD_ARG_5=reads',
      'RUNYARD_ARG_6=$(x)',
      'RUNYARD_ARRAY_INDEX=1',
      'RUNYARD_ARRAY_SIZE=2',
    ]);
    assert.ok(records(0).includes('RUNYARD_PARAM_READS=a b.fq'));
    assert.equal(statSync(path.join(arrayDir, 'env-0')).mode & 0o777, 0o600);
    // A file that no longer has the rows the job was admitted with fails the job.
    writeFileSync(csv, 'sample,reads\ns1,a\n');
    await assert.rejects(
      containerEngine.prepare(job, workflowRow(), paths, config, { ...inputs, arrayFileBytes: readFileSync(csv) }),
      /has 1 data rows now, not the 2/,
    );
    // In an image: a container per row, its name made from the row's index by a constant script.
    writeFileSync(csv, 'sample,reads\ns1,a\ns2,b\n');
    const { dir } = fakeRuntime('podman');
    const inImage = await containerEngine.prepare(
      job,
      workflowRow(),
      paths,
      { ...config, containerRuntime: 'podman', taskPath: dir },
      inputs,
    );
    assert.deepEqual(inImage.argv.slice(0, 2), ['/bin/sh', '-c']);
    assert.deepEqual(inImage.argv.slice(3, 7), ['runyard-row-container', path.join(dir, 'podman'), `runyard-${job.id}-a3`, '--init']);
    assert.equal(inImage.confinement, 'container');
    assert.deepEqual(inImage.stop, [path.join(dir, 'podman'), 'rm', '-f', `runyard-${job.id}-a3-0`, `runyard-${job.id}-a3-1`]);
    assert.equal(inImage.array?.size, 2);
  });

  it('uses the workflow default command when the job has none, and refuses a job with neither', async () => {
    const task = await containerEngine.prepare(jobRow(), workflowRow({ default_command: 'ls' }), pathsFor(), config);
    assert.equal(task.argv[2], BASH_JOB_SCRIPT);
    assert.equal(task.env.RUNYARD_COMMAND, 'ls');
    await assert.rejects(
      containerEngine.prepare(jobRow(), workflowRow(), pathsFor(), config),
      new EngineError('The job has no command to run.'),
    );
  });

  it('runs in the image with the configured runtime when it is on the task PATH; values are named, never on its command line', async () => {
    const { dir } = fakeRuntime('docker');
    const paths = pathsFor();
    const task = await containerEngine.prepare(
      jobRow({ command: 'run.sh', params: [{ name: 'secret', textValue: 's3cr3t' }] }),
      workflowRow({ container_name: 'quay.io/org/tool:1.0' }),
      paths,
      { ...config, containerRuntime: 'docker', taskPath: dir },
    );
    const image = task.argv.indexOf('quay.io/org/tool:1.0');
    assert.equal(task.argv[0], path.join(dir, 'docker'));
    assert.deepEqual(task.argv.slice(1, 3), ['run', '--name']);
    const options = task.argv.slice(0, image);
    assert.ok(options.join(' ').includes(`-v ${paths.work}:${paths.work} -v ${paths.results}:${paths.results} -w ${paths.work}`));
    assert.ok(options.join(' ').includes('-e RUNYARD_PARAM_SECRET'));
    assert.ok(options.join(' ').includes('-e RUNYARD_ARG_COUNT -e RUNYARD_ARG_1 -e RUNYARD_ARG_2'));
    assert.ok(!task.argv.some((o) => o.includes('s3cr3t')));
    assert.deepEqual(task.argv.slice(image + 1), ['bash', '-c', BASH_JOB_SCRIPT, 'runyard-job']);
    assert.ok(options.join(' ').includes('-e RUNYARD_COMMAND'));
    assert.equal(task.env.RUNYARD_PARAM_SECRET, 's3cr3t');
    assert.equal(task.env.RUNYARD_ARG_2, 's3cr3t');
    assert.deepEqual(task.preamble, []);
  });

  it("gives the container the job's CPUs and memory, a name per attempt, only work and results writable, and a stop argv", async () => {
    const { dir } = fakeRuntime('docker');
    const paths = pathsFor();
    const inputs = { parameters: new Map(), paramsFile: null, readPaths: ['/store/a.txt', '/in/reads'], held: [], notes: [] };
    const job = jobRow({ command: 'x', attempt: 3, resource_cpu: 2, resource_ram: 3 });
    const task = await containerEngine.prepare(job, workflowRow(), paths, { ...config, containerRuntime: 'docker', taskPath: dir }, inputs);
    const options = task.argv.slice(1, task.argv.indexOf('library/ubuntu'));
    const valueOf = (flag: string) => options[options.indexOf(flag) + 1];
    const name = `runyard-${job.id}-a3`;
    assert.equal(valueOf('--name'), name);
    assert.equal(valueOf('--cpus'), '2');
    assert.equal(valueOf('--memory'), '3g');
    assert.equal(valueOf('--memory-swap'), '3g');
    // Kept after it ends (no --rm): its record tells whether it was killed for its memory; the stop removes it.
    assert.ok(options.includes('--init') && !options.includes('--rm'));
    assert.equal(valueOf('--security-opt'), 'no-new-privileges');
    assert.ok(!options.includes('--network'), 'RUNYARD_TASK_NETWORK=host is the runtime default network');
    // Every mount: the work and results directories read-write, everything else read-only.
    assert.deepEqual(
      options.filter((_, i) => options[i - 1] === '-v'),
      [`${paths.work}:${paths.work}`, `${paths.results}:${paths.results}`, '/store/a.txt:/store/a.txt:ro', '/in/reads:/in/reads:ro'],
    );
    assert.deepEqual(task.stop, [path.join(dir, 'docker'), 'rm', '-f', name]);
    assert.deepEqual(task.oomProbe, [path.join(dir, 'docker'), 'inspect', '--format', '{{.State.OOMKilled}}', name]);
  });

  it('fractions of CPUs and GiB reach the runtime in its units; RUNYARD_TASK_NETWORK=none gives the container no network', async () => {
    const { dir } = fakeRuntime('podman');
    const cfg = { ...config, containerRuntime: 'podman' as const, taskPath: dir, taskNetwork: 'none' as const };
    const task = await containerEngine.prepare(
      jobRow({ command: 'x', resource_cpu: 0.5, resource_ram: 0.5 }),
      workflowRow(),
      pathsFor(),
      cfg,
    );
    const options = task.argv.join(' ');
    assert.ok(options.includes('--cpus 0.5 --memory 512m --memory-swap 512m --network none'), options);
    assert.ok(options.includes(`--name runyard-${jobRow().id}-a1 `), options);
  });

  it('a configured runtime that is not on the task PATH: the job fails naming it, and never runs on the host', async () => {
    await assert.rejects(
      containerEngine.prepare(jobRow({ command: 'x' }), workflowRow(), pathsFor(), {
        ...config,
        containerRuntime: 'podman',
        taskPath: mkdtempSync(path.join(os.tmpdir(), 'runyard-empty-')),
      }),
      (e: unknown) => e instanceof EngineError && /RUNYARD_CONTAINER_RUNTIME=podman, but podman is not on the task PATH/.test(e.message),
    );
  });

  it('refuses an image name that a runtime could read as an option', async () => {
    const cfg = { ...config, containerRuntime: 'docker' as const, taskPath: fakeRuntime('docker').dir };
    await assert.rejects(
      containerEngine.prepare(jobRow({ command: 'x' }), workflowRow({ container_name: '--privileged' }), pathsFor(), cfg),
      EngineError,
    );
  });

  it('refuses a parameter holding a NUL character', async () => {
    await assert.rejects(
      containerEngine.prepare(jobRow({ command: 'x', params: [{ name: 'a', textValue: 'x\0y' }] }), workflowRow(), pathsFor(), config),
      /NUL/,
    );
  });

  it('names each variable RUNYARD_PARAM_<NAME>: uppercased, other characters as _', () => {
    assert.equal(parameterEnvName('my-input.file'), 'RUNYARD_PARAM_MY_INPUT_FILE');
    assert.equal(parameterEnvName('x;touch m'), 'RUNYARD_PARAM_X_TOUCH_M');
  });

  it('T10: values with ; $() backticks newlines a leading - and quotes reach the job exactly; no marker file appears', async () => {
    const paths = pathsFor();
    for (const dir of [paths.work, paths.logs, paths.results]) mkdirSync(dir, { recursive: true });
    const marker = path.join(paths.work, 'MARK');
    const values = [
      `a; touch ${marker}`,
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `x\ntouch ${marker}`,
      '-n',
      '--version',
      `"'"`,
      `'; touch ${marker}; '`,
      '$HOME',
      '*',
    ];
    const params = values.map((v, i) => ({ name: `p${i}`, textValue: v }));
    params.push({ name: `q;touch ${marker}`, textValue: 'name' });
    process.env.RUNYARD_TEST_CANARY = 'canary-secret-value';
    const task = await containerEngine.prepare(
      jobRow({ command: 'env -0 > env.bin; printf "%s\\0" > args.bin', params }),
      workflowRow(),
      paths,
      hostConfig,
    );
    // Values (each holds the marker's path) are on no command line, the wrapper's included.
    assert.ok(!task.argv.some((a) => a.includes(marker)), task.argv.join(' '));
    const control = { dir: paths.control, attempt: 1 };
    const executor = new LocalExecutor();
    const end = await executor.wait(control, await executor.launch(task, control));
    assert.deepEqual(end, { state: 'exited', exitCode: 0 }, readFileSync(task.logFile, 'utf8'));
    const args = readFileSync(path.join(paths.work, 'args.bin'), 'utf8').split('\0').slice(0, -1);
    assert.deepEqual(args, [...values.flatMap((v, i) => [`--p${i}`, v]), `--q;touch ${marker}`, 'name']);
    const env = Object.fromEntries(
      readFileSync(path.join(paths.work, 'env.bin'), 'utf8')
        .split('\0')
        .slice(0, -1)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    values.forEach((v, i) => assert.equal(env[`RUNYARD_PARAM_P${i}`], v));
    assert.equal(env[parameterEnvName(`q;touch ${marker}`)], 'name');
    assert.ok(!existsSync(marker), 'a marker file appeared');
    assert.deepEqual(readdirSync(paths.work).sort(), ['args.bin', 'env.bin']);
    assert.ok(!Object.keys(env).some((k) => k.startsWith('RUNYARD_ARG')), 'the carriers of "$@" are left in the environment');
    // T11: nothing of the server's environment reaches the task.
    assert.equal(env.RUNYARD_TEST_CANARY, undefined);
    assert.ok(!Object.values(env).includes('canary-secret-value'));
    delete process.env.RUNYARD_TEST_CANARY;
  });

  it('the registry answers an engine per workflow type, and refuses other types', async () => {
    assert.equal(engineFor('docker'), containerEngine);
    await assert.rejects(
      // A WDL job runs on its workspace's engine server, which the scheduler hands the engine.
      engineFor('wdl').prepare(jobRow(), workflowRow(), pathsFor(), config),
      new EngineError('The workspace has no WDL engine server running.'),
    );
    assert.throws(() => engineFor('toString'), EngineError);
  });
});
