import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '@runyard/server';
import { printedValue } from '../../../../test/support/printed-value.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { TEST_CAPACITY } from '../../../../test/support/capacity.js';
import { TEST_JOB_IMAGES } from '../../../../test/support/job-images.js';
import { freshDatabaseUrl } from '../../../../test/support/database.js';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { jsonApi, jsonApiOk } from '../../../../test/support/json-api.js';
import { uploadFile } from '../../../../test/support/upload.js';
import { nextflowHomeEnv } from '../../../../test/support/nextflow-home.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';
import { connectionArgs } from '../../../cli/test/support/connection-args.js';
import { runCli } from '../../../cli/test/support/run-cli.js';
import { FIXTURE_BIN, waitFor } from '../scheduler/helpers.js';
import { drain, logUntil, sseReader } from '../sse-reader.js';

// Jobs through the whole server on the real Slurm cluster: submitted over HTTP as the public client
// sends HPC jobs, run by the scheduler that main.ts starts, with the Slurm executor.

const scontrol = (jobId: string) => execFileSync('scontrol', ['show', 'job', '-o', jobId], { encoding: 'utf8' });

describe('jobs on a Slurm cluster (execution platform hpc)', { timeout: 600_000 }, () => {
  let server: RunningServer;
  let mirror: GitMirror;
  let env: Record<string, string>;
  let apikey = '';
  let ws = '';
  let projectId = '';
  let bashWorkflow = '';
  let hpc = '';
  const api = jsonApiOk(
    jsonApi(
      () => server.url,
      () => apikey,
    ),
  );
  const job = (id: string) => api('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
  // Up to 2 minutes: a Slurm array of 50 tasks on a busy 2-core machine (CI runs test files side by side) took over 15 s.
  const ended = (id: string) =>
    waitFor(
      `job ${id} to end`,
      async () => {
        const doc = await job(id);
        return ['completed', 'failed', 'aborted'].includes(doc.status) ? doc : undefined;
      },
      120_000,
    );
  /** A bash job as `cloudos bash job --execution-platform hpc` would send it, with an hpc id. */
  const submitBash = async (command: string, extra: Record<string, unknown> = {}) =>
    (
      await api('POST', `/api/v2/jobs?teamId=${ws}`, {
        project: projectId,
        workflow: bashWorkflow,
        name: 'slurm-bash',
        command,
        parameters: [],
        executionPlatform: 'hpc',
        hpc,
        resourceRequirements: { cpu: 2, ram: 1 },
        ...extra,
      })
    ).jobId as string;

  const arrayOf = (fileId: string, column: string) => ({
    arrayFile: { dataItem: { kind: 'File', item: fileId }, separator: ',' },
    parameters: [{ prefix: '--', name: column, parameterKind: 'arrayFileColumn', columnName: column, columnIndex: 0 }],
  });
  const upload = (name: string, text: string) => uploadFile(server.url, apikey, { workspaceId: ws, projectId }, name, text);
  const logOf = (id: string) => readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8');

  async function start(): Promise<void> {
    const lines: string[] = [];
    server = await startServer(env, (line) => lines.push(line));
    // Printed by the first start only: a restart keeps them.
    apikey = printedValue(lines, 'API key') ?? apikey;
    ws = printedValue(lines, 'Workspace id') ?? ws;
  }

  before(async () => {
    slurmClusterUp();
    const shared = sharedDirectory();
    mirror = createGitMirror();
    mirror.create('acme/pipe', { files: { 'main.nf': 'workflow {}\n', 'nextflow.config': '' } });
    env = {
      RUNYARD_DATA_DIR: mkdtempSync(path.join(shared, 'data-')),
      RUNYARD_PORT: '0',
      RUNYARD_DATABASE_URL: await freshDatabaseUrl(),
      RUNYARD_LOG_LEVEL: 'silent',
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
      RUNYARD_SCHEDULER_POLL_MS: '200',
      RUNYARD_SLURM_POLL_MS: '300',
      RUNYARD_ABORT_GRACE_MS: '20000',
      // A CPU hour costs 1 USD: a job of 2 CPUs with a cost limit of 1 USD may run 30 minutes.
      RUNYARD_CPU_HOUR_COST_CENTS: '100',
      RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites),
      ...TEST_CAPACITY,
      ...TEST_JOB_IMAGES,
      ...nextflowHomeEnv(),
    };
    await start();
    projectId = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'hpc' }))._id;
    bashWorkflow = (
      await api('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' })
    )._id;
    const cluster = await api('POST', '/api/runyard/admin/hpc', { name: 'dev', partitions: ['debug', 'batch'], sharedDirectory: shared });
    hpc = cluster.id;
  });
  after(async () => {
    await server?.close();
    mirror?.remove();
  });

  it('a bash job runs in Slurm with its CPUs, memory and partition; the job document names the cluster and the Slurm job', async () => {
    const id = await submitBash('echo "on $SLURM_JOB_PARTITION as $SLURM_JOB_ID with [$1] [$2]"', {
      parameters: [{ prefix: '--', name: 'greeting', parameterKind: 'textValue', textValue: 'hello world' }],
      execution: { computeCostLimit: 1 },
    });
    const doc = await ended(id);
    assert.equal(doc.status, 'completed', readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8'));
    assert.equal(doc.hpcCluster.id, hpc);
    assert.equal(doc.hpcCluster.name, 'dev');
    assert.equal(doc.hpcCluster.partition, 'debug');
    const slurmJobId = doc.hpcCluster.slurmJobId as string;
    assert.match(slurmJobId, /^\d+$/);
    const shown = scontrol(slurmJobId);
    assert.match(shown, /JobState=COMPLETED /);
    assert.match(shown, /NumCPUs=2 /);
    // Its time limit: what its cost limit buys (30 minutes), and a minute more (the cost watch ends it first).
    assert.match(shown, /TimeLimit=00:31:00 /);
    assert.match(shown, /mem=1G/);
    assert.match(shown, new RegExp(`JobName=runyard-${id}-a1 `));
    const log = readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8');
    // The job's parameters reach it word for word through the batch script: as "$1" "$2", and appended to the
    // command (as the local executor does).
    // The parameters appended to the command, once: its own $1 and $2 are empty (CloudOS's convention).
    assert.match(log, new RegExp(`on debug as ${slurmJobId} with \\[\\] \\[\\] --greeting hello world\\n`));
  });

  it("a Slurm job's log is followed live (GET /api/runyard/jobs/{id}/events) while it runs there, to its end", async () => {
    const id = await submitBash('echo early; while [ ! -e go ]; do sleep 0.1; done; echo late; true');
    const r = await fetch(`${server.url}/api/runyard/jobs/${id}/events?teamId=${ws}`, { headers: { apikey } });
    assert.equal(r.status, 200);
    const sse = sseReader(r.body!);
    const early = await logUntil(sse, 'early\n');
    // Runyard learns that Slurm started the task at its next poll of squeue: the task may print before that.
    await waitFor(`job ${id} to be running`, async () => (await job(id)).status === 'running', 30_000);
    writeFileSync(path.join(jobPaths(server.config.dataDir, ws, id).work, 'go'), '');
    const { text: rest, end } = await drain(sse);
    const text = early + rest;
    assert.deepEqual(end?.data, { status: 'completed', statusMessage: null, exitCode: 0 });
    assert.equal(text, readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8'));
    assert.ok(text.endsWith('early\nlate\n'), text);
  });

  it('a Nextflow job sent as the public client sends HPC jobs runs in Slurm with the fixture nextflow', async () => {
    const wf = (
      await api('POST', `/api/v2/workflows?teamId=${ws}`, {
        name: 'pipe',
        repository: { url: 'https://github.com/acme/pipe', platform: 'github' },
      })
    )._id;
    const { jobId } = await api('POST', `/api/v2/jobs?teamId=${ws}`, {
      parameters: [],
      project: projectId,
      workflow: wf,
      name: 'hpc-nf',
      resumable: false,
      saveProcessLogs: false,
      executionPlatform: 'hpc',
      hpc,
      storageSizeInGb: 500,
      execution: { computeCostLimit: 30.0, optim: 'test' },
      instanceType: null,
      usesFusionFileSystem: false,
      accelerateSavingResults: false,
      nextflowVersion: '22.10.8',
    });
    const doc = await ended(jobId);
    const paths = jobPaths(server.config.dataDir, ws, jobId);
    assert.equal(doc.status, 'completed', readFileSync(path.join(paths.logs, 'stdout.txt'), 'utf8'));
    assert.match(readFileSync(path.join(paths.logs, 'stdout.txt'), 'utf8'), /version 22\.10\.8/);
    assert.match(scontrol(doc.hpcCluster.slurmJobId), /JobState=COMPLETED /);
  });

  it('runyard job run and bash job with --execution-platform hpc --hpc-id ID run on Slurm, and --wait-completion follows them there', async () => {
    await api('POST', `/api/v2/workflows?teamId=${ws}`, {
      name: 'cli-pipe',
      repository: { url: 'https://github.com/acme/pipe', platform: 'github' },
    });
    const connection = connectionArgs(server.url, apikey, ws);
    const hpcArgs = [
      '--project-name',
      'hpc',
      '--execution-platform',
      'hpc',
      '--hpc-id',
      hpc,
      '--wait-completion',
      '--request-interval',
      '1',
    ];
    const runs = [
      ['job', 'run', '--workflow-name', 'cli-pipe', '--job-name', 'cli-nf', ...hpcArgs],
      [
        'bash',
        'job',
        '--workflow-name',
        'ubuntu',
        '--command',
        'echo "cli on $SLURM_JOB_PARTITION"',
        '--cpus',
        '2',
        '--memory',
        '1',
        ...hpcArgs,
      ],
    ];
    for (const args of runs) {
      const r = await runCli([...args, ...connection], { timeoutMs: 180_000 });
      assert.equal(r.code, 0, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
      const id = r.stdout.trim().split('\n')[0];
      const doc = await job(id);
      assert.equal(doc.status, 'completed');
      assert.equal(doc.hpcCluster.id, hpc);
      const shown = scontrol(doc.hpcCluster.slurmJobId);
      assert.match(shown, /JobState=COMPLETED /);
      assert.match(shown, /Partition=debug /);
      if (args[0] === 'bash') {
        assert.match(shown, /NumCPUs=2 /);
        assert.match(shown, /mem=1G/);
        assert.match(readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8'), /cli on debug\n/);
      }
    }
    // bash array-job: one Slurm array, a row per element.
    await upload('cli-rows.csv', 'n\n1\n2\n3\n');
    const args = ['bash', 'array-job', '--workflow-name', 'ubuntu', '--array-file', 'Data/cli-rows.csv', '-a', '--n=n'];
    const r = await runCli([...args, '--command', 'echo "cli row $RUNYARD_PARAM_N"; true', ...hpcArgs, ...connection], {
      timeoutMs: 180_000,
    });
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    const id = r.stdout.trim().split('\n')[0];
    const doc = await job(id);
    assert.equal(doc.status, 'completed');
    assert.equal(doc.arrayTasks.completed, 3);
    const elements = scontrol(doc.hpcCluster.slurmJobId).trim().split('\n');
    assert.equal(elements.length, 3);
    for (const line of elements) assert.match(line, new RegExp(` ArrayJobId=${doc.hpcCluster.slurmJobId} .* JobState=COMPLETED `));
    for (const n of [1, 2, 3]) assert.match(logOf(id), new RegExp(`exit code 0 ===\\ncli row ${n}\\n`));
  });

  it('a bash array job of 50 rows runs as one Slurm array (--array=0-49%N): each row reaches its task, one failing row fails the job', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => (i === 7 ? '"$(touch /tmp/runyard-slurm-array-pwned)"' : `s${i}`));
    const fileId = await upload('samples.csv', `sample\n${rows.join('\n')}\n`);
    const id = await submitBash(
      // The row's arguments are appended to the last command: the function's call, whose "$*" they are.
      'row() { printf "%s|%s|%s|%s\\n" "$SLURM_ARRAY_JOB_ID" "$SLURM_ARRAY_TASK_ID" "$RUNYARD_ARRAY_INDEX" "$*" > "$RUNYARD_RESULTS_DIR/row-$RUNYARD_ARRAY_INDEX.txt"; ' +
        '[ "$RUNYARD_ARRAY_INDEX" != 13 ] || { echo "row 13 fails" >&2; exit 3; }; echo "row $RUNYARD_ARRAY_INDEX of $RUNYARD_ARRAY_SIZE"; }; row',
      { ...arrayOf(fileId, 'sample'), resourceRequirements: { cpu: 1, ram: 1 } },
    );
    const doc = await ended(id);
    const log = logOf(id);
    assert.equal(doc.status, 'failed', log);
    assert.equal(doc.statusMessage, "1 of 50 tasks failed (task 13: exit code 3); each task's output is in the job's log under its index.");
    assert.deepEqual(
      { ...doc.arrayTasks, atOnce: undefined },
      { total: 50, queued: 0, running: 0, completed: 49, failed: 1, atOnce: undefined },
    );
    // One Slurm array: the job's Slurm id is the array's, and each element ran one row, as its array index.
    const arrayId = doc.hpcCluster.slurmJobId as string;
    assert.match(arrayId, /^\d+$/);
    const shown = scontrol(arrayId).trim().split('\n');
    assert.equal(shown.length, 50);
    for (const line of shown) {
      assert.match(line, new RegExp(` ArrayJobId=${arrayId} `));
      assert.match(line, new RegExp(` ArrayTaskThrottle=${doc.arrayTasks.atOnce} `));
      assert.match(line, new RegExp(` JobName=runyard-${id}-a1 `));
      assert.match(line, / NumCPUs=1 /);
    }
    assert.equal(shown.filter((l) => / JobState=FAILED /.test(l)).length, 1);
    assert.equal(shown.filter((l) => / JobState=COMPLETED /.test(l)).length, 49);
    const results = jobPaths(server.config.dataDir, ws, id).results;
    for (let i = 0; i < 50; i++) {
      const value = i === 7 ? rows[7].slice(1, -1) : `s${i}`;
      assert.equal(readFileSync(path.join(results, `row-${i}.txt`), 'utf8'), `${arrayId}|${i}|${i}|--sample ${value}\n`);
      if (i !== 13) assert.ok(log.includes(`=== task ${i}: exit code 0 ===\nrow ${i} of 50\n`), `task ${i} in the log`);
    }
    assert.ok(!existsSync('/tmp/runyard-slurm-array-pwned'), 'a row value was run as shell text');
    assert.match(log, /=== task 13: exit code 3 ===\nrow 13 fails\n/);
    assert.match(log, /Runyard: 1 of 50 tasks failed\.\n$/);
    // The rows' values and the task's environment are kept only while the job runs.
    const control = jobPaths(server.config.dataDir, ws, id).control;
    await waitFor("the job's values to be removed", async () =>
      existsSync(path.join(control, 'array-1')) || existsSync(path.join(control, 'attempt-1.env')) ? undefined : true,
    );
  });

  it('abort of an array job ends every element of its Slurm array with one scancel; its rows are in the log', async () => {
    const fileId = await upload('sleepers.csv', `n\n${Array.from({ length: 6 }, (_, i) => String(i)).join('\n')}\n`);
    const id = await submitBash('echo "row $RUNYARD_ARRAY_INDEX up"; sleep 300; true', {
      ...arrayOf(fileId, 'n'),
      resourceRequirements: { cpu: 1, ram: 1 },
    });
    const running = await waitFor(`array job ${id} to run a row`, async () => {
      const doc = await job(id);
      return doc.status === 'running' && doc.arrayTasks.running > 0 ? doc : undefined;
    });
    assert.equal(running.arrayTasks.total, 6);
    await api('PUT', `/api/v2/jobs/${id}/abort?teamId=${ws}&force=true`);
    const doc = await ended(id);
    assert.equal(doc.status, 'aborted');
    const shown = scontrol(running.hpcCluster.slurmJobId);
    assert.doesNotMatch(shown, /JobState=(RUNNING|PENDING|COMPLETING) /);
    // Each row that ran is in the log with its end and its output.
    const log = logOf(id);
    const tasks = path.join(jobPaths(server.config.dataDir, ws, id).logs, 'tasks');
    const ran = readdirSync(tasks);
    assert.ok(ran.length >= 1);
    for (const name of ran) {
      const i = /^task-(\d+)\.log$/.exec(name)?.[1];
      assert.ok(i, name);
      const section = new RegExp(`=== task ${i}: exit code \\d+ ===\\n`).exec(log);
      assert.ok(section, `task ${i} in the log`);
      assert.ok(
        log.slice(section.index + section[0].length).startsWith(readFileSync(path.join(tasks, name), 'utf8')),
        `task ${i}'s output`,
      );
    }
    assert.match(log, /Runyard: \d+ of 6 tasks failed\.\n$/);
  });

  it('abort ends the job in Slurm (TERM, the task traps it); force abort at once', async () => {
    for (const force of [false, true]) {
      const id = await submitBash('trap "echo got TERM; exit 0" TERM; echo started; sleep 300 & wait');
      const running = await waitFor(`job ${id} to run`, async () => {
        const doc = await job(id);
        return doc.status === 'running' && doc.hpcCluster.slurmJobId ? doc : undefined;
      });
      // Running in Slurm is not yet trapping: a TERM sent before the task's processes exist reaches none of them
      // (it then ends at the grace period's KILL). The task says when its trap is set.
      await waitFor(`job ${id}'s task to trap TERM`, async () => (/^started$/m.test(logOf(id)) ? true : undefined));
      await api('PUT', `/api/v2/jobs/${id}/abort?teamId=${ws}${force ? '&force=true' : ''}`);
      const doc = await ended(id);
      assert.equal(doc.status, 'aborted');
      assert.doesNotMatch(scontrol(running.hpcCluster.slurmJobId), /JobState=(RUNNING|PENDING|COMPLETING) /);
      if (!force) assert.match(logOf(id), /^got TERM$/m);
    }
  });

  it('a server restart during a Slurm job reattaches to it: one Slurm job, one outcome', async () => {
    const id = await submitBash('sleep 4; echo done');
    const running = await waitFor(`job ${id} to run`, async () => {
      const doc = await job(id);
      return doc.status === 'running' ? doc : undefined;
    });
    await server.close();
    await start();
    const doc = await ended(id);
    assert.equal(doc.status, 'completed');
    assert.equal(doc.hpcCluster.slurmJobId, running.hpcCluster.slurmJobId, 'the same Slurm job, not a second submission');
    assert.match(readFileSync(path.join(jobPaths(server.config.dataDir, ws, id).logs, 'stdout.txt'), 'utf8'), /done\n/);
  });
});
