import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Tenant } from '../../../../test/support/server.js';
import { explorerWorld, type ExplorerWorld } from '../file-explorer/world.js';
import { addMember } from '../reliability/members.js';
import { assertError, call } from '../wire.js';
import { bashBody, jobCount, submit } from './fixtures.js';

// A member acts on its own jobs only; a workspace admin or owner on every job of the workspace.
describe('job ownership', () => {
  let w: ExplorerWorld;
  let ann: Tenant;
  let bob: Tenant;
  let ada: Tenant;
  let olga: Tenant;
  const T = () => `teamId=${w.ws}`;
  before(async () => {
    w = await explorerWorld();
    ann = await addMember(w.s, w.ws, 'ann', 'member');
    bob = await addMember(w.s, w.ws, 'bob', 'member');
    ada = await addMember(w.s, w.ws, 'ada', 'admin');
    olga = await addMember(w.s, w.ws, 'olga', 'owner');
  });
  after(() => w.close());

  async function jobOf(t: Tenant, extra: Record<string, unknown> = {}): Promise<string> {
    const r = await submit(w, bashBody(w, extra), t);
    assert.equal(r.statusCode, 200, r.body);
    return r.json().jobId;
  }
  const as = (t: Tenant, method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, body?: unknown) => call(w.s, method, url, body, t.apikey);
  const refused = (r: { statusCode: number; body: string }) => {
    const message = assertError(r, 403, 'FORBIDDEN');
    assert.match(message, /belongs to another user: .* the admin role in this workspace; you are a member\./);
  };
  const archive = (t: Tenant, jobIds: string[], status = true) =>
    as(t, 'PUT', `/api/v1/jobs?${T()}`, { jobIds, update: { archived: { status } } });

  it('aborts: the owner, an admin and an owner may; another member gets 403 and the job runs on', async () => {
    const mine = await jobOf(ann);
    refused(await as(bob, 'PUT', `/api/v2/jobs/${mine}/abort?${T()}`));
    assert.equal((await w.doc(mine)).status, 'queued');
    assert.equal((await as(ann, 'PUT', `/api/v2/jobs/${mine}/abort?${T()}`)).statusCode, 200);
    assert.equal((await w.doc(mine)).status, 'aborted');
    for (const boss of [ada, olga]) {
      const other = await jobOf(bob);
      assert.equal((await as(boss, 'PUT', `/api/v2/jobs/${other}/abort?${T()}`)).statusCode, 200);
      assert.equal((await w.doc(other)).status, 'aborted');
    }
  });

  it("archives and unarchives: only one's own, all or nothing; an admin any", async () => {
    const mine = await jobOf(ann);
    const theirs = await jobOf(bob);
    refused(await archive(ann, [mine, theirs]));
    assert.equal((await w.doc(mine)).archived.status, false, 'nothing archived when one job is not the caller’s');
    assert.equal((await archive(ann, [mine])).statusCode, 200);
    assert.equal((await w.doc(mine)).archived.status, true);
    refused(await archive(bob, [mine], false));
    assert.equal((await w.doc(mine)).archived.status, true);
    assert.equal((await archive(ada, [mine, theirs], true)).statusCode, 200);
    assert.equal((await archive(olga, [mine, theirs], false)).statusCode, 200);
    assert.equal((await w.doc(theirs)).archived.status, false);
  });

  it('deletes job data: the owner or an admin, by the job route or the folder route; another member gets 403', async () => {
    const mine = await jobOf(ann);
    await w.setStatus(mine, 'completed');
    const results = (await w.doc(mine)).analysisResults.folderId;
    const folderStatus = async () =>
      (await call(w.s, 'GET', `/api/v1/folders?id=${results}&status=ready&status=scheduledForDeletion&${T()}`)).json()[0].status;
    refused(await as(bob, 'DELETE', `/api/v1/jobs/${mine}/data?properties[]=analysisResults&${T()}`));
    refused(await as(bob, 'DELETE', `/api/v1/folders/${results}?force=true&${T()}`));
    assert.equal(await folderStatus(), 'ready');
    assert.equal((await as(ann, 'DELETE', `/api/v1/jobs/${mine}/data?properties[]=analysisResults&${T()}`)).statusCode, 204);
    assert.equal(await folderStatus(), 'scheduledForDeletion');

    const theirs = await jobOf(bob);
    await w.setStatus(theirs, 'completed');
    assert.equal((await as(ada, 'DELETE', `/api/v1/jobs/${theirs}/data?properties[]=workDirectory&${T()}`)).statusCode, 204);
    const other = await jobOf(bob);
    await w.setStatus(other, 'completed');
    const otherResults = (await w.doc(other)).analysisResults.folderId;
    assert.equal((await as(olga, 'DELETE', `/api/v1/folders/${otherResults}?force=true&${T()}`)).statusCode, 204);
  });

  it("resumes only into one's own work directory (an admin into any); clones any job", async () => {
    const mine = await jobOf(ann, { resumable: true });
    await w.setStatus(mine, 'completed');
    const workDir = (await w.doc(mine)).resumeWorkDir;
    const jobs = await jobCount(w);
    const resume = (t: Tenant) => submit(w, bashBody(w, { name: 'resumed', resumable: true, resumeWorkDir: workDir }), t);
    refused(await resume(bob));
    assert.equal(await jobCount(w), jobs, 'no job was created');
    const own = await resume(ann);
    assert.equal(own.statusCode, 200, own.body);
    // One job at a time in a work directory: the admin resumes once the owner's resumed job has finished.
    await w.setStatus(own.json().jobId, 'completed');
    assert.equal((await resume(ada)).statusCode, 200);

    // A clone reads the original's submission and submits it again as the caller's own job.
    const payload = await as(bob, 'GET', `/api/v1/jobs/${mine}/request-payload?${T()}`);
    assert.equal(payload.statusCode, 200, payload.body);
    const { _id, resourceId, resumeWorkDir, ...body } = payload.json();
    assert.ok(_id && resourceId && resumeWorkDir === undefined);
    const clone = await submit(w, { ...body, name: 'clone' }, bob);
    assert.equal(clone.statusCode, 200, clone.body);
    assert.equal((await w.doc(clone.json().jobId)).user.id, bob.userId);
  });
});
