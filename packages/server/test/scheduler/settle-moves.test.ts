import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { newObjectId } from '@runyard/contract';
import type { Insertable } from 'kysely';
import type { AttemptRef, SchedulerContext, SchedulerLog } from '../../src/scheduler/context.js';
import { controlDirOf, failureFileOf, taskPaths } from '../../src/scheduler/job-paths.js';
import { concludeAttempt, requeueOrFail, settle, type Outcome } from '../../src/scheduler/settle.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import type { JobTable } from '../../src/store/schema.js';
import {
  assertLegalHistory,
  getJob,
  insertJob,
  insertQueue,
  insertWorkflow,
  pathsOf,
  schedulerContext,
  setup,
  statusHistory,
  type Env,
} from './helpers.js';

/**
 * What settle.ts records of an attempt's end, called directly as the attempt runner calls it: the
 * one conditional UPDATE (current attempt, our lease, a legal move) with its status, message, exit
 * code, end time and cost, what it refuses, and which outcome a task's end becomes.
 */
describe('settling an attempt', { timeout: 120_000 }, () => {
  let env: Env;
  let bashWorkflow: string;
  let nextflowWorkflow: string;
  before(async () => {
    // A CPU hour costs a dollar: a job's cost follows from its CPUs and run time alone. At most 3 attempts.
    env = await setup({ env: { RUNYARD_CPU_HOUR_COST_CENTS: '100', RUNYARD_JOB_MAX_ATTEMPTS: '3' } });
    bashWorkflow = await insertWorkflow(env);
    nextflowWorkflow = await insertWorkflow(env, { workflow_type: 'nextflow' });
  });
  after(() => env.close());

  const OWNER = 'me';
  const HOUR = 3_600_000;
  const ref = (id: string, attempt = 1, owner = OWNER): AttemptRef => ({ id, attempt, owner });
  const iso = (ms: number) => new Date(ms).toISOString();

  /** A bash job of 2 CPUs and 3 GiB that this scheduler runs (attempt 1, its lease live), started an hour ago. */
  function runningJob(values: Partial<Insertable<JobTable>> = {}): Promise<string> {
    return insertJob(env, bashWorkflow, {
      status: 'running',
      attempt: 1,
      lease_owner: OWNER,
      lease_expires_at: iso(Date.now() + HOUR),
      start_time: iso(Date.now() - HOUR),
      external_id: JSON.stringify({ backend: 'local', pid: 1234 }),
      resource_cpu: 2,
      resource_ram: 3,
      ...values,
    });
  }

  /** A Nextflow job (its log is the engine's), otherwise as runningJob. */
  const nextflowJob = (values: Partial<Insertable<JobTable>> = {}) =>
    runningJob({ workflow_id: nextflowWorkflow, workflow_type: 'nextflow', ...values });

  interface Recorded {
    ctx: SchedulerContext;
    /** settling(...) and slotFreed() calls, in order. */
    calls: string[];
    /** Log entries: level and message. */
    logged: string[];
    /** Log entries' objects, by message. */
    fields: Map<string, object>;
  }

  function recorded(more: Partial<SchedulerContext> = {}): Recorded {
    const calls: string[] = [];
    const logged: string[] = [];
    const fields = new Map<string, object>();
    const entry = (level: string) => (obj: object, msg?: string) => {
      logged.push(`${level}: ${msg}`);
      fields.set(msg ?? '', obj);
    };
    const log: SchedulerLog = { info: entry('info'), warn: entry('warn'), error: entry('error') };
    const ctx = schedulerContext(env, OWNER, {
      log,
      slotFreed: () => calls.push('slotFreed'),
      settling: (underWay) => calls.push(`settling ${underWay}`),
      ...more,
    });
    return { ctx, calls, logged, fields };
  }

  /** The job's log (stdout.txt) as the task left it: `text` in its logs directory. */
  function writeLog(id: string, text: string): string {
    const logs = pathsOf(env, id).logs;
    mkdirSync(logs, { recursive: true });
    writeFileSync(path.join(logs, 'stdout.txt'), text);
    return path.join(logs, 'stdout.txt');
  }

  /** What the task wrote of its failure (attempt 1). */
  function writeFailure(id: string, text: string) {
    const control = controlDirOf(env.config.dataDir, id);
    mkdirSync(control, { recursive: true });
    writeFileSync(failureFileOf(control, 1), text);
  }

  /** The cost settle must record: 2 CPUs at a dollar an hour, from start to end, to 1/10,000 of a cent. */
  const costOf = (start: string, end: string) => Math.round(((Date.parse(end) - Date.parse(start)) / HOUR) * 200 * 10_000) / 10_000;

  function assertWithin(isoTime: string | null, from: number, to: number, what: string) {
    assert.ok(isoTime, `${what} is set`);
    const t = Date.parse(isoTime);
    assert.ok(t >= from && t <= to, `${what} ${isoTime} not within ${iso(from)}..${iso(to)}`);
  }

  describe('settle', () => {
    it('records a completed attempt once: exit code 0, its end time and cost, no lease; then frees its slot', async () => {
      const id = await runningJob();
      const before = await getJob(env, id);
      const { ctx, calls, logged, fields } = recorded();
      const from = Date.now();
      assert.equal(await settle(ctx, ref(id), { status: 'completed' }), true);
      const to = Date.now();
      const row = await getJob(env, id);
      assert.equal(row.status, 'completed');
      assert.equal(row.exit_code, 0);
      assert.equal(row.status_message, null);
      assertWithin(row.end_time, from, to, 'the end time');
      assertWithin(row.updated_at, from, to, 'updated_at');
      assert.equal(row.compute_cost_cents, costOf(before.start_time!, row.end_time!));
      assert.ok(row.compute_cost_cents > 199 && row.compute_cost_cents < 202, `${row.compute_cost_cents}`);
      assert.deepEqual([row.lease_owner, row.lease_expires_at], [null, null]);
      assert.deepEqual([row.start_time, row.external_id, row.attempt], [before.start_time, before.external_id, 1]);
      // Its slot is free once the UPDATE is answered, not before.
      assert.deepEqual(calls, ['settling true', 'settling false', 'slotFreed']);
      assert.deepEqual(logged, ['info: job settled']);
      assert.deepEqual(fields.get('job settled'), { jobId: id, attempt: 1, status: 'completed' });
      assert.equal(existsSync(path.join(pathsOf(env, id).logs, 'stdout.txt')), false, 'nothing written to its log');

      // A second result of the same attempt is refused: the job has its outcome.
      const again = recorded();
      assert.equal(await settle(again.ctx, ref(id), { status: 'failed', message: 'late', logged: true }), false);
      assert.deepEqual(await getJob(env, id), row);
      assert.deepEqual(again.calls, ['settling true', 'settling false']);
      assert.deepEqual(again.logged, ['warn: result refused: the attempt is no longer current']);
      assert.deepEqual(again.fields.get('result refused: the attempt is no longer current'), { jobId: id, attempt: 1, status: 'failed' });
      await assertLegalHistory(env, id);
    });

    it("records a completed attempt's message (what its limits stopped) and ends its log with it", async () => {
      const id = await runningJob();
      const log = writeLog(id, 'hello\n');
      assert.equal(await settle(recorded().ctx, ref(id), { status: 'completed', message: 'Runyard: 1 process was killed.' }), true);
      const row = await getJob(env, id);
      assert.deepEqual([row.status, row.exit_code, row.status_message], ['completed', 0, 'Runyard: 1 process was killed.']);
      assert.equal(readFileSync(log, 'utf8'), 'hello\nRunyard: 1 process was killed.\n');
    });

    it('records a failed attempt: its exit code (null when it has none) and message; the log ends with the message only when it should', async () => {
      const quiet = await runningJob();
      const quietLog = writeLog(quiet, 'hello\n');
      assert.equal(await settle(recorded().ctx, ref(quiet), { status: 'failed', exitCode: 3, message: 'It failed.' }), true);
      const row = await getJob(env, quiet);
      assert.deepEqual([row.status, row.exit_code, row.status_message], ['failed', 3, 'It failed.']);
      assert.ok(row.end_time && row.compute_cost_cents > 0);
      assert.equal(readFileSync(quietLog, 'utf8'), 'hello\n');

      const logged = await runningJob();
      const loggedLog = writeLog(logged, 'hello\n');
      assert.equal(await settle(recorded().ctx, ref(logged), { status: 'failed', message: 'Out of memory.', logged: true }), true);
      const loggedRow = await getJob(env, logged);
      assert.deepEqual([loggedRow.status, loggedRow.exit_code, loggedRow.status_message], ['failed', null, 'Out of memory.']);
      assert.equal(readFileSync(loggedLog, 'utf8'), 'hello\nOut of memory.\n');
    });

    it('records an aborted attempt with its message, or none', async () => {
      const [said, silent] = [await runningJob({ status: 'aborting' }), await runningJob({ status: 'aborting' })];
      const log = writeLog(said, '');
      assert.equal(await settle(recorded().ctx, ref(said), { status: 'aborted', message: 'Its cost passed its limit.' }), true);
      assert.equal(await settle(recorded().ctx, ref(silent), { status: 'aborted' }), true);
      const [a, b] = [await getJob(env, said), await getJob(env, silent)];
      assert.deepEqual([a.status, a.exit_code, a.status_message], ['aborted', null, 'Its cost passed its limit.']);
      assert.deepEqual([b.status, b.exit_code, b.status_message], ['aborted', null, null]);
      assert.ok(a.end_time && b.end_time);
      assert.equal(readFileSync(log, 'utf8'), '');
    });

    it('refuses the result of a stale attempt, of a scheduler without the lease, of a job that cannot move so, or of no job; writes nothing then', async () => {
      const stale = await runningJob({ attempt: 2 });
      const foreign = await runningJob({ lease_owner: 'other' });
      // Only aborted may follow queued.
      const queued = await runningJob({ status: 'queued' });
      const cases: [AttemptRef, Outcome][] = [
        [ref(stale, 1), { status: 'completed', message: 'late' }],
        [ref(foreign), { status: 'failed', message: 'late', logged: true }],
        [ref(queued), { status: 'completed' }],
        [ref(queued), { status: 'failed', message: 'late' }],
      ];
      for (const [attempt, outcome] of cases) {
        const before = await getJob(env, attempt.id);
        const log = writeLog(attempt.id, 'hello\n');
        const { ctx, calls } = recorded();
        assert.equal(await settle(ctx, attempt, outcome), false, `${JSON.stringify(attempt)} ${outcome.status}`);
        assert.deepEqual(calls, ['settling true', 'settling false']);
        assert.deepEqual(await getJob(env, attempt.id), before);
        assert.equal(readFileSync(log, 'utf8'), 'hello\n', 'its log is left alone');
      }
      const { ctx, calls } = recorded();
      assert.equal(await settle(ctx, ref('000000000000000000000000'), { status: 'completed' }), false);
      assert.deepEqual(calls, []);
    });

    it('stores with the outcome the start of a task that was not reported running: its start time (one the job has is kept) and external id', async () => {
      const launched = Date.now() - HOUR;
      const started = { externalId: { backend: 'local', pid: 42 }, startTime: iso(launched) };
      const fresh = await runningJob({ status: 'initializing', start_time: null, external_id: null });
      assert.equal(await settle(recorded().ctx, ref(fresh), { status: 'completed' }, started), true);
      const row = await getJob(env, fresh);
      assert.deepEqual([row.status, row.start_time, row.external_id], ['completed', iso(launched), JSON.stringify(started.externalId)]);
      assert.equal(row.compute_cost_cents, costOf(iso(launched), row.end_time!));

      // A start time the job already has is kept, and so is its external id when the start names none.
      const earlier = iso(launched - HOUR);
      const known = await runningJob({ status: 'initializing', start_time: earlier, external_id: 'kept' });
      assert.equal(await settle(recorded().ctx, ref(known), { status: 'completed' }, { externalId: null, startTime: iso(launched) }), true);
      const knownRow = await getJob(env, known);
      assert.deepEqual([knownRow.start_time, knownRow.external_id], [earlier, 'kept']);
      assert.equal(knownRow.compute_cost_cents, costOf(earlier, knownRow.end_time!));

      // A task that never started costs nothing.
      const never = await runningJob({ status: 'initializing', start_time: null });
      assert.equal(await settle(recorded().ctx, ref(never), { status: 'failed', message: 'no' }), true);
      const neverRow = await getJob(env, never);
      assert.deepEqual([neverRow.start_time, neverRow.compute_cost_cents], [null, 0]);
    });

    it("removes the control files that hold the job's values, and its staged inputs, once it is settled", async () => {
      const id = await runningJob();
      const control = controlDirOf(env.config.dataDir, id);
      mkdirSync(path.join(control, 'inputs'), { recursive: true });
      mkdirSync(path.join(control, 'array-1'));
      for (const name of ['attempt-1.env', 'registry-auth-1.json', 'exit-1']) writeFileSync(path.join(control, name), 'x');
      assert.equal(await settle(recorded().ctx, ref(id), { status: 'completed' }), true);
      for (const name of ['inputs', 'array-1', 'attempt-1.env', 'registry-auth-1.json'])
        assert.equal(existsSync(path.join(control, name)), false, name);
      assert.equal(existsSync(path.join(control, 'exit-1')), true);
    });

    it('settles still when the end of its log cannot be written, and says so', async () => {
      const id = await runningJob();
      // Its logs directory is a file: nothing can be written beneath it.
      mkdirSync(path.dirname(pathsOf(env, id).logs), { recursive: true });
      writeFileSync(pathsOf(env, id).logs, '');
      const { ctx, logged, fields } = recorded();
      assert.equal(await settle(ctx, ref(id), { status: 'completed', message: 'Runyard: note.' }), true);
      assert.equal((await getJob(env, id)).status_message, 'Runyard: note.');
      assert.deepEqual(logged, ['warn: could not write the end of a job to its log', 'info: job settled']);
      const warned = fields.get('could not write the end of a job to its log') as { jobId: string; err: string };
      assert.deepEqual([Object.keys(warned), warned.jobId, typeof warned.err], [['jobId', 'err'], id, 'string']);
    });

    it('settles for a scheduler that follows neither its commits nor its slots', async () => {
      const id = await runningJob();
      assert.equal(await settle(schedulerContext(env, OWNER), ref(id), { status: 'completed' }), true);
      assert.equal((await getJob(env, id)).status, 'completed');
    });
  });

  describe('settle on a store of objects (S3, Azure)', () => {
    /** An S3 stand-in: keeps what is put (key and text), or refuses every put with `failure`. */
    function objectStore(failure?: string): BlobStore & { put_: Map<string, string> } {
      const put_ = new Map<string, string>();
      const refuse = () => Promise.reject(new Error('not here'));
      return {
        kind: 's3',
        put_,
        list: async () => ({ entries: [] }),
        async put(_bucket: string, key: string, body: Buffer | Readable) {
          if (failure) throw new Error(failure);
          const chunks: Buffer[] = [];
          for await (const chunk of body as Readable) chunks.push(chunk as Buffer);
          put_.set(key, Buffer.concat(chunks).toString('utf8'));
          return { size: 0 };
        },
        get: refuse,
        stat: refuse,
        delete: refuse,
        deletePrefix: refuse,
        copy: refuse,
        ensureBucket: async () => undefined,
      };
    }

    /** A running job whose local copies (under scratch) hold a log, a result and a work file. */
    async function remoteJob(blobs: BlobStore, values: Partial<Insertable<JobTable>> = {}) {
      const id = await runningJob(values);
      const paths = await taskPaths(env.config.dataDir, blobs, await getJob(env, id));
      for (const [dir, name] of [
        [paths.logs, 'stdout.txt'],
        [paths.results, 'r.txt'],
        [paths.work, 'w.txt'],
      ] as const) {
        mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, name), `${name}\n`);
      }
      return { id, paths, prefix: paths.prefix };
    }

    it("pushes the job's logs (with its last line), results and work directory before its status is written, then removes the local copies", async () => {
      const blobs = objectStore();
      const { id, paths, prefix } = await remoteJob(blobs);
      assert.equal(await settle(recorded({ blobs }).ctx, ref(id), { status: 'completed', message: 'Runyard: note.' }), true);
      assert.deepEqual(
        new Map([...blobs.put_].sort()),
        new Map([
          [`${prefix}/logs/stdout.txt`, 'stdout.txt\nRunyard: note.\n'],
          [`${prefix}/results/r.txt`, 'r.txt\n'],
          [`${prefix}/work/w.txt`, 'w.txt\n'],
        ]),
      );
      assert.equal((await getJob(env, id)).status, 'completed');
      assert.equal(existsSync(paths.root), false, 'the local copies are removed');
    });

    it('pushes only the logs of a job aborted by force, everything of one aborted gently or that completed before its forced abort', async () => {
      for (const [force, status] of [
        [1, 'aborted'],
        [0, 'aborted'],
        [1, 'completed'],
      ] as const) {
        const blobs = objectStore();
        const { id, prefix } = await remoteJob(blobs, { status: 'aborting', abort_force: force });
        assert.equal(await settle(recorded({ blobs }).ctx, ref(id), { status }), true);
        assert.equal((await getJob(env, id)).status, status);
        const keys = [...blobs.put_.keys()].sort();
        assert.deepEqual(
          keys,
          force && status === 'aborted'
            ? [`${prefix}/logs/stdout.txt`]
            : [`${prefix}/logs/stdout.txt`, `${prefix}/results/r.txt`, `${prefix}/work/w.txt`],
        );
      }
    });

    it('fails a completed job whose outputs cannot be saved, and keeps the outcome of one that failed or was aborted anyway', async () => {
      const blobs = objectStore('the store is down');
      const completed = await remoteJob(blobs);
      const failed = await remoteJob(blobs);
      const aborted = await remoteJob(blobs, { status: 'aborting' });
      const { ctx, logged, fields } = recorded({ blobs });
      assert.equal(await settle(ctx, ref(completed.id), { status: 'completed' }), true);
      assert.deepEqual(logged, ['error: could not save the outputs of a job', 'info: job settled']);
      assert.deepEqual(fields.get('could not save the outputs of a job'), { jobId: completed.id, attempt: 1, err: 'the store is down' });
      const row = await getJob(env, completed.id);
      assert.deepEqual(
        [row.status, row.exit_code, row.status_message],
        ['failed', null, "The job's outputs could not be saved to the store: the store is down"],
      );
      assert.equal(await settle(ctx, ref(failed.id), { status: 'failed', exitCode: 2, message: 'Its own failure.' }), true);
      const failedRow = await getJob(env, failed.id);
      assert.deepEqual([failedRow.status, failedRow.exit_code, failedRow.status_message], ['failed', 2, 'Its own failure.']);
      assert.equal(await settle(ctx, ref(aborted.id), { status: 'aborted' }), true);
      assert.equal((await getJob(env, aborted.id)).status, 'aborted');
    });

    it('pushes nothing for a result that is refused', async () => {
      const blobs = objectStore();
      const { id } = await remoteJob(blobs, { attempt: 2 });
      assert.equal(await settle(recorded({ blobs }).ctx, ref(id, 1), { status: 'completed' }), false);
      assert.equal(blobs.put_.size, 0);
    });
  });

  describe('requeueOrFail', () => {
    it('queues a lost task again as a fresh start, until its last attempt: then the job fails, saying how often and why', async () => {
      for (const attempt of [1, 2]) {
        const id = await runningJob({ attempt });
        const { ctx, calls, logged, fields } = recorded();
        assert.equal(await requeueOrFail(ctx, ref(id, attempt), 'its process vanished'), true);
        const row = await getJob(env, id);
        assert.deepEqual(
          [row.status, row.attempt, row.lease_owner, row.lease_expires_at, row.external_id, row.start_time, row.end_time],
          ['queued', attempt, null, null, null, null, null],
        );
        assert.deepEqual(logged, ['warn: job queued again']);
        assert.deepEqual(fields.get('job queued again'), { jobId: id, attempt, reason: 'its process vanished' });
        assert.deepEqual(calls, [], 'no slot is freed by a job that is queued again');
      }
      const last = await runningJob({ attempt: 3 });
      assert.equal(await requeueOrFail(recorded().ctx, ref(last, 3), 'its process vanished'), true);
      const row = await getJob(env, last);
      assert.deepEqual(
        [row.status, row.exit_code, row.status_message],
        ['failed', null, "The job's task was lost 3 times (last: its process vanished)."],
      );
      assert.ok(row.end_time);
    });

    it('fails at the configured number of attempts, and refuses a stale attempt either way', async () => {
      const id = await runningJob({ attempt: 2 });
      assert.equal(await requeueOrFail(recorded({ config: { ...env.config, jobMaxAttempts: 2 } }).ctx, ref(id, 2), 'gone'), true);
      assert.equal((await getJob(env, id)).status, 'failed');
      for (const max of [1, 3]) {
        const stale = await runningJob({ attempt: 2 });
        const { ctx, logged } = recorded({ config: { ...env.config, jobMaxAttempts: max } });
        assert.equal(await requeueOrFail(ctx, ref(stale, 1), 'gone'), false);
        assert.equal((await getJob(env, stale)).status, 'running');
        assert.ok(!logged.includes('warn: job queued again'));
      }
    });
  });

  describe('concludeAttempt', () => {
    const exited = (exitCode: number, more: object = {}) => ({ state: 'exited' as const, exitCode, ...more });
    const conclude = async (id: string, end: Parameters<typeof concludeAttempt>[2], started?: Parameters<typeof concludeAttempt>[3]) => {
      assert.equal(await concludeAttempt(recorded().ctx, ref(id), end, started), true);
      return getJob(env, id);
    };
    const outcomeOf = (row: { status: string; exit_code: number | null; status_message: string | null }) => [
      row.status,
      row.exit_code,
      row.status_message,
    ];

    it('refuses an attempt that is not current or not ours', async () => {
      const id = await runningJob({ attempt: 2 });
      assert.equal(await concludeAttempt(recorded().ctx, ref(id, 1), exited(0)), false);
      assert.equal(await concludeAttempt(recorded().ctx, ref(id, 2, 'other'), exited(0)), false);
      assert.equal((await getJob(env, id)).status, 'running');
    });

    it('an aborting job is aborted, however its task ended', async () => {
      for (const end of [exited(0), exited(1), { state: 'lost' as const, reason: 'gone' }, { state: 'absent' as const }]) {
        const row = await conclude(await runningJob({ status: 'aborting' }), end);
        assert.deepEqual(outcomeOf(row), ['aborted', null, null]);
      }
    });

    it('exit 0 completes the job; a job not yet reported running gets its start recorded with it', async () => {
      const running = await runningJob();
      const before = await getJob(env, running);
      const row = await conclude(running, exited(0), { externalId: { backend: 'local', pid: 99 }, startTime: iso(Date.now()) });
      assert.deepEqual(outcomeOf(row), ['completed', 0, null]);
      assert.deepEqual([row.start_time, row.external_id], [before.start_time, before.external_id], 'a running job already has its start');

      const launched = iso(Date.now() - HOUR);
      const initializing = await runningJob({ status: 'initializing', start_time: null, external_id: null });
      const started = await conclude(initializing, exited(0), { externalId: { backend: 'local', pid: 7 }, startTime: launched });
      assert.deepEqual([started.status, started.start_time, started.external_id], ['completed', launched, '{"backend":"local","pid":7}']);

      // Without a start record: now.
      const unrecorded = await runningJob({ status: 'initializing', start_time: null });
      const from = Date.now();
      const now = await conclude(unrecorded, exited(0));
      assertWithin(now.start_time, from, Date.now(), 'the start time');
      assert.equal(now.external_id, JSON.stringify({ backend: 'local', pid: 1234 }));
    });

    it("a message from the executor (a time limit, a cancel there) fails the job with it, whatever its code and the task's own word", async () => {
      const row = await conclude(await runningJob(), exited(0, { message: 'Slurm cancelled the job.' }));
      assert.deepEqual(outcomeOf(row), ['failed', 0, 'Slurm cancelled the job.']);
      const said = await runningJob();
      writeFailure(said, 'The call hello failed.');
      const timedOut = await conclude(said, exited(3, { message: 'The time limit passed.' }));
      assert.deepEqual(outcomeOf(timedOut), ['failed', 3, 'The time limit passed.']);
    });

    it("what the task's limits stopped is said: with a completion, and after a failure's reason (and in its log)", async () => {
      const oom = await runningJob();
      const oomLog = writeLog(oom, '');
      const row = await conclude(oom, exited(0, { limits: { oomKills: 1, forksRefused: 0 } }));
      const oomNote = 'Runyard: 1 process was killed for exceeding the memory limit of 3 GiB.';
      assert.deepEqual(outcomeOf(row), ['completed', 0, oomNote]);
      assert.equal(readFileSync(oomLog, 'utf8'), `${oomNote}\n`);

      const forks = await conclude(await runningJob({ resource_cpu: 3 }), exited(0, { limits: { oomKills: 2, forksRefused: 3 } }));
      assert.deepEqual(outcomeOf(forks), [
        'completed',
        0,
        'Runyard: 2 processes were killed for exceeding the memory limit of 3 GiB; 3 new processes were refused at the limit of 768 processes.',
      ]);
      const one = await conclude(await runningJob(), exited(0, { limits: { oomKills: 0, forksRefused: 1, pidsLimit: 100 } }));
      assert.deepEqual(outcomeOf(one), ['completed', 0, 'Runyard: 1 new process was refused at the limit of 100 processes.']);
      const nothing = await conclude(await runningJob(), exited(0, { limits: { oomKills: 0, forksRefused: 0 } }));
      assert.deepEqual(outcomeOf(nothing), ['completed', 0, null]);

      const failing = await nextflowJob({ instance_type: 'c5.xlarge' });
      const failingLog = writeLog(failing, '');
      const failed = await conclude(failing, exited(4, { limits: { oomKills: 1, forksRefused: 0 } }));
      // A Nextflow head job is sized by its instance type (c5.xlarge: 8 GiB).
      const note = 'Runyard: 1 process was killed for exceeding the memory limit of 8 GiB.';
      assert.deepEqual(outcomeOf(failed), ['failed', 4, `The task exited with code 4. ${note}`]);
      assert.equal(readFileSync(failingLog, 'utf8'), `The task exited with code 4. ${note}\n`);
    });

    it("a task killed for its memory fails, naming the limit as the job's executor gives it", async () => {
      const killed = await runningJob();
      const log = writeLog(killed, 'hello\n');
      const exitedRow = await conclude(killed, exited(137, { outOfMemory: true }));
      assert.deepEqual(outcomeOf(exitedRow), ['failed', 137, 'The task exceeded its memory limit of 3 GiB.']);
      // Said in its log too: the task could not say it.
      assert.equal(readFileSync(log, 'utf8'), 'hello\nThe task exceeded its memory limit of 3 GiB.\n');
      // Lost, without an exit code: not run again (it would end the same way).
      const lost = await conclude(await runningJob(), { state: 'lost', reason: 'gone', outOfMemory: true });
      assert.deepEqual(outcomeOf(lost), ['failed', null, 'The task exceeded its memory limit of 3 GiB.']);
      // Without a queue a job runs on the local executor, which gives at most its memory (4096 GiB here); another executor gives what was asked.
      const noQueue = await conclude(await runningJob({ queue_id: null, resource_ram: 5000 }), exited(137, { outOfMemory: true }));
      assert.equal(noQueue.status_message, 'The task exceeded its memory limit of 4096 GiB.');
      const slurm = newObjectId();
      await insertQueue(env.store, env.workspaceId, slurm, 5, 'slurm');
      const onSlurm = await conclude(await runningJob({ queue_id: slurm, resource_ram: 5000 }), exited(137, { outOfMemory: true }));
      assert.equal(onSlurm.status_message, 'The task exceeded its memory limit of 5000 GiB.');
    });

    it('a failed task is described by what it wrote of its failure, at most 2000 characters', async () => {
      const failWith = async (text: string, job = runningJob) => {
        const id = await job();
        writeFailure(id, text);
        return conclude(id, exited(2));
      };
      assert.deepEqual(outcomeOf(await failWith('\n  The call\0 hello failed.\0\n')), ['failed', 2, 'The call hello failed.']);
      assert.equal((await failWith('x'.repeat(2001))).status_message, `${'x'.repeat(1997)}...`);
      assert.equal((await failWith('y'.repeat(2000))).status_message, 'y'.repeat(2000));
      // Nothing said: its exit code.
      assert.equal((await failWith(' \n\0', nextflowJob)).status_message, 'The task exited with code 2.');
    });

    it("a bash job's failure message ends with the last lines of its log, without Runyard's own", async () => {
      const id = await runningJob();
      const text = 'Runyard: starting\none\n\ntwo\nthree\nRunyard: a note\nfour\nfive\nsix\n';
      const log = writeLog(id, text);
      assert.equal(
        (await conclude(id, exited(1))).status_message,
        'The task exited with code 1. The end of its log:\ntwo\nthree\nfour\nfive\nsix',
      );
      // Quoted from the log: not written to it again.
      assert.equal(readFileSync(log, 'utf8'), text);
      // A long log: read from its last 4000 characters (a line cut there is left out), at most 1000 of them.
      const long = await runningJob();
      writeLog(long, `${'a'.repeat(5000)}\n${'b'.repeat(300)}\n${'c'.repeat(300)}\n`);
      assert.equal(
        (await conclude(long, exited(1))).status_message,
        `The task exited with code 1. The end of its log:\n${'b'.repeat(300)}\n${'c'.repeat(300)}`,
      );
      const longer = await runningJob();
      writeLog(longer, `start\n${'d'.repeat(600)}\n${'e'.repeat(600)}\n`);
      assert.equal(
        (await conclude(longer, exited(1))).status_message,
        `The task exited with code 1. The end of its log:\n${`${'d'.repeat(600)}\n${'e'.repeat(600)}`.slice(-1000)}`,
      );
      // A short log: all of it, but for blank lines.
      const short = await runningJob();
      writeLog(short, 'first\n   \nsecond\n');
      assert.equal((await conclude(short, exited(1))).status_message, 'The task exited with code 1. The end of its log:\nfirst\nsecond');
      // An empty log, only Runyard's lines, or none: the exit code alone.
      const quiet = await runningJob();
      writeLog(quiet, 'Runyard: starting\n\t\n');
      assert.equal((await conclude(quiet, exited(1))).status_message, 'The task exited with code 1.');
      assert.equal((await conclude(await runningJob(), exited(1))).status_message, 'The task exited with code 1.');
      // A Nextflow job's log is the engine's: not quoted.
      const nextflow = await nextflowJob();
      writeLog(nextflow, 'N E X T F L O W\n');
      assert.equal((await conclude(nextflow, exited(1))).status_message, 'The task exited with code 1.');
    });

    it('a lost task, or one that never started, runs again as the next attempt until the last; then the job fails', async () => {
      const lost = await conclude(await runningJob(), { state: 'lost', reason: 'its process vanished' });
      assert.equal(lost.status, 'queued');
      const absent = await conclude(await runningJob({ status: 'initializing' }), { state: 'absent' });
      assert.equal(absent.status, 'queued');
      const lastLost = await runningJob({ attempt: 3 });
      assert.equal(await concludeAttempt(recorded().ctx, ref(lastLost, 3), { state: 'lost', reason: 'its process vanished' }), true);
      assert.equal((await getJob(env, lastLost)).status_message, "The job's task was lost 3 times (last: its process vanished).");
      const lastAbsent = await runningJob({ attempt: 3, status: 'initializing' });
      assert.equal(await concludeAttempt(recorded().ctx, ref(lastAbsent, 3), { state: 'absent' }), true);
      assert.equal((await getJob(env, lastAbsent)).status_message, "The job's task was lost 3 times (last: the task never started).");
      // Straight to its outcome, not through queued.
      assert.deepEqual(
        (await statusHistory(env, lastAbsent)).map((c) => c.to),
        ['failed'],
      );
    });
  });
});
