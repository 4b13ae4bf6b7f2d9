import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { admit, type Candidate } from '../../src/scheduler/admission.js';
import type { Capacity } from '../../src/instance-types/capacity.js';

const capacity = (cpus: number, memoryGiB: number): Capacity => ({
  cpus,
  memoryGiB,
  cpusSetting: 'RUNYARD_LOCAL_CPUS',
  memorySetting: 'RUNYARD_LOCAL_MEMORY_GIB',
});

const job = (id: string, cpus: number, memoryGiB = 1, queueId = 'q1', backend = 'local'): Candidate => ({
  id,
  queueId,
  backend,
  cpus,
  memoryGiB,
});

function run(
  candidates: Candidate[],
  opts: { cpus?: number; memoryGiB?: number; used?: [number, number]; free?: Record<string, number>; limit?: number } = {},
) {
  const queues = new Map(Object.entries(opts.free ?? { q1: 100, q2: 100 }).map(([id, free]) => [id, { free }]));
  const [cpus, memoryGiB] = opts.used ?? [0, 0];
  const backends = new Map([['local', { capacity: capacity(opts.cpus ?? 2, opts.memoryGiB ?? 100), used: { cpus, memoryGiB } }]]);
  return admit(candidates, queues, backends, opts.limit ?? 50).map((c) => c.id);
}

describe('admission order (scheduler/admission.ts)', () => {
  it('admits the oldest jobs while their CPUs and memory are free, across queues', () => {
    assert.deepEqual(run([job('a', 1), job('b', 1, 1, 'q2'), job('c', 1)]), ['a', 'b']);
    assert.deepEqual(run([job('a', 1), job('b', 1)], { used: [1, 0] }), ['a']);
    assert.deepEqual(run([job('a', 1, 3), job('b', 1, 3)], { cpus: 10, memoryGiB: 5 }), ['a']);
    assert.deepEqual(run([job('a', 0.5), job('b', 1.5)]), ['a', 'b'], 'fractions that fill it exactly fit');
  });

  it('a job that does not fit now stops the admissions behind it: a big job is not starved by small ones', () => {
    assert.deepEqual(run([job('small', 1), job('big', 2), job('later', 1)]), ['small']);
    assert.deepEqual(run([job('big', 2), job('later', 1)], { used: [1, 0] }), []);
  });

  it('passes over a full queue, and a job larger than the whole capacity, without blocking others', () => {
    assert.deepEqual(run([job('a', 1), job('b', 1, 1, 'q2')], { free: { q1: 0, q2: 1 } }), ['b']);
    assert.deepEqual(run([job('a', 1), job('b', 1), job('c', 1, 1, 'q2')], { free: { q1: 1, q2: 1 } }), ['a', 'c']);
    assert.deepEqual(run([job('huge', 3), job('a', 1)]), ['a']);
  });

  it('a backend with no capacity is limited by its queues only; the limit holds', () => {
    const other = [job('x', 64, 1, 'q1', 'other'), job('y', 64, 1, 'q1', 'other')];
    assert.deepEqual(run(other), ['x', 'y']);
    assert.deepEqual(run([job('a', 0), job('b', 0), job('c', 0)], { limit: 2 }), ['a', 'b']);
  });
});
