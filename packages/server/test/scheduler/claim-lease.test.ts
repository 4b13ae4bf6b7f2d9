import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, before, describe, it } from 'node:test';
import { newObjectId } from '@runyard/contract';
import { sql, type Insertable, type KyselyPlugin } from 'kysely';
import { claimJobs, type ClaimedJob } from '../../src/scheduler/claim.js';
import type { SchedulerContext } from '../../src/scheduler/context.js';
import { expiredJobs, releaseLeases, renewLeases, takeOver } from '../../src/scheduler/lease.js';
import { openStore, type Store } from '../../src/store/database.js';
import type { JobTable } from '../../src/store/schema.js';
import { usingPostgres } from '../../../../test/support/database.js';
import { getJob, insertJob, insertQueue, insertWorkflow, schedulerContext, setup, type Env } from './helpers.js';

/**
 * The claim of queued jobs (claim.ts) and the leases of the jobs a scheduler runs (lease.ts), called
 * directly, as a scheduler's pass calls them, on the UPDATEs' guards: which jobs a pass may take,
 * and what it may no longer take once another scheduler or an abort came first. claim.ts has one
 * way per database: SQLite always, PostgreSQL too with RUNYARD_TEST_DATABASE_URL.
 */
const databases = usingPostgres() ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

for (const database of databases)
  describe(`claim and leases (${database})`, { timeout: 120_000 }, () => {
    let env: Env;
    let workflowId: string;
    let clock = Date.parse('2030-01-01T00:00:00Z');
    const others: Store[] = [];
    before(async () => {
      // The local executor: 4 CPUs and 16 GiB, for all its queues together.
      env = await setup({ sqlite: database === 'sqlite', env: { RUNYARD_LOCAL_CPUS: '4', RUNYARD_LOCAL_MEMORY_GIB: '16' } });
      workflowId = await insertWorkflow(env);
    });
    // Each test starts with no job waiting or active.
    afterEach(() =>
      env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('status', 'not in', ['completed', 'failed']).execute(),
    );
    after(async () => {
      for (const s of others) await s.close();
      await env.close();
    });

    const ctx = (owner: string, more: Partial<SchedulerContext> = {}) => schedulerContext(env, owner, more);

    /** A job of 1 CPU and 1 GiB in the default queue, created after every job before it; queued unless values say otherwise. */
    async function job(values: Partial<Insertable<JobTable>> = {}): Promise<string> {
      clock += 1000;
      return insertJob(env, workflowId, { created_at: new Date(clock).toISOString(), cpus: 1, memory_gib: 1, ...values });
    }

    async function queue(concurrency: number, backend = 'local'): Promise<string> {
      const id = newObjectId();
      await insertQueue(env.store, env.workspaceId, id, concurrency, backend);
      return id;
    }

    const byId = (jobs: ClaimedJob[]) => [...jobs].sort((a, b) => (a.id < b.id ? -1 : 1));
    const claimed = (id: string, attempt = 1, backend = 'local'): ClaimedJob => ({ id, workspace_id: env.workspaceId, attempt, backend });
    const statusOf = async (id: string) => (await getJob(env, id)).status;
    const leaseFor = (from: number) => new Date(from + env.config.schedulerLeaseMs).toISOString();

    /** Asserts that the ISO time lies between two instants (ms), both included. */
    function assertWithin(iso: string | null, from: number, to: number, what: string) {
      assert.ok(iso, `${what} is set`);
      const t = Date.parse(iso);
      assert.ok(t >= from && t <= to, `${what} ${iso} not within ${new Date(from).toISOString()}..${new Date(to).toISOString()}`);
    }

    /**
     * A claim whose pass, once it has chosen its jobs (read the oldest queued ones), first lets
     * `meanwhile` run: what another scheduler, or an abort, did between the plan and the claim.
     */
    function racedContext(owner: string, meanwhile: () => Promise<void>): SchedulerContext {
      let done = false;
      const plugin: KyselyPlugin = {
        transformQuery: (args) => args.node,
        async transformResult(args) {
          const row = args.result.rows[0];
          if (!done && row && 'memory_gib' in row && 'created_at' in row) {
            done = true;
            await meanwhile();
          }
          return args.result;
        },
      };
      // A connection of its own, as another scheduler's, so that `meanwhile` may use the test's.
      const store = openStore(env.databaseUrl);
      others.push(store);
      return ctx(owner, { db: store.db.withPlugin(plugin) });
    }

    /**
     * Another scheduler's claim, started during a raced claim's pass: on SQLite it runs to its end
     * (the raced claim has not written yet); on PostgreSQL it waits for the raced claim's pass, whose
     * lock it needs, so it is left waiting on it. It claims one job at most (the oldest). Answers the
     * other claim, to await after.
     */
    async function otherClaim(): Promise<{ claim: Promise<ClaimedJob[]> }> {
      if (database === 'sqlite') return { claim: Promise.resolve(await claimJobs(ctx('other'), 1)) };
      const name = `other-${newObjectId()}`;
      const url = new URL(env.databaseUrl);
      url.searchParams.set('application_name', name);
      const store = openStore(url.toString());
      others.push(store);
      let ended = false;
      const claim = claimJobs(ctx('other', { db: store.db, kind: store.kind }), 1).finally(() => (ended = true));
      for (let waited = 0; !ended; waited += 20) {
        const { rows } = await sql<{ n: number }>`select count(*) as n from pg_stat_activity
          where application_name = ${name} and wait_event_type = 'Lock'`.execute(env.store.db);
        if (Number(rows[0].n) > 0) break;
        assert.ok(waited < 10_000, 'the other claim neither ended nor waited for a lock');
        await sleep(20);
      }
      return { claim };
    }

    describe('claimJobs', () => {
      it('claims the oldest queued jobs first, up to its limit: each initializing, as its next attempt, under a lease of this scheduler', async () => {
        const newest = await job();
        // Older, though inserted later; one of them ran before (its task was lost, it was queued again).
        clock -= 10_000;
        const oldest = await job();
        const requeued = await job({ attempt: 2 });
        const from = Date.now();
        assert.deepEqual(byId(await claimJobs(ctx('s1'), 2)), byId([claimed(oldest), claimed(requeued, 3)]));
        const to = Date.now();
        for (const id of [oldest, requeued]) {
          const row = await getJob(env, id);
          assert.equal(row.status, 'initializing');
          assert.equal(row.lease_owner, 's1');
          assertWithin(row.lease_expires_at, Date.parse(leaseFor(from)), Date.parse(leaseFor(to)), 'the lease');
          assertWithin(row.updated_at, from, to, 'updated_at');
        }
        const left = await getJob(env, newest);
        assert.deepEqual([left.status, left.attempt, left.lease_owner, left.lease_expires_at], ['queued', 0, null, null]);
        // The next pass (its default limit) takes the rest; then nothing is left to claim.
        assert.deepEqual(await claimJobs(ctx('s2')), [claimed(newest)]);
        assert.equal((await getJob(env, newest)).lease_owner, 's2');
        assert.deepEqual(await claimJobs(ctx('s2')), []);
      });

      it('takes the oldest across queues, and jobs created at the same time in the order of their ids', async () => {
        const other = await queue(10);
        const ids = Array.from({ length: 6 }, () => newObjectId()).sort();
        const base = clock;
        const at = (n: number) => new Date(base + n * 1000).toISOString();
        // Inserted newest and highest id first: the order of the rows is not the order of the claim. Of no size, all fit.
        const sized = { cpus: 0, memory_gib: 0 };
        await job({ id: ids[5], created_at: at(3), ...sized });
        await job({ id: ids[4], created_at: at(2), ...sized });
        await job({ id: ids[3], created_at: at(2), ...sized });
        await job({ id: ids[2], created_at: at(2), queue_id: other, ...sized });
        await job({ id: ids[1], created_at: at(1), queue_id: other, ...sized });
        await job({ id: ids[0], created_at: at(2), ...sized });
        clock += 10_000;
        assert.deepEqual(await claimJobs(ctx('s1'), 1), [claimed(ids[1])]);
        assert.deepEqual(await claimJobs(ctx('s1'), 1), [claimed(ids[0])]);
        assert.deepEqual(await claimJobs(ctx('s1'), 1), [claimed(ids[2])]);
        assert.deepEqual(byId(await claimJobs(ctx('s1'), 2)), [claimed(ids[3]), claimed(ids[4])]);
        assert.equal(await statusOf(ids[5]), 'queued');
      });

      it("gives a queue no more jobs than its concurrency leaves free, counting the queue's active jobs", async () => {
        const q = await queue(3);
        await job({ queue_id: q, status: 'running', attempt: 1, lease_owner: 'x' });
        await job({ queue_id: q, status: 'completed' });
        await job({ queue_id: q, status: 'aborted' });
        const [a, b, c] = [await job({ queue_id: q }), await job({ queue_id: q }), await job({ queue_id: q })];
        // Another queue's slots are its own.
        const d = await job();
        assert.deepEqual(byId(await claimJobs(ctx('s1'))), byId([claimed(a), claimed(b), claimed(d)]));
        assert.deepEqual(await claimJobs(ctx('s1')), []);
        assert.equal(await statusOf(c), 'queued');
        // A queue with no free slot at all.
        const full = await queue(0);
        const e = await job({ queue_id: full });
        assert.deepEqual(await claimJobs(ctx('s1')), []);
        assert.equal(await statusOf(e), 'queued');
      });

      it('claims only for the backends it runs; a backend without a capacity of its own does not size its jobs', async () => {
        const slurm = await queue(5, 'slurm');
        const huge = await job({ queue_id: slurm, cpus: 1000, memory_gib: 5000 });
        // Active jobs of another backend hold none of the local executor's CPUs.
        await job({ queue_id: slurm, status: 'running', attempt: 1, lease_owner: 'x', cpus: 4, memory_gib: 16 });
        const local = await job();
        assert.deepEqual(await claimJobs(ctx('s1')), [claimed(local)]);
        assert.equal(await statusOf(huge), 'queued');
        assert.deepEqual(await claimJobs(ctx('s1', { executors: executors('local', 'slurm') })), [claimed(huge, 1, 'slurm')]);
      });

      it('starts a job only when its CPUs and memory are free on its backend (an exact fit starts); an older one that does not fit holds back the rest', async () => {
        const other = await queue(10);
        const running = await job({ queue_id: other, status: 'running', attempt: 1, lease_owner: 'x', cpus: 2, memory_gib: 1 });
        await job({ queue_id: other, status: 'aborting', attempt: 1, lease_owner: 'x', cpus: 1, memory_gib: 1 });
        const two = await job({ cpus: 2 });
        const one = await job({ cpus: 1 });
        // 3 of 4 CPUs held (by jobs of another queue): the older job of 2 waits, and the one of 1 behind it too.
        assert.deepEqual(await claimJobs(ctx('s1')), []);
        await env.store.db.updateTable('jobs').set({ status: 'completed' }).where('id', '=', running).execute();
        // 1 held: 2 + 1 more fit exactly.
        assert.deepEqual(byId(await claimJobs(ctx('s1'))), byId([claimed(two), claimed(one)]));
        await env.store.db.updateTable('jobs').set({ status: 'completed' }).where('id', 'in', [two, one]).execute();
        // Memory: 1 + 14 of 16 GiB held; 1 more fits exactly, 2 do not.
        await job({ queue_id: other, status: 'running', attempt: 1, lease_owner: 'x', cpus: 0, memory_gib: 14 });
        const big = await job({ cpus: 0, memory_gib: 2 });
        assert.deepEqual(await claimJobs(ctx('s1')), []);
        await env.store.db.updateTable('jobs').set({ memory_gib: 1 }).where('id', '=', big).execute();
        assert.deepEqual(await claimJobs(ctx('s1')), [claimed(big)]);
      });

      it('passes over jobs larger than the whole capacity, more of them than the queue has free slots', async () => {
        const q = await queue(1);
        const bigs = [await job({ queue_id: q, cpus: 8 }), await job({ queue_id: q, memory_gib: 32 }), await job({ queue_id: q, cpus: 5 })];
        const small = await job({ queue_id: q });
        assert.deepEqual(await claimJobs(ctx('s1')), [claimed(small)]);
        for (const id of bigs) assert.equal(await statusOf(id), 'queued');
      });

      it('reads of a queue its oldest jobs up to its free slots and 10 more, and of all at most twice its limit: the rest wait for a later pass', async () => {
        // 1 free slot: the 11 oldest jobs are read, here all too large to start, and the small one after them is not.
        const q = await queue(1);
        const bigs = [];
        for (let i = 0; i < 11; i++) bigs.push(await job({ queue_id: q, cpus: 8 }));
        const small = await job({ queue_id: q });
        assert.deepEqual(await claimJobs(ctx('s1')), []);
        await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', '=', bigs[0]).execute();
        assert.deepEqual(await claimJobs(ctx('s1')), [claimed(small)]);
        await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', 'in', bigs).execute();
        // A pass of 1 reads 2 jobs, the oldest of all its queues: two too large here, and another queue's small job waits.
        const other = await queue(10);
        const [big1, big2] = [await job({ queue_id: other, cpus: 8 }), await job({ queue_id: other, cpus: 8 })];
        const next = await job();
        assert.deepEqual(await claimJobs(ctx('s1'), 1), []);
        await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', '=', big1).execute();
        assert.deepEqual(await claimJobs(ctx('s1'), 1), [claimed(next)]);
        assert.equal(await statusOf(big2), 'queued');
      });

      it("a full queue's jobs take no place among a pass's candidates", async () => {
        const full = await queue(1);
        await job({ queue_id: full, status: 'running', attempt: 1, lease_owner: 'x' });
        const waiting = [await job({ queue_id: full }), await job({ queue_id: full })];
        const free = await job();
        assert.deepEqual(await claimJobs(ctx('s1'), 1), [claimed(free)]);
        for (const id of waiting) assert.equal(await statusOf(id), 'queued');
      });

      it('schedulers of different backends in one process each claim for their own', async () => {
        // Backends whose names, run together, read the same: a and bc, ab and c.
        assert.deepEqual(await claimJobs(ctx('s1', { executors: executors('a', 'bc') })), []);
        const id = await job({ queue_id: await queue(1, 'a') });
        assert.deepEqual(await claimJobs(ctx('s2', { executors: executors('ab', 'c') })), []);
        assert.deepEqual(await claimJobs(ctx('s1', { executors: executors('a', 'bc') })), [claimed(id, 1, 'a')]);
      });

      it('leaves a job alone that was aborted after the pass chose it (the claim requires it still queued)', async () => {
        const [a, b] = [await job(), await job()];
        const raced = racedContext('s1', async () => {
          await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', '=', a).execute();
        });
        const got = await claimJobs(raced);
        const row = await getJob(env, a);
        assert.deepEqual([row.status, row.attempt, row.lease_owner], ['aborted', 0, null]);
        // SQLite: the first refused claim ends the pass (the next one plans again); PostgreSQL claims the others it chose.
        assert.deepEqual(got, database === 'sqlite' ? [] : [claimed(b)]);
        assert.deepEqual(await claimJobs(ctx('s1')), database === 'sqlite' ? [claimed(b)] : []);
      });

      /**
       * A claim during whose pass (after its plan) a job older than every other, of `values`, is
       * submitted and another scheduler claims it (otherClaim). Answers both claims and that job.
       */
      async function claimRacedByOlder(values: Partial<Insertable<JobTable>>) {
        let theirs: Promise<ClaimedJob[]> = Promise.resolve([]);
        let older = '';
        const got = await claimJobs(
          racedContext('s1', async () => {
            clock -= 60_000;
            older = await job(values);
            clock += 120_000;
            theirs = (await otherClaim()).claim;
          }),
        );
        return { got, theirs: await theirs, older };
      }

      /**
       * Of two claims that cannot both have their job, the first to commit wins: on SQLite the other
       * scheduler's, and the raced claim finds its job no longer fits; on PostgreSQL the raced one,
       * which the other waited for.
       */
      async function assertOneWins(race: { got: ClaimedJob[]; theirs: ClaimedJob[]; older: string }, mine: string) {
        const [winner, loser] = database === 'sqlite' ? [race.older, mine] : [mine, race.older];
        assert.deepEqual([race.got, race.theirs], database === 'sqlite' ? [[], [claimed(winner)]] : [[claimed(winner)], []]);
        assert.equal(await statusOf(loser), 'queued');
      }

      it("never gives a queue more than its concurrency when another scheduler claims between this pass's plan and its claim", async () => {
        const q = await queue(1);
        const mine = await job({ queue_id: q });
        await assertOneWins(await claimRacedByOlder({ queue_id: q }), mine);
      });

      for (const [resource, size] of [
        ['CPUs', { cpus: 2, memory_gib: 1 }],
        ['memory', { cpus: 1, memory_gib: 8 }],
      ] as const)
        it(`never gives the backend more ${resource} than it has when another scheduler claims between this pass's plan and its claim; an exact fit is claimed`, async () => {
          const other = await queue(10);
          // Exactly half of the resource, and `extra` more.
          const half = (extra: number) => ({
            queue_id: other,
            ...(resource === 'CPUs' ? { cpus: size.cpus + extra } : { memory_gib: size.memory_gib + extra }),
          });
          // The other takes one more than half: the two together would not fit.
          const mine = await job(size);
          await assertOneWins(await claimRacedByOlder(half(1)), mine);
          await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('status', 'not in', ['completed', 'failed']).execute();
          // The other takes exactly half: both fit.
          const again = await job(size);
          const both = await claimRacedByOlder(half(0));
          assert.deepEqual([both.got, both.theirs], [[claimed(again)], [claimed(both.older)]]);
        });
    });

    describe('leases', () => {
      /** A job this scheduler (or `owner`) holds, in `status`, its lease ending at `expires`. */
      const held = (status: string, expires: string | null, owner = 'me', queue_id?: string | null) =>
        job({ status, attempt: 1, lease_owner: owner, lease_expires_at: expires, ...(queue_id !== undefined && { queue_id }) });
      const past = (ms: number) => new Date(Date.now() - ms).toISOString();
      const future = (ms: number) => new Date(Date.now() + ms).toISOString();
      const leaseOf = async (id: string) => (await getJob(env, id)).lease_expires_at;

      it('renewLeases extends the lease of the listed active jobs this scheduler holds, and of no other job', async () => {
        const soon = future(100);
        const mine = [
          await held('running', soon),
          await held('initializing', soon),
          await held('aborting', soon),
          await held('scheduled', soon),
        ];
        const settled = await held('completed', soon);
        const foreign = await held('running', soon, 'other');
        const unlisted = await held('running', soon);
        const from = Date.now();
        // Any number of jobs: more than a statement may have parameters (SQLite 32,766, PostgreSQL 65,535), in UPDATEs of 500.
        const filler = Array.from({ length: 70_000 - 2 }, () => newObjectId());
        await renewLeases(ctx('me'), [mine[0], ...filler.slice(0, 498), mine[1], mine[2], ...filler.slice(498), mine[3], settled, foreign]);
        const to = Date.now();
        for (const id of mine) assertWithin(await leaseOf(id), Date.parse(leaseFor(from)), Date.parse(leaseFor(to)), 'a renewed lease');
        for (const id of [settled, foreign, unlisted]) assert.equal(await leaseOf(id), soon);
        await renewLeases(ctx('me'), []);
      });

      it('releaseLeases ends now the leases of the active jobs this scheduler holds, which are then expired', async () => {
        const later = future(60_000);
        const mine = [await held('running', later), await held('aborting', later)];
        const settled = await held('failed', later);
        const foreign = await held('running', later, 'other');
        const from = Date.now();
        await releaseLeases(ctx('me'));
        const to = Date.now();
        for (const id of mine) assertWithin(await leaseOf(id), from, to, 'a released lease');
        for (const id of [settled, foreign]) assert.equal(await leaseOf(id), later);
        await sleep(5);
        assert.deepEqual((await expiredJobs(ctx('other'))).map((j) => j.id).sort(), [...mine].sort());
      });

      it('expiredJobs lists the active jobs whose lease ran out or that have none, longest expired first, with their queue backend', async () => {
        const slurm = await queue(5, 'slurm');
        const expired = [
          await held('running', past(1000)),
          await held('aborting', past(3000), 'other', slurm),
          await held('initializing', past(2000), 'me', null),
        ];
        const none = await held('scheduled', null);
        await held('running', future(60_000));
        await held('completed', past(5000));
        await held('queued', past(5000));
        const list = await expiredJobs(ctx('me'));
        assert.deepEqual(list.map((j) => j.id).sort(), [...expired, none].sort());
        // (Where a job without a lease goes differs: first on SQLite, last on PostgreSQL.)
        const timed = list.filter((j) => j.lease_expires_at !== null);
        assert.deepEqual(
          timed.map((j) => j.id),
          [expired[1], expired[2], expired[0]],
        );
        const row = (id: string) => list.find((j) => j.id === id)!;
        assert.equal(row(expired[0]).queue_backend, 'local');
        assert.equal(row(expired[1]).queue_backend, 'slurm');
        assert.equal(row(expired[2]).queue_backend, null);
        assert.deepEqual([row(expired[1]).status, row(expired[1]).attempt, row(expired[1]).lease_owner], ['aborting', 1, 'other']);
        // At most `limit`, the longest expired first.
        await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', '=', none).execute();
        assert.deepEqual(
          (await expiredJobs(ctx('me'), 2)).map((j) => j.id),
          [expired[1], expired[2]],
        );
      });

      it('takeOver takes an expired job under a new lease, once: not a job whose lease is live, nor one whose attempt or status changed since it was read', async () => {
        const [a, b] = [await held('running', past(1000), 'dead'), await held('aborting', null, 'dead')];
        const read = await expiredJobs(ctx('me'));
        const rowOf = (id: string) => read.find((j) => j.id === id)!;
        const from = Date.now();
        assert.equal(await takeOver(ctx('me'), rowOf(a)), true);
        const to = Date.now();
        const taken = await getJob(env, a);
        assert.deepEqual([taken.lease_owner, taken.status, taken.attempt], ['me', 'running', 1]);
        assertWithin(taken.lease_expires_at, Date.parse(leaseFor(from)), Date.parse(leaseFor(to)), 'the new lease');
        assertWithin(taken.updated_at, from, to, 'updated_at');
        // Of two schedulers that read it expired, the second finds its lease live.
        assert.equal(await takeOver(ctx('you'), rowOf(a)), false);
        assert.equal((await getJob(env, a)).lease_owner, 'me');
        // No lease at all: taken too, unless it moved on since it was read.
        const c = await held('running', past(1000), 'dead');
        const d = await held('running', past(1000), 'dead');
        const readAgain = await expiredJobs(ctx('me'));
        await env.store.db.updateTable('jobs').set({ attempt: 2 }).where('id', '=', c).execute();
        await env.store.db.updateTable('jobs').set({ status: 'aborting' }).where('id', '=', d).execute();
        for (const id of [c, d]) {
          assert.equal(
            await takeOver(
              ctx('me'),
              readAgain.find((j) => j.id === id)!,
            ),
            false,
            id,
          );
          assert.equal((await getJob(env, id)).lease_owner, 'dead');
        }
        assert.equal(await takeOver(ctx('me'), rowOf(b)), true);
        assert.equal((await getJob(env, b)).lease_owner, 'me');
      });
    });
  });

/** Executors of the given backends, as a scheduler that runs them has them (the claim reads their names). */
function executors(...backends: string[]): SchedulerContext['executors'] {
  return Object.fromEntries(backends.map((b) => [b, {}])) as unknown as SchedulerContext['executors'];
}
