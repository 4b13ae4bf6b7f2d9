import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { newObjectId } from '@runyard/contract';
import type { Executor, ExternalId } from '../../src/executors/executor.js';
import { ACTIVE_STATUSES } from '../../src/scheduler/job-state.js';
import { assertLegalHistory, getJob, insertJob, insertQueue, insertWorkflow, setup, statusHistory, waitFor, type Env } from './helpers.js';
import { usingPostgres } from '../../../../test/support/database.js';

/** The most intervals [start, end) open at one time. */
function maxOverlap(intervals: [number, number][]): number {
  const events = intervals.flatMap(([s, e]) => [
    [s, 1],
    [e, -1],
  ]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (open += d));
  return max;
}

// Generous bounds: T2 alone takes tens of seconds on a loaded machine.
describe('scheduler: queue concurrency', { timeout: 300_000 }, () => {
  let env: Env;
  before(async () => {
    // No scheduler here dies: a lease longer than the tests keeps a slow heartbeat on a loaded
    // machine from handing a live job to the other scheduler, so "claimed once" is all they measure.
    env = await setup({ env: { RUNYARD_SCHEDULER_LEASE_MS: '120000' } });
  });
  after(() => env.close());
  afterEach(() => env.stopSchedulers());

  /**
   * Jobs that record when they start and end (ns clock) in a log of their own. Each waits (up to
   * 20 s) in a rendezvous directory until another job that shares it is running too, then runs for
   * `seconds`: that jobs which may overlap do overlap is then not a matter of how fast a loaded
   * machine launches them, while a scheduler that broke the limit would still show more overlap.
   */
  async function timedJobs(
    queueId: string,
    count: number,
    seconds: number,
    rendezvous = `meet-${queueId}`,
  ): Promise<{ ids: string[]; log: string }> {
    const log = path.join(env.scratch, `times-${queueId}`);
    const meet = path.join(env.scratch, rendezvous);
    mkdirSync(meet, { recursive: true });
    const wf = await insertWorkflow(env, {
      default_command:
        `echo "$RUNYARD_JOB_ID start $(date +%s%N)" >> "$RUNYARD_PARAM_LOG"; touch "$RUNYARD_PARAM_MEET/$RUNYARD_JOB_ID"; ` +
        `i=0; while [ "$(ls "$RUNYARD_PARAM_MEET" | wc -l)" -lt 2 ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done; ` +
        `sleep ${seconds}; rm "$RUNYARD_PARAM_MEET/$RUNYARD_JOB_ID"; echo "$RUNYARD_JOB_ID end $(date +%s%N)" >> "$RUNYARD_PARAM_LOG"; true`,
    });
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      ids.push(
        await insertJob(env, wf, {
          queue_id: queueId,
          parameters: [
            { name: 'log', textValue: log },
            { name: 'meet', textValue: meet },
          ],
        }),
      );
    return { ids, log };
  }

  function intervals(log: string): [number, number][] {
    const times = new Map<string, [number, number]>();
    for (const line of readFileSync(log, 'utf8').trim().split('\n')) {
      const [id, what, ns] = line.split(' ');
      const t = times.get(id) ?? [0, 0];
      t[what === 'start' ? 0 : 1] = Number(BigInt(ns) / 1000n) / 1000;
      times.set(id, t);
    }
    return [...times.values()];
  }

  async function allCompleted(ids: string[], activeSeen: number[], queueId: string): Promise<void> {
    await waitFor(
      'every job to complete',
      async () => {
        const { n } = await env.store.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('queue_id', '=', queueId)
          .where('status', 'in', ACTIVE_STATUSES)
          .executeTakeFirstOrThrow();
        activeSeen.push(Number(n));
        const statuses = await Promise.all(ids.map(async (id) => (await getJob(env, id)).status));
        return statuses.every((s) => s === 'completed');
      },
      120_000,
    );
  }

  it('never more jobs of a queue active than its concurrency', async () => {
    const queueId = newObjectId();
    await insertQueue(env.store, env.workspaceId, queueId, 2);
    const { ids, log } = await timedJobs(queueId, 6, 0.3);
    env.scheduler().start();
    const seen: number[] = [];
    await allCompleted(ids, seen, queueId);
    assert.ok(Math.max(...seen) <= 2, `saw ${Math.max(...seen)} active jobs`);
    assert.equal(maxOverlap(intervals(log)), 2);
    for (const id of ids) await assertLegalHistory(env, id);
  });

  it('two schedulers on one database share the limit', async () => {
    const queueId = newObjectId();
    await insertQueue(env.store, env.workspaceId, queueId, 3);
    const { ids, log } = await timedJobs(queueId, 9, 0.3);
    env.scheduler().start();
    env.scheduler().start();
    const seen: number[] = [];
    await allCompleted(ids, seen, queueId);
    assert.ok(Math.max(...seen) <= 3, `saw ${Math.max(...seen)} active jobs`);
    assert.ok(maxOverlap(intervals(log)) <= 3);
    const owners = new Set<string>();
    for (const id of ids) {
      await assertLegalHistory(env, id);
      owners.add(String((await getJob(env, id)).attempt));
    }
    assert.deepEqual([...owners], ['1']);
  });

  it('queues are limited each on its own', async () => {
    const a = newObjectId();
    const b = newObjectId();
    await insertQueue(env.store, env.workspaceId, a, 1);
    await insertQueue(env.store, env.workspaceId, b, 1);
    // One rendezvous for both queues: a job of each runs at once.
    const ja = await timedJobs(a, 2, 0.4, 'meet-ab');
    const jb = await timedJobs(b, 2, 0.4, 'meet-ab');
    env.scheduler().start();
    const seen: number[] = [];
    await allCompleted([...ja.ids, ...jb.ids], seen, a);
    assert.equal(maxOverlap(intervals(ja.log)), 1);
    assert.equal(maxOverlap(intervals(jb.log)), 1);
    assert.equal(maxOverlap([...intervals(ja.log), ...intervals(jb.log)]), 2);
  });

  // T2 names 1,000 jobs on PostgreSQL; SQLite (one writer, fsync per commit) runs 300.
  const T2_JOBS = usingPostgres() ? 1000 : 300;
  it(`T2: two schedulers, ${T2_JOBS} queued jobs: every job claimed exactly once`, async () => {
    const queueId = newObjectId();
    await insertQueue(env.store, env.workspaceId, queueId, 1000);
    // An executor whose tasks end at once, and an engine with nothing to prepare: only claiming is measured.
    let launches = 0;
    const instant: Executor = {
      backend: 'local',
      launch: async () => ({ backend: 'local', n: ++launches }) as ExternalId,
      inspect: async () => ({ state: 'absent' }),
      wait: async () => ({ state: 'exited', exitCode: 0 }),
      kill: async () => undefined,
    };
    const options = {
      executors: { local: instant },
      engineFor: () => ({ prepare: async () => ({ argv: ['true'], env: {}, cwd: '/', logFile: '/dev/null' }) }),
    };
    const wf = await insertWorkflow(env, { default_command: 'true' });
    const ids: string[] = [];
    for (let i = 0; i < T2_JOBS; i++) ids.push(await insertJob(env, wf, { queue_id: queueId }));
    const s1 = env.scheduler(options);
    const s2 = env.scheduler(options);
    s1.start();
    s2.start();
    await waitFor(
      'every job to complete',
      async () => {
        const { n } = await env.store.db
          .selectFrom('jobs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('queue_id', '=', queueId)
          .where('status', '=', 'completed')
          .executeTakeFirstOrThrow();
        return Number(n) === T2_JOBS;
      },
      240_000,
    );
    assert.equal(launches, T2_JOBS);
    for (const id of ids) {
      const history = await statusHistory(env, id);
      // Claimed once; reported running unless it ended within the running-mark delay.
      assert.match(history.map((c) => c.to).join(' '), /^initializing (running )?completed$/);
    }
  });
});
