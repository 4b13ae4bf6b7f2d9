import assert from 'node:assert/strict';
import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '@runyard/server';
import { startSlurmTestServer } from '../../../../test/support/slurm-server.js';
import { writeArrayRows } from '../../src/executors/array-run.js';
import type { AttemptControl, TaskEnd, TaskSpec } from '../../src/executors/executor.js';
import { defaultSandbox } from '../../src/executors/sandbox/sandbox.js';
import { SlurmExecutor, type SlurmId } from '../../src/executors/slurm/slurm-executor.js';
import type { HpcClusterRecord } from '../../src/store/hpc-cluster-lookup.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { jsonApi, jsonApiOk } from '../../../../test/support/json-api.js';
import { sharedDirectory, slurmClusterUp } from '../../../../test/support/slurm-cluster.js';
import { uploadFile } from '../../../../test/support/upload.js';
import { FIXTURE_BIN, waitFor } from '../scheduler/helpers.js';

// Hostile rows of array jobs on the real Slurm cluster. Each element of a Slurm array starts, runs its
// row's sandboxed argv and ends outside the sandbox (as root here), while the other rows of the job run
// and write its logs/: a row that puts links, FIFOs or hard links there must never have anything outside
// the sandbox (slurmstepd, the element script, the server) write or read through them.

const ENV = { PATH: '/usr/local/bin:/usr/bin:/bin' };
let counter = 0;

describe('array jobs on Slurm with hostile rows (real cluster)', { timeout: 600_000 }, () => {
  let shared: string;
  let cluster: HpcClusterRecord;
  let executor: SlurmExecutor;
  /** Files of the host outside every job, standing for /etc/passwd, secret.key, ~/.bashrc, and their contents. */
  const outside: Record<'passwd' | 'key' | 'bashrc', { file: string; text: string }> = {} as never;

  before(() => {
    slurmClusterUp();
    shared = sharedDirectory();
    cluster = { id: 'c0ffee0000000000000000bb', name: 'dev', submitPrefix: [], partitions: ['debug', 'batch'], sharedDirectory: shared };
    executor = new SlurmExecutor({ clusters: async (id) => (id === cluster.id ? cluster : null), sandbox: defaultSandbox(), pollMs: 200 });
  });

  /** Fresh outside files for one test: what a row links to. */
  function outsideFiles(): Record<string, string> {
    const dir = mkdtempSync(path.join(shared, 'host-'));
    for (const name of ['passwd', 'key', 'bashrc'] as const) {
      const text = `${name.toUpperCase()}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}\n`;
      outside[name] = { file: path.join(dir, name), text };
      writeFileSync(outside[name].file, text);
    }
    return { PASSWD: outside.passwd.file, KEY: outside.key.file, BASHRC: outside.bashrc.file };
  }

  /** An array task of a fresh job, its rows' variables and the job's logs directory (LOGS) in their environment. */
  async function arrayJob(script: string, rows: Record<string, string>[], limit: number, beforeRows?: (logs: string) => void) {
    const name = `hostile${process.pid}x${++counter}`;
    const dir = path.join(shared, name);
    const logs = path.join(dir, 'logs');
    const control: AttemptControl = { dir: path.join(shared, 'run', name), attempt: 1 };
    const array = { size: rows.length, limit, dir: path.join(control.dir, 'array-1'), taskLogsDir: path.join(logs, 'tasks') };
    beforeRows?.(logs);
    await writeArrayRows(
      array.dir,
      array.taskLogsDir,
      rows.map((row) => ({ ...row, LOGS: logs })),
    );
    const task: TaskSpec = {
      argv: ['bash', '-c', script],
      env: ENV,
      cwd: path.join(dir, 'work'),
      logFile: path.join(logs, 'stdout.txt'),
      writable: [path.join(dir, 'work'), logs],
      resources: { cpus: 1, memoryGiB: 0.25 },
      placement: { cluster: cluster.id },
      preamble: ['first line'],
      array,
    };
    return { task, control, logs, array };
  }

  /** Resolves with p, or fails after ms (a server that blocks on a FIFO never settles). */
  async function within<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not end within ${ms} ms`)), ms))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL to the element scripts (runyard-array-task) of the array directory dir: processes of this test's job. */
  function killElements(dir: string): void {
    let killed = 0;
    for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      let argv: string[];
      try {
        argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      } catch {
        continue;
      }
      if (argv[3] !== 'runyard-array-task' || argv[5] !== dir) continue;
      try {
        process.kill(Number(pid), 'SIGKILL');
        killed++;
      } catch {
        // Gone meanwhile.
      }
    }
    assert.ok(killed >= 2, `killed ${killed} element scripts`);
  }

  /** Opens a FIFO to read and closes it: a writer blocked on opening it (a server without the fix) goes on. */
  function unblock(fifo: string): void {
    const st = lstatSync(fifo, { throwIfNoEntry: false });
    if (!st?.isFIFO()) return;
    closeSync(openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK));
  }

  async function until(what: string, ok: () => boolean, ms = 120_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }

  /** The outside files are as the test wrote them, and no regular file under logs holds any of their text. */
  function assertUntouched(logs: string): void {
    for (const { file, text } of Object.values(outside)) {
      assert.ok(lstatSync(file).isFile(), `${file} is still a file`);
      assert.equal(readFileSync(file, 'utf8'), text, `${file} was not written`);
    }
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        const st = lstatSync(full);
        if (st.isDirectory()) walk(full);
        else if (st.isFile()) {
          const content = readFileSync(full, 'utf8');
          for (const { text } of Object.values(outside)) assert.ok(!content.includes(text.trim()), `${full} holds an outside file's text`);
        }
      }
    };
    walk(logs);
  }

  /** The job's log: a regular file (not what a row left in its place), its text. */
  function jobLog(logs: string): string {
    const file = path.join(logs, 'stdout.txt');
    assert.ok(lstatSync(file).isFile(), 'the job log is a regular file');
    return readFileSync(file, 'utf8');
  }

  it("a row that links the job's log and other rows' logs to host files while the others run: nothing outside the sandbox writes or reads through them", async () => {
    const env = outsideFiles();
    // Row 0 plants links and ends; row 1 still runs and ends after; row 2 starts only once row 0 ended (two at a
    // time), so Slurm opens its output, and its element starts, with the links in place.
    const script = [
      'case "$ROW" in',
      '  plant)',
      '    ln -sfn "$PASSWD" "$LOGS/stdout.txt"',
      '    ln -sfn "$KEY" "$LOGS/tasks/task-1.log"',
      '    ln -sfn "$BASHRC" "$LOGS/tasks/task-2.log"',
      '    echo planted ;;',
      '  slow) sleep 4; echo "row 1 done" ;;',
      '  *) echo "row 2 here" ;;',
      'esac',
    ].join('\n');
    const rows = ['plant', 'slow', 'last'].map((ROW) => ({ ROW, ...env }));
    const a = await arrayJob(script, rows, 2);
    const id = (await executor.launch(a.task, a.control)) as SlurmId;
    const end = await within('the array', executor.wait(a.control, id), 180_000);
    assertUntouched(a.logs);
    assert.deepEqual(end, { state: 'exited', exitCode: 0 } satisfies TaskEnd);
    // What the user sees is as before: each row's log, and its section in the job's log, then the last line.
    const log = jobLog(a.logs);
    assert.ok(log.includes('=== task 0: exit code 0 ===\nplanted\n'), log);
    assert.ok(log.includes('=== task 1: exit code 0 ===\nrow 1 done\n'), log);
    assert.ok(log.includes('=== task 2: exit code 0 ===\nrow 2 here\n'), log);
    assert.match(log, /Runyard: 0 of 3 tasks failed\.\n$/);
    for (const [i, text] of [
      [0, 'planted\n'],
      [1, 'row 1 done\n'],
      [2, 'row 2 here\n'],
    ] as const) {
      const file = path.join(a.array.taskLogsDir, `task-${i}.log`);
      assert.ok(lstatSync(file).isFile(), `task-${i}.log is a regular file`);
      assert.equal(readFileSync(file, 'utf8'), text);
    }
  });

  it('an array killed while its rows run, after a row linked their logs to host files and made one a FIFO: its end reads and writes nothing through them, and does not block', async () => {
    const env = outsideFiles();
    const script = [
      'case "$ROW" in',
      '  plant)',
      '    ln -sfn "$PASSWD" "$LOGS/stdout.txt"',
      '    ln -sfn "$KEY" "$LOGS/tasks/task-1.log"',
      '    rm -f "$LOGS/tasks/task-2.log"; mkfifo "$LOGS/tasks/task-2.log"',
      '    echo planted ;;',
      '  *) echo "row $RUNYARD_ARRAY_INDEX up"; sleep 120 ;;',
      'esac',
    ].join('\n');
    const rows = ['plant', 'sleeper', 'sleeper'].map((ROW, i) => ({ ROW, RUNYARD_ARRAY_INDEX: String(i), ...env }));
    const a = await arrayJob(script, rows, 3);
    const id = (await executor.launch(a.task, a.control)) as SlurmId;
    const marker = (name: string) => existsSync(path.join(a.array.dir, name));
    await until('row 0 to plant its links and rows 1 and 2 to start', () => marker('exit-0-0') && marker('start-1') && marker('start-2'));
    assert.ok(lstatSync(path.join(a.logs, 'stdout.txt')).isSymbolicLink());
    // The sleepers print their line as they start.
    await sleep(3000);
    // The elements of rows 1 and 2 are killed before they record how their rows ended (as a node's crash would):
    // the server, concluding the array, records them and writes their sections itself.
    killElements(a.array.dir);
    let end: TaskEnd;
    try {
      end = await within('the killed array', executor.wait(a.control, id), 120_000);
    } finally {
      await executor.kill(id, { force: true, graceMs: 0 });
      unblock(path.join(a.array.taskLogsDir, 'task-2.log'));
    }
    assertUntouched(a.logs);
    assert.deepEqual(end, { state: 'exited', exitCode: 1 } satisfies TaskEnd);
    const log = jobLog(a.logs);
    for (const i of [1, 2]) {
      assert.ok(log.includes(`=== task ${i}: exit code 255 ===\nrow ${i} up\n`), log);
      const rowLog = path.join(a.array.taskLogsDir, `task-${i}.log`);
      assert.ok(lstatSync(rowLog).isFile(), `task-${i}.log is a regular file`);
      assert.match(
        readFileSync(rowLog, 'utf8'),
        new RegExp(`^row ${i} up\\n[^]*Runyard: task ${i} ended without recording its exit code\\.\\n$`),
      );
    }
    assert.match(log, /Runyard: 2 of 3 tasks failed\.\n$/);
  });

  it("an earlier attempt's link in place of logs/tasks is removed, not followed: the rows' logs are the job's", async () => {
    const env = outsideFiles();
    const elsewhere = mkdtempSync(path.join(shared, 'elsewhere-'));
    const a = await arrayJob(
      'echo "row $ROW"',
      ['a', 'b'].map((ROW) => ({ ROW, ...env })),
      2,
      (logs) => {
        mkdirSync(logs, { recursive: true });
        symlinkSync(elsewhere, path.join(logs, 'tasks'));
      },
    );
    assert.ok(lstatSync(a.array.taskLogsDir).isDirectory(), 'logs/tasks is a directory of its own');
    const id = (await executor.launch(a.task, a.control)) as SlurmId;
    assert.deepEqual(await within('the array', executor.wait(a.control, id), 180_000), { state: 'exited', exitCode: 0 });
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing was written through the link');
    assert.deepEqual(readdirSync(a.array.taskLogsDir).sort(), ['task-0.log', 'task-1.log']);
    assert.equal(readFileSync(path.join(a.array.taskLogsDir, 'task-1.log'), 'utf8'), 'row b\n');
    assertUntouched(a.logs);
  });
});

describe('an array job with a hostile row through the whole server on Slurm', { timeout: 600_000 }, () => {
  let server: RunningServer;
  let shared: string;
  let apikey = '';
  let ws = '';
  const api = jsonApiOk(
    jsonApi(
      () => server.url,
      () => apikey,
    ),
  );

  before(async () => {
    slurmClusterUp();
    shared = sharedDirectory();
    ({ server, apikey, ws } = await startSlurmTestServer(shared, {
      RUNYARD_TASK_PATH: `${FIXTURE_BIN}:${process.env.PATH}`,
    }));
  });
  after(async () => {
    await server?.close();
  });

  it("row 0 links the job's log to a host file while row 1 runs: the file is unchanged, and the job's log is whole", async () => {
    const secret = `PASSWD-${process.pid}-${Date.now()}\n`;
    const host = path.join(mkdtempSync(path.join(shared, 'host-')), 'passwd');
    writeFileSync(host, secret);
    const projectId = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'hostile' }))._id;
    const workflow = (
      await api('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' })
    )._id;
    const hpc = (await api('POST', '/api/runyard/admin/hpc', { name: 'dev', partitions: ['debug'], sharedDirectory: shared })).id;
    const fileId = await uploadFile(server.url, apikey, { workspaceId: ws, projectId }, 'rows.csv', 'n\n0\n1\n');
    const logs = '"$(dirname "$RUNYARD_RESULTS_DIR")/logs"';
    const id = (
      await api('POST', `/api/v2/jobs?teamId=${ws}`, {
        project: projectId,
        workflow,
        name: 'hostile-array',
        command:
          `if [ "$RUNYARD_ARRAY_INDEX" = 0 ]; then ln -sfn '${host}' ${logs}/stdout.txt; ln -sfn '${host}' ${logs}/tasks/task-1.log; ` +
          // The job's arguments are appended to the command: `true` takes them.
          'echo planted; else sleep 4; echo "row 1 done"; fi; true',
        parameters: [{ prefix: '--', name: 'n', parameterKind: 'arrayFileColumn', columnName: 'n', columnIndex: 0 }],
        arrayFile: { dataItem: { kind: 'File', item: fileId }, separator: ',' },
        executionPlatform: 'hpc',
        hpc,
        resourceRequirements: { cpu: 1, ram: 1 },
      })
    ).jobId as string;
    const doc = await waitFor(
      `job ${id} to end`,
      async () => {
        const d = await api('GET', `/api/v1/jobs/${id}?teamId=${ws}`);
        return ['completed', 'failed', 'aborted'].includes(d.status) ? d : undefined;
      },
      180_000,
    );
    assert.equal(readFileSync(host, 'utf8'), secret, 'the host file was not written');
    const dir = jobPaths(server.config.dataDir, ws, id).logs;
    assert.ok(lstatSync(path.join(dir, 'stdout.txt')).isFile(), 'the job log is a regular file');
    const log = readFileSync(path.join(dir, 'stdout.txt'), 'utf8');
    assert.equal(doc.status, 'completed', log);
    assert.ok(!log.includes(secret.trim()), log);
    assert.ok(log.includes('=== task 0: exit code 0 ===\nplanted\n'), log);
    assert.ok(log.includes('=== task 1: exit code 0 ===\nrow 1 done\n'), log);
    assert.match(log, /Runyard: 0 of 2 tasks failed\.\n$/);
    assert.equal(readFileSync(path.join(dir, 'tasks', 'task-1.log'), 'utf8'), 'row 1 done\n');
  });
});
