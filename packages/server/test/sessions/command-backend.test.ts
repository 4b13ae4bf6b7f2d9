import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createBlobStore } from '../../src/storage/registry.js';
import { waitFor } from '../scheduler/helpers.js';
import { request } from '../sessions-runtime/proxy-app.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';

/** An operator's command that follows the contract of docs/sessions.md (test/fixtures/bin/session-ui). */
const SESSION_UI = fileURLToPath(new URL('../../../../test/fixtures/bin/session-ui', import.meta.url));

/**
 * A session whose backend is an operator's command (RUNYARD_SESSION_COMMAND_VSCODE): run in the
 * sandbox with its words, told its socket, base URL and token, ready once it answers, reached
 * through the proxy, and paused with its home saved like a Jupyter session.
 */
describe("a session of an operator's command (vscode)", { timeout: 300_000 }, () => {
  let w: RunningSessionWorld;
  before(async () => {
    w = await runningSessionWorld({ RUNYARD_SESSION_COMMAND_VSCODE: `${SESSION_UI} --greeting bonjour` });
  });
  after(() => w.close());

  it('reaches ready, answers through the proxy with the words it was given, and is paused with its home saved', async () => {
    const created = await w.session({ backend: 'vscode', name: 'code' });
    await w.until(created._id, ['ready']);
    const { cookie, base } = await w.open(created._id);
    const page = await request(`${w.sessionsUrl}${base}write/notes.txt`, { headers: { cookie } });
    // The proxy gave it its token; the sandbox gave it its home.
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /^bonjour from the session UI: write\/notes\.txt \(home \/.+\/home\)\n$/);

    assert.equal((await w.abort(created._id)).statusCode, 204);
    await waitFor('the session to be paused', async () => (await w.getSession(created._id)).json().status === 'aborted', 60_000);
    const row = await w.row(created._id);
    assert.ok(await createBlobStore(w.s.config).stat(row.home_bucket, `${row.home_prefix}/notes.txt`), 'its home was saved');
  });
});
