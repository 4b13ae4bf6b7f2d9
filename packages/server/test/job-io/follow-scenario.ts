import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { taskPaths } from '../../src/scheduler/job-paths.js';
import { drain, logUntil, sseReader } from '../sse-reader.js';
import { logsOf, type IoWorld } from './world.js';

/**
 * Following a job live on every storage backend: while it runs its lines come from the working
 * copy of its log (the store's own file on the local store), and after its end, when S3 and Azure
 * jobs' local copies are gone, from the store; either way the stream is the whole log, once.
 */
export function followScenario(world: () => IoWorld): void {
  it("a running job's log is followed live, and after its end the stream is the stored log", async () => {
    const w = world();
    const submitted = await w.submitBash('echo early; while [ ! -e go ]; do sleep 0.05; done; echo late; :', []);
    assert.equal(submitted.statusCode, 200, submitted.body);
    const id = submitted.json().jobId as string;
    const events = (offset = 0) =>
      fetch(`${w.s.url}/api/runyard/jobs/${id}/events?teamId=${w.ws}&offset=${offset}`, { headers: { apikey: w.s.admin.apikey } });
    const sse = sseReader((await events()).body!);
    const early = await logUntil(sse, 'early\n');
    const work = (await taskPaths(w.s.config.dataDir, w.blobs, { id, workspace_id: w.ws })).work;
    writeFileSync(path.join(work, 'go'), '');
    const { text: rest, end } = await drain(sse);
    const text = early + rest;
    assert.equal(end?.data.status, 'completed');
    const doc = await w.finished(id);
    const stored = await w.read(`${logsOf(doc).prefix}/stdout.txt`);
    assert.equal(text, stored);
    assert.ok(stored.endsWith('early\nlate\n'), stored);
    // Again after the end: all of it from the store (the local copies of S3 and Azure jobs are gone).
    const replay = (await drain(sseReader((await events()).body!))).text;
    assert.equal(replay, stored);
    const tail = sseReader((await events(Buffer.byteLength(stored) - 'late\n'.length)).body!);
    const first = await tail.next();
    assert.deepEqual(first?.data, { offset: Buffer.byteLength(stored), text: 'late\n' });
    await tail.cancel();
  });
}
