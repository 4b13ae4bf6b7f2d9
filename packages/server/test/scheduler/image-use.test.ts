import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imagesInUse } from '../../src/scheduler/image-use.js';
import { sessionRow } from '../sessions/session-row.js';
import { insertJob, insertWorkflow, setup, type Env } from './helpers.js';

const A = `sha256:${'a'.repeat(64)}`;
const B = `sha256:${'b'.repeat(64)}`;
const C = `sha256:${'c'.repeat(64)}`;

/** What the image cache may not evict: the images of jobs and sessions that run, or are about to (scheduler/image-use.ts). */
describe('the images in use (the database)', () => {
  let env: Env;
  let workflowId: string;
  before(async () => {
    env = await setup();
    workflowId = await insertWorkflow(env, {});
  });
  after(() => env.close());

  const job = (status: string, image_digest: string | null) => insertJob(env, workflowId, { status, image_digest });
  const session = (status: string, image_digest: string | null) =>
    env.store.db
      .insertInto('interactive_sessions')
      .values(sessionRow({ workspace_id: env.workspaceId, project_id: env.projectId, user_id: env.userId }, { status, image_digest }))
      .execute();

  it('counts jobs initializing, running or aborting and sessions not yet ended, by digest; nothing that ended or queued', async () => {
    for (const status of ['initializing', 'running', 'aborting']) await job(status, A);
    for (const status of ['queued', 'completed', 'failed', 'aborted']) await job(status, B);
    await job('running', null);
    for (const status of ['initializing', 'setup', 'ready', 'aborting']) await session(status, C);
    await session('ready', A);
    for (const status of ['aborted', 'terminated']) await session(status, B);
    assert.deepEqual([...(await imagesInUse(env.store.db)).entries()].sort(), [
      [A, 4],
      [C, 4],
    ]);
  });
});
