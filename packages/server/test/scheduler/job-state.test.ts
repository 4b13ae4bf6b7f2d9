import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JOB_STATUSES, TERMINAL_JOB_STATUSES, type JobStatus } from '@runyard/contract';
import { ACTIVE_STATUSES, canTransition, isTerminal, sourcesOf, TRANSITIONS } from '../../src/scheduler/job-state.js';

/**
 * The job state machine as the design states it (design/reliability-security.md, T3): each legal
 * move, written out here a second time, so that a move added or lost in job-state.ts fails.
 */
const LEGAL: readonly [JobStatus, JobStatus][] = [
  ['queued', 'initializing'],
  ['queued', 'scheduled'],
  ['queued', 'aborted'],
  ['scheduled', 'initializing'],
  ['scheduled', 'queued'],
  ['scheduled', 'failed'],
  ['scheduled', 'aborting'],
  ['scheduled', 'aborted'],
  ['initializing', 'running'],
  ['initializing', 'completed'],
  ['initializing', 'queued'],
  ['initializing', 'failed'],
  ['initializing', 'aborting'],
  ['initializing', 'aborted'],
  ['running', 'completed'],
  ['running', 'failed'],
  ['running', 'aborting'],
  ['running', 'queued'],
  ['aborting', 'aborted'],
  ['aborting', 'completed'],
  ['aborting', 'failed'],
];

describe('the job state machine', () => {
  it('allows exactly the legal moves, and no other between any two statuses', () => {
    for (const from of JOB_STATUSES)
      for (const to of JOB_STATUSES) {
        const legal = LEGAL.some(([a, b]) => a === from && b === to);
        assert.equal(canTransition(from, to), legal, `${from} -> ${to}`);
      }
    assert.equal(canTransition('nonsense' as JobStatus, 'queued'), false);
  });

  it('terminal statuses never change; the active ones are those a scheduler holds a lease for', () => {
    assert.deepEqual(JOB_STATUSES.filter(isTerminal), [...TERMINAL_JOB_STATUSES]);
    for (const s of TERMINAL_JOB_STATUSES) assert.deepEqual(TRANSITIONS[s], []);
    assert.deepEqual([...ACTIVE_STATUSES].sort(), ['aborting', 'initializing', 'running', 'scheduled']);
  });

  it('names the statuses a job may move from to reach each status (the WHERE of a conditional UPDATE)', () => {
    for (const to of JOB_STATUSES)
      assert.deepEqual(
        sourcesOf(to).sort(),
        LEGAL.filter(([, b]) => b === to)
          .map(([a]) => a)
          .sort(),
        to,
      );
  });
});
