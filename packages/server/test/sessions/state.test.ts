import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SESSION_STATUSES, type SessionStatus } from '@runyard/contract';
import {
  autoShutdownDue,
  canMoveSession,
  costLimitReached,
  endRunSet,
  moveSession,
  SESSION_TRANSITIONS,
  sessionSourcesOf,
  totalCostCents,
} from '../../src/scheduler/session-state.js';
import { sessionWorld, type SessionWorld } from './world.js';

// scheduler/session-state.ts: every legal move of a session's status, each done as one
// conditional UPDATE, so that of two writers racing for the same move exactly one wins.

describe('session status transitions', () => {
  it('terminated is final; every other status can end in it; only a paused session is scheduled again', () => {
    assert.deepEqual(SESSION_TRANSITIONS.terminated, []);
    for (const s of SESSION_STATUSES.filter((x) => x !== 'terminated')) assert.ok(canMoveSession(s, 'terminated'), s);
    assert.deepEqual(sessionSourcesOf('scheduled'), ['aborted']);
    assert.deepEqual(sessionSourcesOf('aborting'), ['initializing', 'setup', 'ready']);
    assert.deepEqual(sessionSourcesOf('ready'), ['setup']);
    assert.ok(!canMoveSession('scheduled', 'ready'), 'a session does not skip its start');
    assert.ok(!canMoveSession('aborted', 'ready'), 'a paused session runs again only through a resume');
    assert.ok(!canMoveSession('scheduled', 'aborting'), 'a session no runner took is aborted at once');
  });

  it('every status of the table is one the wire spells', () => {
    assert.deepEqual(Object.keys(SESSION_TRANSITIONS).sort(), [...SESSION_STATUSES].sort());
    for (const targets of Object.values(SESSION_TRANSITIONS))
      for (const t of targets) assert.ok(SESSION_STATUSES.includes(t as SessionStatus));
  });
});

describe('moveSession on the database', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  before(async () => {
    w = await sessionWorld();
  });
  after(() => w.close());
  const db = () => w.s.store.db;

  it('of many writers racing for the same move, exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const s = await w.session();
      await w.setSessionStatus(s._id, 'ready');
      const wins = await Promise.all(
        Array.from({ length: 8 }, () => moveSession(db(), s._id, undefined, 'aborting', { status_message: 'x' })),
      );
      assert.equal(wins.filter(Boolean).length, 1, `round ${round}: ${wins}`);
      assert.equal((await w.row(s._id)).status, 'aborting');
    }
  });

  it('a pause racing a runner taking the session: either paused at once, or aborting after the take; never lost', async () => {
    for (let round = 0; round < 8; round++) {
      const s = await w.session();
      const [taken, paused] = await Promise.all([moveSession(db(), s._id, ['scheduled'], 'initializing'), w.abort(s._id)]);
      assert.equal(paused.statusCode, 204, paused.body);
      const now = (await w.row(s._id)).status;
      assert.equal(now, taken ? 'aborting' : 'aborted', `round ${round}: taken ${taken}`);
    }
  });

  it('refuses a move the table does not allow, from a status not asked for, and for a run that is not current (or not ours)', async () => {
    const s = await w.session();
    assert.equal(await moveSession(db(), s._id, undefined, 'ready'), false, 'scheduled -> ready');
    assert.equal(await moveSession(db(), s._id, ['setup'], 'ready'), false);
    assert.equal((await w.row(s._id)).status, 'scheduled');
    await db().updateTable('interactive_sessions').set({ attempt: 2, lease_owner: 'runner-a' }).where('id', '=', s._id).execute();
    assert.equal(await moveSession(db(), { id: s._id, attempt: 1 }, ['scheduled'], 'initializing'), false, 'a stale run');
    assert.equal(
      await moveSession(db(), { id: s._id, attempt: 2, owner: 'runner-b' }, ['scheduled'], 'initializing'),
      false,
      'not our lease',
    );
    assert.equal(await moveSession(db(), { id: s._id, attempt: 2, owner: 'runner-a' }, ['scheduled'], 'initializing'), true);
    assert.equal(await moveSession(db(), s._id, ['initializing'], 'scheduled'), false, 'nothing moves back to scheduled but a resume');
    assert.equal((await w.row(s._id)).status, 'initializing');
  });

  it('costs accrue while a run goes; ending the run adds it to the totals, once', async () => {
    const s = await w.session({ execution: { computeCostLimit: 0.3 } });
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await db().updateTable('interactive_sessions').set({ status: 'ready', run_started_at: hourAgo }).where('id', '=', s._id).execute();
    const doc = (await w.getSession(s._id)).json();
    assert.ok(doc.totalRunningTimeInSeconds >= 3600 && doc.totalRunningTimeInSeconds < 3700, String(doc.totalRunningTimeInSeconds));
    assert.ok(doc.totalCostInUsd >= 0.17 && doc.totalCostInUsd < 0.18, String(doc.totalCostInUsd));
    assert.equal(doc.execution.computeCostSpent, doc.totalCostInUsd);
    assert.equal(doc.startedAt, hourAgo);
    const row = await w.row(s._id);
    const now = Date.now();
    assert.equal(costLimitReached(row as never, now), false, '0.17 of 0.30');
    assert.equal(costLimitReached(row as never, now + 3_600_000), true, '0.34 of 0.30 an hour later');
    assert.equal(autoShutdownDue({ auto_shutdown_at: new Date(now - 1).toISOString() }, now), true);
    assert.equal(autoShutdownDue({ auto_shutdown_at: null }, now), false);
    assert.ok(await moveSession(db(), s._id, ['ready'], 'aborting'));
    const ended = endRunSet({ ...row, status: 'aborting' } as never, now);
    const [first, second] = await Promise.all([
      moveSession(db(), s._id, ['aborting'], 'aborted', ended),
      moveSession(db(), s._id, ['aborting'], 'aborted', ended),
    ]);
    assert.equal(Number(first) + Number(second), 1);
    const after = await w.row(s._id);
    assert.equal(after.run_started_at, null);
    assert.ok(after.running_seconds >= 3600 && after.running_seconds < 3700);
    assert.equal(after.cost_cents, totalCostCents(row as never, now));
    const later = (await w.getSession(s._id)).json();
    assert.equal(later.totalCostInUsd, Math.round(after.cost_cents * 100) / 10_000, 'no run: the cost no longer grows');
    assert.equal(later.startedAt, null);
  });
});
