import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobPaths } from '../../src/scheduler/job-paths.js';
import { sseReader, type Sse } from '../sse-reader.js';
import { startBashJobServer, type BashJobServer } from './bash-job-server.js';

// GET /api/runyard/jobs/{id}/events: a job's log and status as they happen (Server-Sent Events).
describe('following a job live', { timeout: 300_000 }, () => {
  let w: BashJobServer;
  before(async () => {
    w = await startBashJobServer();
  });
  after(() => w.close());

  const events = (id: string, query = '', apikey = w.s.admin.apikey, ws = w.ws) =>
    fetch(`${w.s.url}/api/runyard/jobs/${id}/events?teamId=${ws}${query}`, { headers: { apikey } });
  const goFile = (id: string) => path.join(jobPaths(w.s.config.dataDir, w.ws, id).root, 'work', 'go');

  it('streams the lines a running job writes while it runs, its status changes, and its end after the last line', async () => {
    const id = await w.submit('echo first; echo second; while [ ! -e go ]; do sleep 0.05; done; echo third; true');
    const r = await events(id);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/event-stream/);
    const sse = sseReader(r.body!);
    let text = '';
    const statuses: string[] = [];
    // The first two lines arrive while the job still runs (it waits for the go file).
    while (!text.includes('second\n')) {
      const e = await sse.next();
      assert.ok(e, 'the stream ended early');
      if (e.event === 'log') {
        text += e.data.text;
        assert.equal(e.id, String(e.data.offset));
      } else if (e.event === 'status') statuses.push(e.data.status);
      else assert.fail(`unexpected ${e.event} before the job was released`);
    }
    // The job is reported running 50 ms after its task started (RUNNING_MARK_DELAY_MS): its first lines can come
    // sooner. The go file waits until the stream has said `running` (it samples the status: a job released at once
    // could end before its next look).
    while (!statuses.includes('running')) {
      const e = await sse.next();
      assert.ok(e, 'the stream ended early');
      if (e.event === 'log') text += e.data.text;
      else if (e.event === 'status') statuses.push(e.data.status);
      else assert.fail(`unexpected ${e.event} before the job was released`);
    }
    const job = await w.ok('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`);
    assert.equal(job.status, 'running');
    writeFileSync(goFile(id), '');
    let end: Sse | null = null;
    for (let e = await sse.next(); e; e = await sse.next()) {
      if (e.event === 'log') text += e.data.text;
      else if (e.event === 'status') statuses.push(e.data.status);
      else if (e.event === 'end') end = e;
    }
    assert.ok(end, 'no end event');
    assert.deepEqual(end.data, { status: 'completed', statusMessage: null, exitCode: 0 });
    assert.ok(text.endsWith('first\nsecond\nthird\n'), text);
    assert.equal(statuses.at(-1), 'completed');
    assert.ok(statuses.includes('running'), statuses.join(','));
    assert.equal(text, w.logOf(id), 'the stream carries the whole log');
  });

  it('starts from an offset: a client that saw part of the log gets the rest, once', async () => {
    const id = await w.submit('printf "a\\nb\\nc\\n"; true');
    const job = await w.ended(id);
    assert.equal(job.status, 'completed');
    const log = w.logOf(id);
    const offset = Buffer.byteLength(log.slice(0, log.indexOf('b\n')));
    const sse = sseReader((await events(id, `&offset=${offset}`)).body!);
    const got: Sse[] = [];
    for (let e = await sse.next(); e; e = await sse.next()) got.push(e);
    assert.deepEqual(
      got.map((e) => e.event),
      ['log', 'status', 'end'],
    );
    assert.deepEqual(got[0].data, { offset: Buffer.byteLength(log), text: 'b\nc\n' });
    assert.deepEqual(got[2].data, { status: 'completed', statusMessage: null, exitCode: 0 });
  });

  it('ends with the failure and its message', async () => {
    const id = await w.submit('echo doomed; exit 7');
    const sse = sseReader((await events(id)).body!);
    let end: Sse | null = null;
    for (let e = await sse.next(); e; e = await sse.next()) if (e.event === 'end') end = e;
    assert.deepEqual(end?.data, {
      status: 'failed',
      statusMessage: 'The task exited with code 7. The end of its log:\ndoomed',
      exitCode: 7,
    });
  });

  it("answers 401 without a key, 404 for another workspace's job or an unknown one, 400 for a bad offset", async () => {
    const id = await w.submit('true');
    const anonymous = await fetch(`${w.s.url}/api/runyard/jobs/${id}/events?teamId=${w.ws}`);
    assert.equal(anonymous.status, 401);
    const other = await w.s.newTenant('eve');
    assert.equal((await events(id, '', other.apikey, other.workspaceId)).status, 404);
    assert.equal((await events('0123456789abcdef01234567')).status, 404);
    const bad = await events(id, '&offset=-1');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'VALIDATION_FAILED');
    await w.ended(id);
  });
});
