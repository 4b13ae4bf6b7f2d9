import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isoNow, newObjectId } from '@runyard/contract';
import { claimJobs } from '../../src/scheduler/claim.js';
import type { SchedulerContext } from '../../src/scheduler/context.js';
import { ACTIVE_STATUSES } from '../../src/scheduler/job-state.js';
import { openStore, type Store } from '../../src/store/database.js';
import { getJob, insertJob, insertQueue, insertWorkflow, setup, stdoutOf, waitForStatus, type Env } from './helpers.js';

/** A claim as a scheduler makes it, for checking what may be claimed at a given moment. */
function claimer(env: Env, store: Store, owner: string): SchedulerContext {
  return { db: store.db, kind: store.kind, config: env.config, owner, executors: { local: {} } } as unknown as SchedulerContext;
}

// The local executor has 2 CPUs here, for every queue and workspace together.
describe('scheduler: jobs start only when their CPUs and memory are free', { timeout: 300_000 }, () => {
  let env: Env;
  let workflowId: string;
  let created = Date.parse('2030-01-01T00:00:00Z');
  before(async () => {
    env = await setup({ env: { RUNYARD_LOCAL_CPUS: '2', RUNYARD_LOCAL_MEMORY_GIB: '64' } });
    // Each job runs until the test creates its go file.
    workflowId = await insertWorkflow(env, { default_command: 'while [ ! -e "$RUNYARD_PARAM_GO" ]; do sleep 0.05; done; true' });
    env.scheduler().start();
  });
  after(() => env.close());

  const go = (id: string) => writeFileSync(path.join(env.scratch, `go-${id}`), '');

  /** A job of `cpus` CPUs and 1 GiB that runs until go(id); created after every job before it. */
  async function job(
    cpus: number,
    values: { queue_id?: string; workspace_id?: string; project_id?: string; resource_cpu?: number } = {},
  ): Promise<string> {
    const id = newObjectId();
    created += 1000;
    await insertJob(env, workflowId, {
      id,
      ...values,
      cpus,
      memory_gib: 1,
      created_at: new Date(created).toISOString(),
      parameters: [{ name: 'go', textValue: path.join(env.scratch, `go-${id}`) }],
    });
    return id;
  }

  async function statuses(ids: string[]): Promise<string[]> {
    return Promise.all(ids.map(async (id) => (await getJob(env, id)).status));
  }

  /** A second workspace, with a project and a queue of its own. */
  async function otherWorkspace(): Promise<{ workspace_id: string; project_id: string; queue_id: string }> {
    const [workspace_id, project_id, queue_id] = [newObjectId(), newObjectId(), newObjectId()];
    const now = isoNow();
    await env.store.db
      .insertInto('workspaces')
      .values({ id: workspace_id, name: `ws-${workspace_id}`, created_at: now })
      .execute();
    await env.store.db
      .insertInto('projects')
      .values({ id: project_id, workspace_id, name: 'p', user_id: env.userId, created_at: now, updated_at: now })
      .execute();
    await insertQueue(env.store, workspace_id, queue_id, 10);
    return { workspace_id, project_id, queue_id };
  }

  it('two 1-CPU jobs run together; a third, and one of another workspace, wait queued until CPUs are free', async () => {
    const other = await otherWorkspace();
    const [a, b, c] = [await job(1), await job(1), await job(1)];
    const d = await job(1, other);
    await waitForStatus(env, a, ['running'], 60_000);
    await waitForStatus(env, b, ['running'], 60_000);
    // Nothing more may be claimed now, by any scheduler, and the other two are still queued.
    assert.deepEqual(await claimJobs(claimer(env, env.store, 'probe')), []);
    assert.deepEqual(await statuses([c, d]), ['queued', 'queued']);

    go(a);
    await waitForStatus(env, a, ['completed'], 60_000);
    // The oldest waiting job takes the freed CPU; the other workspace's job still waits for one.
    await waitForStatus(env, c, ['running'], 60_000);
    assert.equal((await getJob(env, d)).status, 'queued');
    assert.deepEqual(await claimJobs(claimer(env, env.store, 'probe')), []);

    go(b);
    await waitForStatus(env, d, ['running'], 60_000);
    go(c);
    go(d);
    for (const id of [b, c, d]) assert.equal((await waitForStatus(env, id, ['completed', 'failed'], 60_000)).status, 'completed');
  });

  it('jobs larger than the whole capacity (after it was lowered) at the head of a queue do not hold back the jobs behind them', async () => {
    const queue_id = newObjectId();
    await insertQueue(env.store, env.workspaceId, queue_id, 1);
    // More of them than the queue has free slots: the claim reads past them.
    const bigs = [await job(3, { queue_id }), await job(3, { queue_id }), await job(3, { queue_id })];
    const small = await job(1, { queue_id });
    await waitForStatus(env, small, ['running'], 60_000);
    assert.deepEqual(await statuses(bigs), ['queued', 'queued', 'queued']);
    go(small);
    assert.equal((await waitForStatus(env, small, ['completed', 'failed'], 60_000)).status, 'completed');
    // Cleared away, so that they hold nothing back in the tests after this one.
    await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', 'in', bigs).execute();
  });

  it('a job that needs more than is free holds back the jobs behind it until it starts', async () => {
    const first = await job(1);
    await waitForStatus(env, first, ['running'], 60_000);
    const big = await job(2);
    const small = await job(1);
    // One CPU is free: enough for small, but big is older and waits for two.
    assert.deepEqual(await claimJobs(claimer(env, env.store, 'probe')), []);
    assert.deepEqual(await statuses([big, small]), ['queued', 'queued']);
    go(first);
    await waitForStatus(env, big, ['running'], 60_000);
    assert.equal((await getJob(env, small)).status, 'queued');
    go(big);
    await waitForStatus(env, small, ['running'], 60_000);
    go(small);
    for (const id of [big, small]) assert.equal((await waitForStatus(env, id, ['completed', 'failed'], 60_000)).status, 'completed');
  });

  it('a job that asks for more CPUs than the executor has runs with its 2, and its log says so first', async () => {
    // As admission stores it (services/job-admission.ts): asked for 4, holding the executor's 2 (stored so from the
    // start: a running scheduler may claim the job as soon as it is there).
    const id = await job(2, { resource_cpu: 4 });
    go(id);
    const ended = await waitForStatus(env, id, ['completed', 'failed']);
    assert.equal(ended.status, 'completed');
    assert.match(
      stdoutOf(env, id),
      /^Runyard: asked for 4 vCPUs, 1 GiB; this server gives at most 2 vCPUs, 64 GiB \(RUNYARD_LOCAL_CPUS, RUNYARD_LOCAL_MEMORY_GIB\), so it runs with 2 vCPUs, 1 GiB\.$/m,
    );
  });

  it('two schedulers claiming different queues at once never take more than the capacity', async () => {
    await env.stopSchedulers();
    // Two connections (two pools on PostgreSQL), as two servers would have.
    const stores = [openStore(env.databaseUrl), openStore(env.databaseUrl)];
    try {
      const queues = Array.from({ length: 6 }, () => newObjectId());
      for (const q of queues) await insertQueue(env.store, env.workspaceId, q, 10);
      const ids: string[] = [];
      for (const q of queues) for (let i = 0; i < 2; i++) ids.push(await job(1, { queue_id: q }));
      const active = async () =>
        (await env.store.db.selectFrom('jobs').select('id').where('id', 'in', ids).where('status', 'in', ACTIVE_STATUSES).execute()).length;
      for (let round = 0; round < 20; round++) {
        const claimed = await Promise.all(stores.map((s, i) => claimJobs(claimer(env, s, `s${i}-${round}`))));
        // A scheduler that lost a race ends its pass early; the next passes fill what is free, never more.
        assert.ok((await active()) <= 2, `round ${round}: ${await active()} jobs of 1 CPU active on 2 CPUs`);
        assert.equal(claimed.flat().length, await active());
        for (const s of stores) await claimJobs(claimer(env, s, `after-${round}`));
        assert.equal(await active(), 2, `round ${round}`);
        // Hand them back for the next round, as a scheduler that lost its lease before starting would.
        await env.store.db.updateTable('jobs').set({ status: 'queued' }).where('id', 'in', ids).execute();
      }
      await env.store.db.updateTable('jobs').set({ status: 'aborted' }).where('id', 'in', ids).execute();
    } finally {
      for (const s of stores) await s.close();
    }
  });
});
