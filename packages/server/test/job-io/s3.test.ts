import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { s3BackendEnv, startS3Server, type S3TestServer } from '../../../../test/support/s3-server.js';
import { gone, inputScenarios, s3Listing } from './scenarios.js';
import { ioWorld, type IoWorld } from './world.js';
import { followScenario } from './follow-scenario.js';

describe('job inputs and outputs on S3 (s3rver)', { timeout: 300_000 }, () => {
  let s3: S3TestServer;
  let w: IoWorld;
  before(async () => {
    s3 = await startS3Server();
    w = await ioWorld({
      ...s3BackendEnv(s3),
      RUNYARD_LOG_SYNC_MS: '200',
    });
  });
  after(async () => {
    await w?.close();
    await s3?.stop();
  });
  inputScenarios(() => w, s3Listing, { embeddedType: 'S3File' });
  followScenario(() => w);

  it("uploads a running job's logs every RUNYARD_LOG_SYNC_MS; a forced abort saves its logs and nothing else", async () => {
    const r = await w.submitBash('echo started; echo partial > "$RUNYARD_RESULTS_DIR/partial.txt"; sleep 600; :', []);
    assert.equal(r.statusCode, 200, r.body);
    const id = r.json().jobId as string;
    const prefix = `${w.ws}/jobs/${id}`;
    // A hang guard, generous for a loaded machine; the job sleeps far longer and is aborted.
    const until = Date.now() + 180_000;
    let stdout = '';
    while (!stdout.includes('started')) {
      assert.ok(Date.now() < until, 'the logs of the running job never reached the store');
      stdout = await w.read(`${prefix}/logs/stdout.txt`).catch(() => '');
      await sleep(100);
    }
    assert.equal((await w.req('GET', `/api/v1/jobs/${id}?teamId=${w.ws}`)).json().status, 'running');
    const abort = await w.req('PUT', `/api/v2/jobs/${id}/abort?teamId=${w.ws}&forceAbort=true`);
    assert.ok(abort.statusCode < 300, abort.body);
    const doc = await w.finished(id);
    assert.equal(doc.status, 'aborted');
    assert.match(await w.read(`${prefix}/logs/stdout.txt`), /started/);
    assert.deepEqual((await w.blobs.list(w.bucket, `${prefix}/results`)).entries, []);
    await gone(path.join(w.s.config.dataDir, 'scratch', w.bucket, prefix));
  });
});
