import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TaskEnd } from '../../src/executors/executor.js';
import { arrayFailureMessage, readArrayProgress, TaskTimes, withArrayOutcome } from '../../src/scheduler/array-progress.js';

describe('array job progress', () => {
  const controlWith = (names: string[]) => {
    const control = mkdtempSync(path.join(os.tmpdir(), 'runyard-array-progress-'));
    mkdirSync(path.join(control, 'array-2'));
    for (const n of names) writeFileSync(path.join(control, 'array-2', n), '');
    return control;
  };

  it("counts an attempt's tasks from its marker files (env files and other names do not count)", async () => {
    const control = controlWith(['env-0', 'start-0', 'start-1', 'start-2', 'exit-0-0', 'exit-2-3', 'start-x', 'exit-1']);
    const { taskSeconds, ...p } = await readArrayProgress(control, 2, 5);
    assert.deepEqual(p, { total: 5, queued: 2, running: 1, completed: 1, failed: 1, failures: [{ index: 2, exitCode: 3 }] });
    assert.ok(taskSeconds >= 0);
    // Another attempt's directory is not this one's; a missing directory is all queued.
    assert.deepEqual(await readArrayProgress(control, 3, 5), {
      total: 5,
      queued: 5,
      running: 0,
      completed: 0,
      failed: 0,
      failures: [],
      taskSeconds: 0,
    });
  });

  it("sums its tasks' run times from when their markers were made: an ended one to its end, a running one to now", async () => {
    const control = controlWith(['start-0', 'exit-0-0', 'start-1', 'start-2', 'exit-2-1']);
    const dir = path.join(control, 'array-2');
    const t0 = Date.now() / 1000 - 100;
    const at = (name: string, seconds: number) => utimesSync(path.join(dir, name), t0 + seconds, t0 + seconds);
    at('start-0', 0);
    at('exit-0-0', 10);
    at('start-2', 20);
    at('exit-2-1', 25);
    at('start-1', 40);
    // 10 + 5 + (about 60, still running).
    const { taskSeconds } = await readArrayProgress(control, 2, 3);
    assert.ok(taskSeconds >= 74.9 && taskSeconds < 80, String(taskSeconds));
    // A task's times are read once: a watch's later readings count on from them.
    const times = new TaskTimes();
    const first = await readArrayProgress(control, 2, 3, times);
    at('start-0', 5);
    const second = await readArrayProgress(control, 2, 3, times);
    assert.ok(second.taskSeconds >= first.taskSeconds && second.taskSeconds - first.taskSeconds < 5);
  });

  it('names the first five failed tasks in index order, and says when there are more', async () => {
    const names = Array.from({ length: 7 }, (_, i) => [`start-${i}`, `exit-${i}-${i + 1}`]).flat();
    const p = await readArrayProgress(controlWith(names), 2, 9);
    assert.equal(
      arrayFailureMessage(p),
      "7 of 9 tasks failed (task 0: exit code 1, task 1: exit code 2, task 2: exit code 3, task 3: exit code 4, task 4: exit code 5, …); each task's output is in the job's log under its index.",
    );
    // The end of the job's task gets the message only when it failed and no executor message is there.
    const end = (e: TaskEnd) => withArrayOutcome(e, p) as TaskEnd & { message?: string };
    assert.equal(end({ state: 'exited', exitCode: 1 }).message, arrayFailureMessage(p));
    assert.deepEqual(end({ state: 'exited', exitCode: 0 }), { state: 'exited', exitCode: 0 });
    assert.equal(end({ state: 'exited', exitCode: 1, message: 'TIMEOUT' }).message, 'TIMEOUT');
  });
});
