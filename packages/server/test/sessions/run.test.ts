import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sessionDirsOf } from '../../src/scheduler/session-runner.js';
import { createBlobStore } from '../../src/storage/registry.js';
import { request } from '../sessions-runtime/proxy-app.js';
import { addMember } from '../reliability/members.js';
import { call } from '../wire.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { JUPYTER_INSTALLED, shutdownIn } from './world.js';

/**
 * Interactive sessions that really run: real Jupyter (Debian's jupyter-notebook) through the
 * local executor in the task sandbox, started by the session runner, reached through the
 * platform's proxy with a launch link, paused with its home saved to the store, resumed with it
 * restored, and stopped by the reaper at its cost limit or auto-shutdown date.
 */

describe('interactive sessions that run', { skip: !JUPYTER_INSTALLED && 'jupyter is not installed', timeout: 900_000 }, () => {
  let w: RunningSessionWorld;

  before(async () => {
    w = await runningSessionWorld();
  });
  after(() => w.close());

  const jupyter = (conf: Record<string, unknown> = {}) =>
    w.session({ backend: 'regular', name: `nb-${randomUUID().slice(0, 8)}`, ...conf });
  const until = (id: string, statuses: string[]) => w.until(id, statuses);
  const open = (id: string, apikey?: string) => w.open(id, apikey);
  const runCell = (id: string, code: string) => w.runCell(id, code);

  it('a Jupyter session reaches ready; its notebook runs a cell through the proxy; pause saves the home and resume restores it', async () => {
    const created = await jupyter();
    assert.equal(created.status, 'scheduled');
    const ready = await until(created._id, ['ready']);
    assert.equal(ready.status, 'ready');
    const tree = await open(created._id);
    const page = await request(`${w.sessionsUrl}${tree.base}tree`, { headers: { cookie: tree.cookie } });
    assert.equal(page.status, 200);
    assert.match(page.body, /Jupyter/);

    const wrote = await runCell(created._id, "open('notes.txt', 'w').write('kept across a pause\\n')\nprint('wrote')");
    assert.equal(wrote.status, 'ok', wrote.stdout);
    // Hostile: the notebook (the default network, outbound) reaches neither the platform's API nor PostgreSQL on the
    // host's loopback, nor the host through slirp's gateway, nor the metadata address; a listener of its own it does.
    const apiPort = new URL(w.url).port;
    const probes = await runCell(
      created._id,
      [
        'import socket',
        'own = socket.socket(); own.bind(("127.0.0.1", 0)); own.listen(1)',
        `targets = [("127.0.0.1", ${apiPort}), ("127.0.0.1", 5432), ("10.0.2.2", ${apiPort}), ("169.254.169.254", 80), ("127.0.0.1", own.getsockname()[1])]`,
        'for host, port in targets:',
        '    c = socket.socket(); c.settimeout(3)',
        '    try:',
        '        c.connect((host, port)); print(host, port, "REACHED")',
        '    except OSError:',
        '        print(host, port, "BLOCKED")',
        '    finally:',
        '        c.close()',
      ].join('\n'),
    );
    assert.equal(probes.status, 'ok', probes.stdout);
    assert.deepEqual(
      probes.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ').slice(0, 3).join(' '))
        .slice(0, 4),
      [`127.0.0.1 ${apiPort} BLOCKED`, '127.0.0.1 5432 BLOCKED', `10.0.2.2 ${apiPort} BLOCKED`, '169.254.169.254 80 BLOCKED'],
    );
    assert.match(probes.stdout, /^127\.0\.0\.1 \d+ REACHED$/m, 'a listener of its own is reached: the probes can succeed');
    const home = sessionDirsOf(w.s.config, created._id).home;
    // The session's log says first what has no effect here.
    assert.match(
      readFileSync(sessionDirsOf(w.s.config, created._id).logFile, 'utf8'),
      /^Runyard: storageSizeInGb \(500\) has no effect here/,
    );
    assert.equal(readFileSync(path.join(home, 'notes.txt'), 'utf8'), 'kept across a pause\n');

    const paused = await w.abort(created._id, { uploadOnClose: true, forceAbort: false });
    assert.equal(paused.statusCode, 204, paused.body);
    const aborted = await until(created._id, ['aborted']);
    const row = await w.row(created._id);
    assert.ok(row.last_saved_at, 'the home was saved');
    assert.equal(row.stop_reason, 'user');
    // The run is counted (the reply's figure is whole seconds; the row keeps the fraction).
    assert.ok(Number(row.running_seconds) > 0, String(row.running_seconds));
    assert.equal(aborted.totalRunningTimeInSeconds, Math.floor(Number(row.running_seconds)));
    // Saved in the workspace's store, and the working copy gone with the run.
    const blobs = createBlobStore(w.s.config);
    const saved = await blobs.stat(row.home_bucket, `${row.home_prefix}/notes.txt`);
    assert.ok(saved, 'notes.txt is in the store');
    assert.equal(existsSync(home), false);
    // The UI is gone with it.
    const link = await call(
      w.s,
      'POST',
      `/api/runyard/interactive-sessions/${created._id}/ui-link?teamId=${w.ws}`,
      undefined,
      w.s.admin.apikey,
    );
    assert.equal(link.statusCode, 409, link.body);

    const resumed = await w.resume(created._id);
    assert.equal(resumed.statusCode, 200, resumed.body);
    await until(created._id, ['ready']);
    const read = await runCell(created._id, "print(open('notes.txt').read(), end='')");
    assert.equal(read.status, 'ok', read.stdout);
    assert.equal(read.stdout, 'kept across a pause\n');
  });

  it("T19: the UI's cookie ends at once when the key that opened it is revoked, or its person deactivated", async () => {
    const created = await jupyter();
    await until(created._id, ['ready']);
    const page = (cookie: string, base: string) => request(`${w.sessionsUrl}${base}tree`, { headers: { cookie } });
    // Two keys of one member: revoking the one that opened the UI ends that cookie, not the other's.
    const ann = await addMember(w.s, w.ws, `ann-${randomUUID().slice(0, 6)}`, 'admin');
    const second = await call(w.s, 'POST', '/api/runyard/admin/apikeys', { userId: ann.userId });
    assert.equal(second.statusCode, 201, second.body);
    const first = await open(created._id, ann.apikey);
    const other = await open(created._id, second.json().apikey);
    assert.equal((await page(first.cookie, first.base)).status, 200);
    const keyId = /^ry_([0-9a-f]{24})_/.exec(ann.apikey)![1];
    assert.equal((await call(w.s, 'DELETE', `/api/runyard/admin/apikeys/${keyId}`)).statusCode < 300, true);
    assert.equal((await page(first.cookie, first.base)).status, 404, 'the revoked key still opened the UI');
    assert.equal((await page(other.cookie, other.base)).status, 200);
    // Deactivated: every cookie of theirs ends.
    assert.equal((await call(w.s, 'DELETE', `/api/runyard/admin/users/${ann.userId}`)).statusCode < 300, true);
    assert.equal((await page(other.cookie, other.base)).status, 404, 'the deactivated user still opened the UI');
    await w.abort(created._id, { uploadOnClose: false, forceAbort: true });
    await until(created._id, ['aborted']);
  });

  it('a forced pause stops at once without saving', async () => {
    const created = await jupyter();
    await until(created._id, ['ready']);
    assert.equal((await runCell(created._id, "open('lost.txt', 'w').write('x')")).status, 'ok');
    assert.equal((await w.abort(created._id, { uploadOnClose: true, forceAbort: true })).statusCode, 204);
    await until(created._id, ['aborted']);
    const row = await w.row(created._id);
    assert.equal(row.last_saved_at, null);
    assert.equal(await createBlobStore(w.s.config).stat(row.home_bucket, `${row.home_prefix}/lost.txt`), null);
  });

  it('the reaper stops a session at its cost limit, saving its home first, and says why', async () => {
    // r5.24xlarge is $6.048 an hour (AWS on-demand): three cents are 17.9 seconds of it, far more than a session takes
    // to start. The limit can only be reached once the session has run that long, which the test's own clock bounds.
    const before = Date.now();
    const created = await jupyter({
      instanceType: 'r5.24xlarge',
      execution: { computeCostLimit: 0.03, autoShutdownAtDate: shutdownIn(12) },
    });
    const stopped = await until(created._id, ['aborted']);
    const after = Date.now();
    const row = await w.row(created._id);
    assert.equal(row.stop_reason, 'costLimit');
    assert.match(stopped.statusMessage, /reached its cost limit of \$0\.03; its home was saved/);
    assert.ok(row.last_saved_at);
    assert.ok(after - before >= (0.03 / 6.048) * 3_600_000, `stopped after ${after - before} ms, before it could cost three cents`);
    // What it cost: at least the three cents, and no more than the price of all the time the test saw go by.
    assert.ok(row.cost_cents >= 3, `${row.cost_cents}`);
    assert.ok(row.cost_cents <= (604.8 * (after - before)) / 3_600_000, `${row.cost_cents} for ${after - before} ms`);
  });

  it('the reaper stops a session at its auto-shutdown date', async () => {
    // Far enough ahead that the creation, on a busy machine, still sees it in the future.
    const created = await jupyter({ execution: { computeCostLimit: -1, autoShutdownAtDate: new Date(Date.now() + 20_000).toISOString() } });
    const stopped = await until(created._id, ['aborted']);
    const row = await w.row(created._id);
    assert.equal(row.stop_reason, 'autoShutdown');
    assert.match(stopped.statusMessage, /auto-shutdown date/);
  });

  it('another workspace gets 404 for the link and the proxy; a session whose server dies is aborted with why', async () => {
    const created = await jupyter();
    await until(created._id, ['ready']);
    const other = await w.s.newTenant(`other${randomUUID().slice(0, 6)}`);
    const foreign = await call(
      w.s,
      'POST',
      `/api/runyard/interactive-sessions/${created._id}/ui-link?teamId=${other.workspaceId}`,
      undefined,
      other.apikey,
    );
    assert.equal(foreign.statusCode, 404, foreign.body);
    const bare = await request(`${w.sessionsUrl}/api/runyard/interactive-sessions/${created._id}/ui/tree`);
    assert.equal(bare.status, 404);

    const row = await w.row(created._id);
    const { pid } = JSON.parse(row.external_id) as { pid: number };
    process.kill(-pid, 'SIGKILL');
    const stopped = await until(created._id, ['aborted']);
    assert.equal((await w.row(created._id)).stop_reason, 'error');
    assert.match(stopped.statusMessage, /^The session's server stopped: /);
  });
});
