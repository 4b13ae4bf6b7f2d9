import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../wire.js';
import { sessionWorld, shutdownIn, type SessionWorld } from './world.js';

// Pause (PUT .../abort, 204) and resume (PUT .../resume) of interactive sessions, and the
// messages the public client reads in their refusals (wire-api §1.6, §2.11). The runner that
// starts and stops sessions is not part of these tests: a session's status is set as it would set it.

describe('interactive session pause and resume', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  before(async () => {
    w = await sessionWorld();
  });
  after(() => w.close());

  const status = async (id: string) => (await w.getSession(id)).json().status as string;

  it('a scheduled session is paused at once: 204 with no body, aborted, the pause recorded', async () => {
    const s = await w.session();
    const r = await w.abort(s._id);
    assert.equal(r.statusCode, 204, r.body);
    assert.equal(r.body, '');
    const doc = (await w.getSession(s._id)).json();
    assert.equal(doc.status, 'aborted');
    assert.equal(doc.stopReason, 'user');
    assert.equal(doc.statusMessage, 'Paused before it started.');
    const row = await w.row(s._id);
    assert.deepEqual([row.upload_on_close, row.abort_force], [1, 0]);
  });

  it('a started session goes to aborting with what the pause asked for; forceAbort wins over uploadOnClose', async () => {
    for (const [from, body, upload, force] of [
      ['initializing', { uploadOnClose: true, forceAbort: false }, 1, 0],
      ['setup', { uploadOnClose: false, forceAbort: false }, 0, 0],
      ['ready', { uploadOnClose: true, forceAbort: true }, 0, 1],
    ] as const) {
      const s = await w.session();
      await w.setSessionStatus(s._id, from);
      const r = await w.abort(s._id, body);
      assert.equal(r.statusCode, 204, r.body);
      assert.equal(await status(s._id), 'aborting', from);
      const row = await w.row(s._id);
      assert.deepEqual([row.upload_on_close, row.abort_force, row.stop_reason], [upload, force, 'user'], from);
    }
  });

  it('the defaults of the public client: uploadOnClose true, forceAbort false when the body leaves them out', async () => {
    const s = await w.session();
    await w.setSessionStatus(s._id, 'ready');
    assert.equal((await w.abort(s._id, {})).statusCode, 204);
    const row = await w.row(s._id);
    assert.deepEqual([row.status, row.upload_on_close, row.abort_force], ['aborting', 1, 0]);
  });

  it('pausing a session that is not starting or running: 409, in the words the client looks for; nothing changes', async () => {
    const s = await w.session();
    for (const st of ['aborting', 'aborted', 'terminated']) {
      await w.setSessionStatus(s._id, st);
      const before = await w.row(s._id);
      const message = assertError(await w.abort(s._id), 409, 'SESSION_STATE_CONFLICT');
      assert.match(message, new RegExp(`aborted in ${st} status`));
      assert.deepEqual(await w.row(s._id), before);
    }
  });

  it('resume: a paused session becomes scheduled for its next run, with the new configuration and items', async () => {
    const s = await w.session({ execution: { computeCostLimit: 5, autoShutdownAtDate: shutdownIn(2) } });
    assert.equal((await w.abort(s._id)).statusCode, 204);
    await w.s.store.db
      .updateTable('interactive_sessions')
      .set({ status_message: 'Paused.', external_id: '{"backend":"local","pid":1}' })
      .where('id', '=', s._id)
      .execute();
    const job = await w.job({ name: 'to-link' });
    const shutdown = shutdownIn(48);
    const r = await w.resume(s._id, {
      dataItems: [],
      fileSystemIds: [],
      newInteractiveSessionConfiguration: {
        instanceType: 'm5.2xlarge',
        storageSizeInGb: 1000,
        execution: { computeCostLimit: 20, autoShutdownAtDate: shutdown },
      },
      fuseFileSystems: [{ kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'results' }],
    });
    assert.equal(r.statusCode, 200, r.body);
    const doc = r.json();
    assert.equal(doc.status, 'scheduled');
    assert.equal(doc.interactiveSessionConfiguration.instanceType, 'm5.2xlarge');
    assert.equal(doc.interactiveSessionConfiguration.storageSizeInGb, 1000);
    const expected = new Date(Date.parse(shutdown)).toISOString();
    assert.deepEqual(doc.interactiveSessionConfiguration.execution, { computeCostLimit: 20, autoShutdownAtDate: expected });
    assert.deepEqual(doc.resources, { instanceType: 'm5.2xlarge', isCostSaving: false, storageSizeInGb: 1000, vcpus: 8, memoryGiB: 32 });
    assert.equal(doc.costPerHour, 0.384);
    assert.deepEqual(doc.fuseFileSystems, [{ kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'results' }]);
    assert.deepEqual([doc.statusMessage, doc.stopReason], [null, null]);
    const row = await w.row(s._id);
    assert.deepEqual([row.attempt, row.external_id, row.upload_on_close, row.abort_force], [1, null, 1, 0]);
    assert.equal(row.price_per_hour_cents, 38.4);
  });

  it('resume without changes keeps the configuration; the items are added to those the session has', async () => {
    const job = await w.job({ name: 'first' });
    const first = { kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'first' };
    const s = await w.session({}, undefined, { fuseFileSystems: [first] });
    await w.setSessionStatus(s._id, 'aborted');
    const second = { kind: 'Folder', item: job.doc.analysisResults.folderId, name: 'second' };
    const r = await w.resume(s._id, { dataItems: [], fileSystemIds: [], fuseFileSystems: [second] });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().interactiveSessionConfiguration, s.interactiveSessionConfiguration);
    assert.deepEqual(r.json().fuseFileSystems, [first, second]);
    // A name the session already has is refused, and the session stays paused.
    await w.setSessionStatus(s._id, 'aborted');
    const again = await w.resume(s._id, { fuseFileSystems: [first] });
    assert.match(assertError(again, 400, 'VALIDATION_FAILED'), /Two items would be mounted with the name "first"/);
    assert.equal(await status(s._id), 'aborted');
  });

  it('resuming a session that is not paused: 409 "not in a resumable status" (never "not found"); nothing changes', async () => {
    const s = await w.session();
    for (const st of ['scheduled', 'initializing', 'setup', 'ready', 'aborting', 'terminated']) {
      await w.setSessionStatus(s._id, st);
      const before = await w.row(s._id);
      const message = assertError(await w.resume(s._id), 409, 'SESSION_STATE_CONFLICT');
      assert.match(message, /not in a resumable status/);
      // Without the session's id, a random hex string that may hold '404' (as mounts.test.ts does with the workspace's).
      assert.doesNotMatch(message.replaceAll(s._id, '<session>'), /not found|404/i);
      if (st === 'ready') assert.match(message, /already running/);
      assert.deepEqual(await w.row(s._id), before);
    }
  });

  it('a resume with a bad new configuration is refused (400) and the session stays paused as it was', async () => {
    const s = await w.session();
    await w.setSessionStatus(s._id, 'aborted');
    const before = await w.row(s._id);
    const bad = [
      [{ instanceType: 'q1.none' }, /Instance type "q1.none" is not one this server offers/],
      [{ execution: { computeCostLimit: -3 } }, /computeCostLimit must be -1/],
      [{ execution: { autoShutdownAtDate: shutdownIn(-2) } }, /is in the past/],
      [{ storageSizeInGb: 99 }, /storageSizeInGb/],
    ] as const;
    for (const [change, message] of bad) {
      const r = await w.resume(s._id, { newInteractiveSessionConfiguration: change });
      assert.match(assertError(r, 400, 'VALIDATION_FAILED'), message);
      assert.deepEqual(await w.row(s._id), before);
    }
    const missing = await w.resume(s._id, { dataItems: [{ kind: 'File', item: 'c'.repeat(24) }] });
    assertError(missing, 404, 'FILE_NOT_FOUND');
    assert.deepEqual(await w.row(s._id), before);
  });

  it('a session id that does not exist: 404 SESSION_NOT_FOUND on get, pause and resume, its message naming the session', async () => {
    const id = 'd'.repeat(24);
    for (const r of [await w.getSession(id), await w.abort(id), await w.resume(id)]) {
      assert.match(assertError(r, 404, 'SESSION_NOT_FOUND'), /Interactive session with ID 'd{24}' not found/);
    }
    assertError(await w.getSession('not-an-id'), 400, 'VALIDATION_FAILED');
  });
});
