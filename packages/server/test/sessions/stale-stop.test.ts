import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createExecutors } from '../../src/executors/registry.js';
import { SessionRunner, sessionDirsOf } from '../../src/scheduler/session-runner.js';
import type { SessionRow } from '../../src/scheduler/session-state.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { sessionWorld, type SessionWorld } from './world.js';

/**
 * A runner's pass decides from rows it read at its start; by the time it acts on one, another pass
 * may have stopped that run and the session been resumed. A stop decided from such a stale row
 * must do nothing: before, it saved the (already removed) home over the saved one, which emptied
 * the store, and removed the next run's restored home (seen as a resumed Jupyter session that had
 * lost its files).
 */
describe('a stop decided from a stale row', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  let runner: SessionRunner;
  before(async () => {
    w = await sessionWorld();
    // Never started: its passes would race the test; the stop is called as a pass would call it.
    runner = new SessionRunner({
      db: w.s.store.db,
      config: w.s.config,
      blobs: createBlobStore(w.s.config),
      executor: createExecutors(w.s.config).local!,
    });
  });
  /** The runner's stop of a run, called with the row as a pass would call it. */
  const stopRun = (row: SessionRow) => (runner as unknown as { stopRun(r: SessionRow): Promise<void> }).stopRun(row);
  after(async () => {
    await runner?.stop();
    await w?.close();
  });

  it('leaves the saved home in the store and the next run its home', async () => {
    const created = await w.session();
    const blobs = createBlobStore(w.s.config);
    const first = (await w.row(created._id)) as SessionRow;
    await blobs.ensureBucket(first.home_bucket);
    await blobs.put(first.home_bucket, `${first.home_prefix}/notes.txt`, Readable.from(['saved\n']));
    // The run the stale row describes has ended (saved, aborted) and the session was resumed: its next run is starting.
    await w.s.store.db
      .updateTable('interactive_sessions')
      .set({ status: 'initializing', attempt: first.attempt + 1, last_saved_at: new Date().toISOString(), lease_owner: runner.id })
      .where('id', '=', created._id)
      .execute();
    const stale: SessionRow = { ...first, status: 'aborting', upload_on_close: 1, abort_force: 0, external_id: null };

    // Before the next run restored its home: nothing local to save.
    await stopRun(stale);
    assert.ok(await blobs.stat(first.home_bucket, `${first.home_prefix}/notes.txt`), 'the saved home is still in the store');

    // After it restored its home.
    const home = sessionDirsOf(w.s.config, created._id).home;
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, 'notes.txt'), 'saved\n');
    await stopRun(stale);
    assert.ok(existsSync(path.join(home, 'notes.txt')), "the next run's home is still there");

    const now = await w.row(created._id);
    assert.equal(now.status, 'initializing');
    assert.equal(now.attempt, first.attempt + 1);
  });

  it('of two stops of the same run, only the first acts', async () => {
    const created = await w.session();
    await w.s.store.db
      .updateTable('interactive_sessions')
      .set({ status: 'aborting', upload_on_close: 0, abort_force: 0, run_started_at: new Date().toISOString() })
      .where('id', '=', created._id)
      .execute();
    const row = (await w.row(created._id)) as SessionRow;
    await stopRun(row);
    const stopped = await w.row(created._id);
    assert.equal(stopped.status, 'aborted');
    const home = sessionDirsOf(w.s.config, created._id).home;
    mkdirSync(home, { recursive: true });
    await stopRun(row);
    assert.ok(existsSync(home), 'the second stop, from the same row, removed nothing');
    assert.equal((await w.row(created._id)).updated_at, stopped.updated_at);
  });
});
