import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jobWorld, type JobWorld } from './support/job-world.js';
import { runCli, spawnCli } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;

// `runyard job logs --follow|--tail` and `--follow` at launch: the job's output itself, live
// (GET /api/runyard/jobs/{id}/events through the SDK's followJob).
describe('runyard job logs --follow', { timeout: 300_000 }, () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(() => w.close());

  const run = (args: string[]) => runCli([...args, ...w.conn], { timeoutMs: 120_000 });
  const bash = (command: string, ...more: string[]) =>
    run(['bash', 'job', '--project-name', 'demo', '--workflow-name', 'ubuntu', '--command', command, ...more]);
  const goFile = (id: string) => path.join(w.s.config.dataDir, 'storage', `runyard-${w.ws}`, w.ws, 'jobs', id, 'work', 'go');

  it("prints a running job's lines as it writes them, then exits 0 once it completed", async () => {
    const launched = await bash('echo one; echo two; while [ ! -e go ]; do sleep 0.05; done; echo three; true');
    assert.equal(launched.code, 0, launched.stderr);
    const id = launched.stdout.trim();
    assert.match(id, ID);
    const child = spawnCli(['job', 'logs', '--job-id', id, '--follow', ...w.conn]);
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    // The test reads the first lines while the job still runs: it waits for the go file.
    for (let i = 0; i < 3000 && !stdout.includes('two\n') && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(stdout.includes('two\n'), `no lines while the job runs: ${stdout} ${stderr}`);
    // The job is reported running 50 ms after its task started (RUNNING_MARK_DELAY_MS): its first lines can come
    // sooner. The go file waits until the follower has shown `running` (it samples the status: a job released at
    // once could end before its next look).
    const running = new RegExp(`Job ${id}: running\\n`);
    for (let i = 0; i < 500 && !running.test(stderr); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await w.client.getJobStatus(id, w.ws)).status, 'running');
    assert.ok(!stdout.includes('three'));
    writeFileSync(goFile(id), '');
    const code = await closed;
    assert.equal(code, 0, stderr);
    assert.ok(stdout.endsWith('one\ntwo\nthree\n'), stdout);
    assert.match(stderr, new RegExp(`Job ${id}: running\\n`));
    assert.match(stderr, new RegExp(`Job ${id}: completed\\n$`));
  });

  it('exits 1 for a failed job and 3 for an aborted one, saying so', async () => {
    const failed = await bash('echo bad; exit 5', '--follow');
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stdout, /bad\n/);
    assert.match(failed.stderr, /Job [0-9a-f]{24} failed: The task exited with code 5\./);

    const sleeper = await bash('sleep 60; true');
    const id = sleeper.stdout.trim();
    const child = spawnCli(['job', 'logs', '--job-id', id, '-f', ...w.conn]);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    for (let i = 0; i < 3000 && !stderr.includes(': running'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(stderr, /: running/);
    await w.client.abortJob(id, w.ws, true);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.equal(code, 3, stderr);
    assert.match(stderr, new RegExp(`Job ${id} was aborted`));
  });

  it('--tail N prints the last N lines so far; with --follow, then the rest', async () => {
    const launched = await bash('seq 1 50; while [ ! -e go ]; do sleep 0.05; done; echo after; true');
    const id = launched.stdout.trim();
    let tail = await run(['job', 'logs', '--job-id', id, '--tail', '3']);
    for (let i = 0; i < 200 && !tail.stdout.includes('50\n'); i++) tail = await run(['job', 'logs', '--job-id', id, '--tail', '3']);
    assert.equal(tail.code, 0, tail.stderr);
    assert.equal(tail.stdout, '48\n49\n50\n');
    const child = spawnCli(['job', 'logs', '--job-id', id, '--tail', '2', '--follow', ...w.conn]);
    let stdout = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    for (let i = 0; i < 500 && !stdout.includes('50\n'); i++) await new Promise((r) => setTimeout(r, 20));
    writeFileSync(goFile(id), '');
    assert.equal(await closed, 0);
    assert.equal(stdout, '49\n50\nafter\n');
  });
});
