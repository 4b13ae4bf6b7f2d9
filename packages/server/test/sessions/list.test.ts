import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { addMember } from '../reliability/members.js';
import { assertError } from '../wire.js';
import { sessionWorld, type SessionWorld } from './world.js';

// GET /api/v3/interactive-sessions (wire-api §2.11 "List"): the public client's params dict
// (page, limit up to 100, status[] repeated, onlyOwnerSessions, archived.status) and the reply
// {sessions, paginationMetadata: {Pagination-Count, Pagination-Page, Pagination-Limit}}.

describe('interactive session list', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  let ann: Tenant;
  const ids: Record<string, string> = {};
  before(async () => {
    w = await sessionWorld();
    ann = await addMember(w.s, w.ws, 'ann', 'member');
    // Made oldest first: the list shows the newest first.
    for (const [name, status] of [
      ['one', 'scheduled'],
      ['two', 'ready'],
      ['three', 'aborted'],
      ['four', 'setup'],
      ['five', 'initializing'],
    ] as const) {
      ids[name] = (await w.session({ name }))._id;
      await w.setSessionStatus(ids[name], status);
    }
    ids.annShared = (await w.session({ name: 'ann-shared' }, ann))._id;
    ids.annPrivate = (await w.session({ name: 'ann-private', visibility: 'private' }, ann))._id;
    ids.archived = (await w.session({ name: 'old' }))._id;
    await w.s.store.db
      .updateTable('interactive_sessions')
      .set({ archived: 1, archived_at: new Date().toISOString() })
      .where('id', '=', ids.archived)
      .execute();
  });
  after(() => w.close());

  const names = (r: { json(): any }) => r.json().sessions.map((s: { name: string }) => s.name);

  it('lists the sessions of the workspace newest first, 10 a page by default, with the reference pagination keys', async () => {
    const r = await w.list();
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(Object.keys(r.json()).sort(), ['paginationMetadata', 'sessions']);
    assert.deepEqual(names(r), ['ann-private', 'ann-shared', 'five', 'four', 'three', 'two', 'one'], 'the admin sees private sessions too');
    assert.deepEqual(r.json().paginationMetadata, { 'Pagination-Count': 7, 'Pagination-Page': 1, 'Pagination-Limit': 10 });
    const s = r.json().sessions.find((x: { name: string }) => x.name === 'two');
    assert.equal(s.status, 'ready');
    for (const key of [
      '_id',
      'interactiveSessionType',
      'user',
      'project',
      'resources',
      'totalCostInUsd',
      'totalRunningTimeInSeconds',
      'createdAt',
      'lastSavedAt',
      'execution',
      'rVersion',
      'costPerHour',
      'interactiveSessionConfiguration',
    ])
      assert.ok(Object.hasOwn(s, key), key);
  });

  it('pages: page and limit, the count over every page', async () => {
    const first = await w.list('page=1&limit=3');
    assert.deepEqual(names(first), ['ann-private', 'ann-shared', 'five']);
    assert.deepEqual(first.json().paginationMetadata, { 'Pagination-Count': 7, 'Pagination-Page': 1, 'Pagination-Limit': 3 });
    assert.deepEqual(names(await w.list('page=3&limit=3')), ['one']);
    assert.deepEqual(names(await w.list('page=4&limit=3')), []);
    assert.equal((await w.list('limit=100')).statusCode, 200);
  });

  it('refuses a limit over 100 and a page or limit below 1 (400), as the public client does', async () => {
    assert.match(assertError(await w.list('limit=101'), 400, 'VALIDATION_FAILED'), /limit must be <= 100/);
    assertError(await w.list('limit=0'), 400, 'VALIDATION_FAILED');
    assertError(await w.list('page=0'), 400, 'VALIDATION_FAILED');
  });

  it('filters by status[]: one or several, encoded as the public client encodes them', async () => {
    assert.deepEqual(names(await w.list('status%5B%5D=ready')), ['two']);
    assert.deepEqual(names(await w.list('status[]=aborted&status[]=setup')), ['four', 'three']);
    const r = await w.list('status%5B%5D=initializing&status%5B%5D=scheduled&limit=2');
    assert.deepEqual(names(r), ['ann-private', 'ann-shared']);
    assert.equal(r.json().paginationMetadata['Pagination-Count'], 4, 'the count is under the filter');
    const message = assertError(await w.list('status[]=running'), 400, 'VALIDATION_FAILED');
    assert.match(
      message,
      /"running" is not a session status; the statuses are scheduled, initializing, setup, ready, aborting, aborted, terminated/,
    );
  });

  it("onlyOwnerSessions=true keeps the caller's own; another member sees shared sessions and its own private ones only", async () => {
    assert.deepEqual(names(await w.list('onlyOwnerSessions=true', ann)), ['ann-private', 'ann-shared']);
    assert.deepEqual(names(await w.list('onlyOwnerSessions=true')), ['five', 'four', 'three', 'two', 'one']);
    const bob = await addMember(w.s, w.ws, 'bob', 'member');
    const seen = await w.list('', bob);
    assert.deepEqual(names(seen), ['ann-shared', 'five', 'four', 'three', 'two', 'one']);
    assert.equal(seen.json().paginationMetadata['Pagination-Count'], 6);
    assert.deepEqual(names(await w.list('onlyOwnerSessions=false', bob)), names(seen));
  });

  it('archived.status=true lists the archived sessions only; false (what the client sends by default) the others', async () => {
    assert.deepEqual(names(await w.list('archived.status=true')), ['old']);
    assert.deepEqual(names(await w.list('archived.status=false')).length, 7);
    const r = await w.list('archived.status=true');
    assert.equal(r.json().sessions[0].archived.status, true);
  });
});
