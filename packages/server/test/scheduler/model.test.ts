import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { JobStatus } from '@runyard/contract';
import type { Scheduler } from '../../src/scheduler/scheduler.js';
import { assertLegalHistory, getJob, insertJob, insertWorkflow, setup, waitFor, type Env } from './helpers.js';

/** A small seeded generator (mulberry32): a failing run is replayed with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ACTIONS = ['submit', 'submit', 'abort', 'forceAbort', 'finish', 'fail', 'crash', 'restart', 'killTask', 'pause'] as const;
const seeds = process.env.RUNYARD_TEST_SEED ? [Number(process.env.RUNYARD_TEST_SEED)] : [1, 2, 3, 4, 5];

/**
 * T3, model-based: submissions, aborts (graceful and forced), tasks finishing and failing,
 * scheduler crashes and restarts and killed tasks, in a random order. Whatever happens, every
 * status change is one job-state.ts allows, and every job ends with exactly one recorded outcome.
 */
describe('scheduler: random submit, abort, finish, fail, restart (T3)', { timeout: 300_000 }, () => {
  let env: Env;
  let workflowId: string;
  before(async () => {
    env = await setup({ env: { RUNYARD_SCHEDULER_LEASE_MS: '600', RUNYARD_ABORT_GRACE_MS: '300', RUNYARD_JOB_MAX_ATTEMPTS: '5' } });
    // Each task waits for a "finish" or "fail" file in its control directory (a parameter), then exits 0 or 1.
    workflowId = await insertWorkflow(env, {
      default_command:
        'd="$RUNYARD_PARAM_CTL"; while :; do [ -e "$d/finish" ] && exit 0; [ -e "$d/fail" ] && exit 1; sleep 0.05; done; true',
    });
  });
  after(() => env.close());

  for (const seed of seeds) {
    it(`seed ${seed}`, async () => {
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
      const jobs: { id: string; ctl: string }[] = [];
      let scheduler: Scheduler = env.scheduler();
      scheduler.start();
      const log: string[] = [];
      try {
        for (let step = 0; step < 14; step++) {
          const action = jobs.length ? pick(ACTIONS) : 'submit';
          const job = jobs.length ? pick(jobs) : undefined;
          log.push(`${action}${job ? ` ${job.id}` : ''}`);
          if (action === 'submit') {
            const ctl = path.join(env.scratch, `ctl-${seed}-${step}`);
            mkdirSync(ctl);
            jobs.push({ id: await insertJob(env, workflowId, { parameters: [{ name: 'ctl', textValue: ctl }] }), ctl });
            scheduler.wake();
          } else if ((action === 'abort' || action === 'forceAbort') && job) {
            // As the job service does: not yet started -> aborted; started -> aborting; each a conditional update.
            const { status } = await getJob(env, job.id);
            const to: JobStatus | null = ['queued', 'scheduled'].includes(status)
              ? 'aborted'
              : ['initializing', 'running', 'aborting'].includes(status)
                ? 'aborting'
                : null;
            if (to) {
              await env.store.db
                .updateTable('jobs')
                .set({ status: to, ...(action === 'forceAbort' && { abort_force: 1 }) })
                .where('id', '=', job.id)
                .where('status', '=', status)
                .execute();
            }
            scheduler.wake();
          } else if ((action === 'finish' || action === 'fail') && job) {
            writeFileSync(path.join(job.ctl, action), '');
          } else if (action === 'crash' || action === 'restart') {
            await scheduler.stop({ releaseLeases: action === 'restart' });
            scheduler = env.scheduler();
            scheduler.start();
          } else if (action === 'killTask' && job) {
            const { external_id } = await getJob(env, job.id);
            const pid = external_id ? (JSON.parse(external_id) as { pid: number }).pid : 0;
            try {
              if (pid) process.kill(-pid, 'SIGKILL');
            } catch {
              // already over
            }
          }
          await sleep(Math.floor(next() * 150));
        }
        for (const job of jobs) writeFileSync(path.join(job.ctl, 'finish'), '');
        await waitFor(
          'every job to reach a final status',
          async () => {
            const statuses = await Promise.all(jobs.map(async (j) => (await getJob(env, j.id)).status));
            return statuses.every((s) => ['completed', 'failed', 'aborted'].includes(s));
          },
          30_000,
        );
        await sleep(300);
        for (const job of jobs) {
          const history = await assertLegalHistory(env, job.id);
          const final = await getJob(env, job.id);
          assert.equal(final.status, history.at(-1)!.to, 'the status changed after the outcome');
        }
      } catch (e) {
        throw new Error(`seed ${seed} failed after: ${log.join('; ')}\n${(e as Error).message}`);
      } finally {
        await env.stopSchedulers();
      }
    });
  }
});
