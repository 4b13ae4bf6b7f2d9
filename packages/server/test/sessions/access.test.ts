import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { addMember } from '../reliability/members.js';
import { assertError, call } from '../wire.js';
import { createBody, sessionWorld, type SessionWorld } from './world.js';

// Tenancy and roles of the session routes: another workspace's session is not found (404) on
// every route, whichever workspace the caller names; a viewer reads but cannot create, pause or
// resume; a member pauses and resumes its own sessions, an admin or owner any; a private session
// is not found for a member who does not own it. A refusal changes nothing.

describe('interactive session tenancy and roles', { timeout: 120_000 }, () => {
  let w: SessionWorld;
  let mallory: Tenant;
  let viewer: Tenant;
  let ann: Tenant;
  let bob: Tenant;
  let ada: Tenant;
  before(async () => {
    w = await sessionWorld();
    mallory = await w.s.newTenant('mallory');
    viewer = await addMember(w.s, w.ws, 'vera', 'viewer');
    ann = await addMember(w.s, w.ws, 'ann', 'member');
    bob = await addMember(w.s, w.ws, 'bob', 'member');
    ada = await addMember(w.s, w.ws, 'ada', 'admin');
  });
  after(() => w.close());

  /** Every session route for `id`, as `t`, naming workspace `ws`. */
  function everyRoute(id: string, t: Tenant, ws: string) {
    const T = `teamId=${ws}`;
    return [
      call(w.s, 'GET', `/api/v2/interactive-sessions/${id}?${T}`, undefined, t.apikey),
      call(w.s, 'PUT', `/api/v1/interactive-sessions/${id}/abort?${T}`, { uploadOnClose: true, forceAbort: false }, t.apikey),
      call(w.s, 'PUT', `/api/v1/interactive-sessions/${id}/resume?${T}`, { dataItems: [] }, t.apikey),
    ];
  }

  it("another workspace's member gets 404 from every route, naming its own workspace or ours, and its list does not show the session", async () => {
    const s = await w.session();
    await w.setSessionStatus(s._id, 'aborted');
    const before = await w.row(s._id);
    for (const r of await Promise.all(everyRoute(s._id, mallory, mallory.workspaceId))) {
      assert.match(assertError(r, 404, 'SESSION_NOT_FOUND'), /Interactive session with ID '[0-9a-f]{24}' not found in this workspace/);
    }
    for (const r of await Promise.all(everyRoute(s._id, mallory, w.ws))) assertError(r, 404, 'WORKSPACE_NOT_FOUND');
    const list = await call(w.s, 'GET', `/api/v3/interactive-sessions?teamId=${w.ws}`, undefined, mallory.apikey);
    assertError(list, 404, 'WORKSPACE_NOT_FOUND');
    const own = await call(w.s, 'GET', `/api/v3/interactive-sessions?teamId=${mallory.workspaceId}`, undefined, mallory.apikey);
    assert.equal(own.statusCode, 200, own.body);
    assert.deepEqual(own.json().sessions, []);
    const create = await call(w.s, 'POST', `/api/v1/interactive-sessions?teamId=${w.ws}`, createBody(w.projectId), mallory.apikey);
    assertError(create, 404, 'WORKSPACE_NOT_FOUND');
    // In its own workspace, our project is not found either.
    const theirs = await call(
      w.s,
      'POST',
      `/api/v1/interactive-sessions?teamId=${mallory.workspaceId}`,
      createBody(w.projectId),
      mallory.apikey,
    );
    assertError(theirs, 404, 'PROJECT_NOT_FOUND');
    assert.deepEqual(await w.row(s._id), before);
  });

  it('a viewer lists and reads sessions but may not create, pause or resume one (403, nothing changes)', async () => {
    const s = await w.session();
    const T = `teamId=${w.ws}`;
    assert.equal((await w.list('', viewer)).statusCode, 200);
    assert.equal((await w.getSession(s._id, viewer)).statusCode, 200);
    const count = await w.sessionCount();
    assert.match(assertError(await w.create(createBody(w.projectId), viewer), 403, 'FORBIDDEN'), /needs the member role/);
    assert.equal(await w.sessionCount(), count);
    assertError(await call(w.s, 'PUT', `/api/v1/interactive-sessions/${s._id}/abort?${T}`, {}, viewer.apikey), 403, 'FORBIDDEN');
    assert.equal((await w.row(s._id)).status, 'scheduled');
    await w.setSessionStatus(s._id, 'aborted');
    assertError(await w.resume(s._id, {}, viewer), 403, 'FORBIDDEN');
    assert.equal((await w.row(s._id)).status, 'aborted');
  });

  it('a member pauses and resumes its own shared session; another member may read it but not pause or resume it; an admin may', async () => {
    const s = await w.session({ visibility: 'workspace' }, ann);
    assert.equal((await w.getSession(s._id, bob)).statusCode, 200);
    const refused = (r: { statusCode: number; body: string }) =>
      assert.match(
        assertError(r, 403, 'FORBIDDEN'),
        /belongs to another user: to (pause|resume) it you need the admin role in this workspace; you are a member\./,
      );
    refused(await w.abort(s._id, undefined, bob));
    assert.equal((await w.row(s._id)).status, 'scheduled');
    assert.equal((await w.abort(s._id, undefined, ann)).statusCode, 204);
    refused(await w.resume(s._id, undefined, bob));
    assert.equal((await w.row(s._id)).status, 'aborted');
    assert.equal((await w.resume(s._id, undefined, ada)).statusCode, 200);
    assert.equal((await w.abort(s._id, undefined, ada)).statusCode, 204);
    assert.equal((await w.resume(s._id, undefined, ann)).statusCode, 200);
  });

  it('a private session is not found for another member (every route), and is for its owner and an admin', async () => {
    const s = await w.session({ visibility: 'private' }, ann);
    for (const r of await Promise.all(everyRoute(s._id, bob, w.ws))) assertError(r, 404, 'SESSION_NOT_FOUND');
    assert.ok(!(await w.list('', bob)).json().sessions.some((x: { _id: string }) => x._id === s._id));
    assert.equal((await w.row(s._id)).status, 'scheduled');
    assert.equal((await w.getSession(s._id, ann)).statusCode, 200);
    assert.equal((await w.getSession(s._id, ada)).statusCode, 200);
    assert.equal((await w.abort(s._id, undefined, ada)).statusCode, 204);
  });
});
