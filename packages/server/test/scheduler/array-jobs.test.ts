import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { groupMembers } from '../../src/executors/proc.js';
import { cmdlinesHolding } from '../engines/cmdlines.js';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { startBashJobServer, type BashJobServer } from './bash-job-server.js';
import { FIXTURE_BIN, waitFor } from './helpers.js';
import { fakeRuntime } from '../engines/fake-runtime.js';
import { uploadFile } from '../../../../test/support/upload.js';

// Bash array jobs on the local executor, through the API as the public client submits them
// (wire-api §2.2: arrayFile, arrayFileColumn parameters): one task per data row of the array file.
describe('array jobs', { timeout: 300_000 }, () => {
  let w: BashJobServer;
  before(async () => {
    w = await startBashJobServer();
  });
  after(() => w.close());

  /** Uploads a file into Data; answers its id. */
  async function upload(name: string, text: string, apikey = w.s.admin.apikey, ws = w.ws, projectId?: string): Promise<string> {
    const project = projectId ?? (await w.ok('GET', `/api/v2/projects?teamId=${ws}`)).projects[0]._id;
    return uploadFile(w.s.url, apikey, { workspaceId: ws, projectId: project }, name, text);
  }
  const column = (name: string, columnName: string, prefix = '--') => ({
    prefix,
    name,
    parameterKind: 'arrayFileColumn',
    columnName,
    columnIndex: 0,
  });
  const arrayBody = (fileId: string, parameters: unknown[], separator = ',') => ({
    arrayFile: { dataItem: { kind: 'File', item: fileId }, separator },
    parameters,
  });
  const resultsOf = (id: string) => jobPaths(w.s.config.dataDir, w.ws, id).results;

  it('runs one task per row of a 50-row file: each row reaches its task, as arguments and variables, never as shell text', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => `s${i},reads-${i}.fq`);
    // A value that a shell would run, and one with the separator inside quotes.
    rows[7] = `s7,"$(touch /tmp/runyard-array-pwned); x, y"`;
    const fileId = await upload('samples.csv', `sample,reads\n${rows.join('\n')}\n`);
    const before = Date.now();
    const id = await w.submit(
      // The row's arguments are appended to the last command (echo), once. Each task also writes how long it ran
      // by its own clock (nanoseconds), at least 0.2 s: what its cost is checked against.
      `s=$(date +%s%N); sleep 0.2; echo "row $RUNYARD_ARRAY_INDEX of $RUNYARD_ARRAY_SIZE"; f="$RUNYARD_RESULTS_DIR/task-$RUNYARD_ARRAY_INDEX.txt"; printf '%s|%s|' "$RUNYARD_ARRAY_INDEX" "$RUNYARD_PARAM_SAMPLE" > "$f"; echo $(($(date +%s%N) - s)) > "$RUNYARD_RESULTS_DIR/ns-$RUNYARD_ARRAY_INDEX"; echo >> "$f"`,
      arrayBody(fileId, [
        column('sample', 'sample'),
        { prefix: '-', name: 'fixed', parameterKind: 'textValue', textValue: 'x y' },
        column('reads', 'reads', ''),
      ]),
    );
    const job = await w.ended(id);
    const after = Date.now();
    assert.equal(job.status, 'completed', `${job.statusMessage}\n${w.logOf(id)}`);
    assert.deepEqual(job.arrayTasks, { total: 50, queued: 0, running: 0, completed: 50, failed: 0, atOnce: 4 });
    assert.deepEqual(job.resourceRequirements, { cpu: 1, ram: 4 });
    for (let i = 0; i < 50; i++) {
      const reads = i === 7 ? '$(touch /tmp/runyard-array-pwned); x, y' : `reads-${i}.fq`;
      assert.equal(
        readFileSync(path.join(resultsOf(id), `task-${i}.txt`), 'utf8'),
        `${i}|s${i}|--sample s${i} -fixed x y reads ${reads}\n`,
      );
    }
    assert.ok(!existsSync('/tmp/runyard-array-pwned'), 'a row value was run as shell text');
    const log = w.logOf(id);
    for (let i = 0; i < 50; i++) assert.ok(log.includes(`=== task ${i}: exit code 0 ===\nrow ${i} of 50\n`), `task ${i} in the log`);
    assert.match(log, /Runyard: an array job of 50 tasks \(one per row of its array file\), 4 at a time/);
    assert.match(log, /Runyard: 0 of 50 tasks failed\.\n$/);
    const taskLogs = readdirSync(path.join(jobPaths(w.s.config.dataDir, w.ws, id).logs, 'tasks'));
    assert.equal(taskLogs.length, 50);
    // It pays for the four tasks it runs at once.
    const priceOf = async (jobId: string) =>
      (await w.ok('GET', `/api/v1/jobs/${jobId}/costs/compute?teamId=${w.ws}`)).master.instancePricePerHour.amount as number;
    const single = await priceOf(await w.submit('true'));
    assert.ok(single > 0);
    assert.ok(Math.abs((await priceOf(id)) - 4 * single) < 1e-9, `array job price ${await priceOf(id)}, single ${single}`);
    // Its cost is its tasks' run times at one task's price, not four tasks for its whole run time: at least the time
    // the tasks ran by their own clocks, at most four tasks for all the time the test saw go by.
    const cents = (await w.ok('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`)).computeCostSpent as number;
    const taskHours = Array.from({ length: 50 }, (_, i) => Number(readFileSync(path.join(resultsOf(id), `ns-${i}`), 'utf8')) / 3.6e12);
    const ranHours = taskHours.reduce((a, b) => a + b, 0);
    assert.ok(ranHours >= (50 * 0.2) / 3600, `${ranHours * 3600} task-seconds`);
    assert.ok(cents >= ranHours * single * 100 - 0.0001, `${cents} cents for ${ranHours * 3600} task-seconds`);
    assert.ok(cents <= ((4 * (after - before)) / 3_600_000) * single * 100, `${cents} cents for 4 x ${after - before} ms`);
  });

  it('fails when a row fails, saying how many of how many and which, after every other row ran', async () => {
    const fileId = await upload('fail.csv', `n\n${Array.from({ length: 50 }, (_, i) => String(i)).join('\n')}\n`);
    const id = await w.submit(
      '[ "$RUNYARD_PARAM_N" != 17 ] || { echo "row 17 fails" >&2; exit 3; }; true',
      arrayBody(fileId, [column('n', 'n')]),
    );
    const job = await w.ended(id);
    assert.equal(job.status, 'failed');
    assert.equal(job.statusMessage, "1 of 50 tasks failed (task 17: exit code 3); each task's output is in the job's log under its index.");
    assert.deepEqual(job.arrayTasks, { total: 50, queued: 0, running: 0, completed: 49, failed: 1, atOnce: 4 });
    assert.match(w.logOf(id), /=== task 17: exit code 3 ===\nrow 17 fails\n/);
  });

  it('reads its array file through the store: a file swapped for a link out after submission fails the job, its target unread', async () => {
    // A queue that runs one job at a time, held by a sleeper, so that the array job waits while its file is swapped.
    const queue = await w.ok('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'one-at-a-time', concurrency: 1 });
    const batch = { batch: { enabled: true, jobQueue: queue.id } };
    const sleeper = await w.submit('sleep 300; true', batch);
    await waitFor('the sleeper to run', async () =>
      (await w.ok('GET', `/api/v1/jobs/${sleeper}?teamId=${w.ws}`)).status === 'running' ? true : undefined,
    );
    const fileId = await upload('swapped.csv', 'v\n1\n2\n');
    const id = await w.submit('echo "row $RUNYARD_PARAM_V"; true', { ...arrayBody(fileId, [column('v', 'v')]), ...batch });
    const stored = await w.s.store.db
      .selectFrom('files')
      .select(['bucket', 'storage_key'])
      .where('id', '=', fileId)
      .executeTakeFirstOrThrow();
    const file = path.join(w.s.config.dataDir, 'storage', stored.bucket!, stored.storage_key!);
    const outside = path.join(path.dirname(w.s.config.dataDir), `outside-${process.pid}.csv`);
    writeFileSync(outside, 'v\nOUTSIDE-SECRET-1\nOUTSIDE-SECRET-2\n');
    rmSync(file);
    symlinkSync(outside, file);
    await w.ok('PUT', `/api/v2/jobs/${sleeper}/abort?teamId=${w.ws}&forceAbort=true`);
    const job = await w.ended(id);
    assert.equal(job.status, 'failed');
    assert.match(job.statusMessage, /The input arrayFile could not be staged/);
    // Nothing ran: no row of the outside file reached a task (or a log).
    assert.doesNotMatch(JSON.stringify(job), /OUTSIDE-SECRET/);
    assert.equal(existsSync(path.join(jobPaths(w.s.config.dataDir, w.ws, id).logs, 'stdout.txt')), false);
    rmSync(outside);
  });

  it('runs at most as many tasks at once as its queue allows, and reports them queued and running meanwhile', async () => {
    const queue = await w.ok('POST', '/api/runyard/admin/queues', { workspaceId: w.ws, name: 'two-at-once', concurrency: 2 });
    const fileId = await upload('six.csv', 'i\n0\n1\n2\n3\n4\n5\n');
    // Each task records when it runs, and waits for the go file the test writes into the work directory.
    const id = await w.submit(
      'mkdir -p "$RUNYARD_RESULTS_DIR/running"; touch "$RUNYARD_RESULTS_DIR/running/$RUNYARD_PARAM_I"; while [ ! -e go ]; do sleep 0.05; done; ' +
        'ls "$RUNYARD_RESULTS_DIR/running" | wc -l > "$RUNYARD_RESULTS_DIR/seen-$RUNYARD_PARAM_I"; rm "$RUNYARD_RESULTS_DIR/running/$RUNYARD_PARAM_I"; true',
      { ...arrayBody(fileId, [column('i', 'i')]), batch: { enabled: true, jobQueue: queue.id } },
    );
    const progress = await waitFor(
      'two tasks running and four queued',
      async () => {
        const job = await w.ok('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`);
        return job.arrayTasks.running === 2 ? job.arrayTasks : undefined;
      },
      60_000,
    );
    assert.deepEqual(progress, { total: 6, queued: 4, running: 2, completed: 0, failed: 0, atOnce: 2 });
    writeFileSync(path.join(jobPaths(w.s.config.dataDir, w.ws, id).root, 'work', 'go'), '');
    const job = await w.ended(id);
    assert.equal(job.status, 'completed', job.statusMessage);
    for (let i = 0; i < 6; i++) {
      const seen = Number(readFileSync(path.join(resultsOf(id), `seen-${i}`), 'utf8'));
      assert.ok(seen >= 1 && seen <= 2, `task ${i} saw ${seen} tasks running`);
    }
  });

  it('an abort stops every running task and queues no more', async () => {
    const fileId = await upload('sleepy.csv', `i\n${Array.from({ length: 8 }, (_, i) => `rowsecret${i}`).join('\n')}\n`);
    const id = await w.submit(
      'touch "$RUNYARD_RESULTS_DIR/started-$RUNYARD_PARAM_I"; sleep 60; true',
      arrayBody(fileId, [column('i', 'i')]),
    );
    await waitFor(
      'four tasks running',
      async () => ((await w.ok('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`)).arrayTasks?.running === 4 ? true : undefined),
      60_000,
    );
    const { pid } = await taskIdOf(id);
    assert.ok(groupMembers(pid).length > 4, 'the tasks run in the process group of the job');
    // T11: no row value is on any command line while the tasks run.
    assert.deepEqual(cmdlinesHolding('rowsecret'), []);
    await w.ok('PUT', `/api/v2/jobs/${id}/abort?teamId=${w.ws}&forceAbort=true`);
    const job = await w.ended(id);
    assert.equal(job.status, 'aborted');
    assert.deepEqual(groupMembers(pid), [], 'a task of the array is left');
    const started = readdirSync(resultsOf(id)).filter((n) => n.startsWith('started-'));
    assert.equal(started.length, 4, `started: ${started.join(', ')}`);
    // The rows' values are kept only while the job runs.
    const rowsDir = path.join(jobPaths(w.s.config.dataDir, w.ws, id).control, 'array-1');
    await waitFor("the rows' values to be removed", async () => (existsSync(rowsDir) ? undefined : true));
  });

  async function taskIdOf(id: string): Promise<{ pid: number }> {
    const row = await w.s.store.db.selectFrom('jobs').select('external_id').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.external_id!) as { pid: number };
  }

  it("refuses at submission, storing nothing: a missing column, a short row, no data rows, an unknown separator, another workspace's file", async () => {
    const count = async () => (await w.ok('GET', `/api/v2/jobs?teamId=${w.ws}&limit=100`)).paginationMetadata['Pagination-Count'];
    const before = await count();
    const fileId = await upload('short.csv', 'a,b\n1,2\n3\n');
    const refused = async (body: Record<string, unknown>, status: number, message: RegExp) => {
      const r = await w.api('POST', `/api/v2/jobs?teamId=${w.ws}`, {
        project: (await w.ok('GET', `/api/v2/projects?teamId=${w.ws}`)).projects[0]._id,
        workflow: (await w.ok('GET', `/api/v3/workflows?teamId=${w.ws}&search=ubuntu`)).workflows[0]._id,
        name: 'array',
        command: 'true',
        executionPlatform: 'aws',
        ...body,
      });
      assert.equal(r.status, status, JSON.stringify(r.json));
      assert.match(r.json.message, message);
    };
    await refused(arrayBody(fileId, [column('x', 'c')]), 400, /takes the column "c", which its header lacks \(columns: a, b\)/);
    await refused(arrayBody(fileId, [column('x', 'b')]), 400, /row 3 has 1 fields, so no value of the column "b"/);
    await refused(arrayBody(await upload('header-only.csv', 'a,b\n'), [column('x', 'a')]), 400, /has a header but no data rows/);
    await refused(arrayBody(fileId, [column('x', 'a')], '#'), 400, /separator "#" is not one of/);
    const other = await w.s.newTenant('eve');
    const theirProject = (await (
      await fetch(`${w.s.url}/api/v1/projects?teamId=${other.workspaceId}`, {
        method: 'POST',
        headers: { apikey: other.apikey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'theirs' }),
      })
    ).json()) as { _id: string };
    const theirs = await upload('theirs.csv', 'a\n1\n', other.apikey, other.workspaceId, theirProject._id);
    await refused(arrayBody(theirs, [column('x', 'a')]), 404, /arrayFile: file .* not found in this workspace/);
    await refused({ parameters: [column('x', 'a')] }, 400, /is an array column but the job has no arrayFile/);
    await refused(
      { customScriptFile: { dataItem: { kind: 'File', item: '0123456789abcdef01234567' } } },
      404,
      /customScriptFile: file .* not found/,
    );
    assert.equal(await count(), before);
  });

  it("in the workflow's image with a container runtime: a container per row with its row's values; an abort removes them all", async () => {
    const runtime = fakeRuntime('docker');
    const inImage = await startBashJobServer({
      RUNYARD_CONTAINER_RUNTIME: 'docker',
      RUNYARD_TASK_PATH: `${runtime.dir}:${FIXTURE_BIN}:${process.env.PATH}`,
    });
    try {
      const project = (await inImage.ok('GET', `/api/v2/projects?teamId=${inImage.ws}`)).projects[0]._id;
      const upload = (name: string, text: string) =>
        uploadFile(inImage.s.url, inImage.s.admin.apikey, { workspaceId: inImage.ws, projectId: project }, name, text);
      const fileId = await upload('rows.csv', 'v\nalpha\nbeta\ngamma\n');
      const id = await inImage.submit('echo "row $RUNYARD_ARRAY_INDEX: $RUNYARD_PARAM_V"; true', arrayBody(fileId, [column('v', 'v')]));
      const job = await inImage.ended(id);
      const log = inImage.logOf(id);
      assert.equal(job.status, 'completed', `${job.statusMessage}\n${log}`);
      ['alpha', 'beta', 'gamma'].forEach((v, i) => assert.match(log, new RegExp(`=== task ${i}: exit code 0 ===\\nrow ${i}: ${v}\\n`)));
      const runs = runtime.calls().filter((c) => c[0] === 'run');
      assert.deepEqual(
        runs.map((c) => c[2]).sort(),
        [0, 1, 2].map((i) => `runyard-${id}-a1-${i}`),
      );
      assert.ok(runs.every((c) => c.includes('library/ubuntu:22.04')));

      const slow = await inImage.submit('sleep 300; true', arrayBody(await upload('slow.csv', 'v\n1\n2\n'), [column('v', 'v')]));
      const names = [0, 1].map((i) => `runyard-${slow}-a1-${i}`);
      const containers = await waitFor('both rows to run in their containers', async () => {
        const found = names.map((n) => runtime.container(n));
        return found.every(Boolean) ? found : undefined;
      });
      await inImage.ok('PUT', `/api/v2/jobs/${slow}/abort?teamId=${inImage.ws}&force=true`);
      assert.equal((await inImage.ended(slow)).status, 'aborted');
      await waitFor("the rows' containers to be removed", async () => (containers.every((c) => !runtime.running(c!)) ? true : undefined));
      assert.ok(runtime.calls().some((c) => c.join(' ') === `rm -f ${names.join(' ')}`));
    } finally {
      await inImage.close();
    }
  });

  it('runs the customScriptFile a bash job names, with its parameters as arguments', async () => {
    const script = await upload('hello.sh', 'printf "script:%s\\n" "$@" > "$RUNYARD_RESULTS_DIR/script.txt"\n');
    const id = await w.submit('hello.sh', {
      customScriptFile: { dataItem: { kind: 'File', item: script } },
      parameters: [{ prefix: '--', name: 'who', parameterKind: 'textValue', textValue: 'world' }],
    });
    const job = await w.ended(id);
    assert.equal(job.status, 'completed', job.statusMessage);
    assert.equal(readFileSync(path.join(resultsOf(id), 'script.txt'), 'utf8'), 'script:--who\nscript:world\n');
  });
});
