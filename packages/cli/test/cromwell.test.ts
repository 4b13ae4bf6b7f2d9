import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshDatabaseUrl, usingPostgres } from '../../../test/support/database.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, spawnCli, tempDir } from './support/run-cli.js';

// runyard cromwell status|start|stop|restart (-t/--cromwell-token), admin engine-token show|rotate
// and admin workspace set-engine, against a real server (toil-wdl-runner is on its task PATH).

describe('runyard cromwell, admin engine-token, admin workspace set-engine', { timeout: 180_000 }, () => {
  let s: TestServer;
  let conn: string[];
  before(async () => {
    s = await startTestServer({ listen: true });
    conn = connectionArgs(s.url, s.admin.apikey, s.admin.workspaceId);
  });
  after(() => s.close());

  const run = (args: string[]) => runCli([...args, ...conn]);
  async function ok(args: string[]): Promise<{ stdout: string; stderr: string }> {
    const r = await run(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r;
  }

  it('status: the status alone on stdout and a line for people on stderr; json and csv', async () => {
    const r = await ok(['cromwell', 'status']);
    assert.equal(r.stdout, 'Stopped\n');
    assert.match(
      r.stderr,
      new RegExp(`^The WDL engine server [0-9a-f]{24} of workspace ${s.admin.workspaceId} \\(toil\\) is Stopped\\.\\n$`),
    );
    const json = JSON.parse((await ok(['cromwell', 'status', '--output-format', 'json'])).stdout);
    assert.deepEqual([json.status, json.driver, json.workspace], ['Stopped', 'toil', s.admin.workspaceId]);
    const csv = (await ok(['cromwell', 'status', '--output-format', 'csv'])).stdout.split('\n');
    assert.equal(csv[0], '_id,status,driver,url,workspace,statusMessage,createdAt,updatedAt');
    assert.ok(csv[1].startsWith(`${json._id},Stopped,toil,,${s.admin.workspaceId},,`), csv[1]);
  });

  it('start waits until it runs and prints the status; stop stops it; restart starts it again', async () => {
    const started = await ok(['cromwell', 'start']);
    assert.equal(started.stdout, 'Running\n');
    assert.match(started.stderr, /\(toil\) is Running\./);
    assert.equal((await ok(['cromwell', 'status'])).stdout, 'Running\n');
    assert.equal((await ok(['cromwell', 'stop'])).stdout, 'Stopped\n');
    assert.equal((await ok(['cromwell', 'restart', '--wait-time', '10'])).stdout, 'Running\n');
    assert.equal((await ok(['cromwell', 'stop'])).stdout, 'Stopped\n');
  });

  it('-t/--cromwell-token: the engine token from admin engine-token show works; a rotated one exits 4', async () => {
    const shown = await ok(['admin', 'engine-token', 'show']);
    const token = shown.stdout.trim();
    assert.match(token, /^ryc_[A-Za-z0-9_-]{43}$/);
    assert.equal((await ok(['cromwell', 'status', '-t', token])).stdout, 'Stopped\n');
    assert.equal((await ok(['cromwell', 'start', '--cromwell-token', token])).stdout, 'Running\n');
    const rotated = await ok(['admin', 'engine-token', 'rotate']);
    const fresh = rotated.stdout.trim();
    assert.notEqual(fresh, token);
    assert.match(rotated.stderr, /the old one no longer works/);
    const refused = await run(['cromwell', 'status', '-t', token]);
    assert.equal(refused.code, 4, refused.stderr);
    assert.match(refused.stderr, /engine token is not valid or has been rotated/);
    assert.ok(!refused.stderr.includes(token), 'the token is not printed back');
    assert.equal((await ok(['cromwell', 'stop', '-t', fresh])).stdout, 'Stopped\n');
  });

  it('set-engine: the driver while stopped; a start that cannot happen fails (exit 1) saying why; 409 while running', async () => {
    const set = await ok(['admin', 'workspace', 'set-engine', '--driver', 'cromwell', '--cromwell-url', 'http://127.0.0.1:1']);
    assert.equal(set.stdout, 'cromwell\n');
    assert.match(set.stderr, /\(cromwell at http:\/\/127\.0\.0\.1:1\) is Stopped/);
    const failed = await run(['cromwell', 'start']);
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /the Cromwell server at http:\/\/127\.0\.0\.1:1 does not answer/);
    assert.equal((await ok(['admin', 'workspace', 'set-engine', '--driver', 'toil'])).stdout, 'toil\n');
    await ok(['cromwell', 'start']);
    const busy = await run(['admin', 'workspace', 'set-engine', '--driver', 'miniwdl']);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /is Running: stop it first/);
    const bad = await run(['admin', 'workspace', 'set-engine', '--driver', 'spark']);
    assert.equal(bad.code, 2);
  });

  it('usage errors: an unknown subcommand, a bad --wait-time', async () => {
    assert.equal((await run(['cromwell', 'launch'])).code, 2);
    assert.equal((await run(['cromwell', 'start', '--wait-time', 'soon'])).code, 2);
  });

  it('server start prints the WDL driver new workspaces get', async () => {
    const env: Record<string, string> = {
      RUNYARD_LOG_LEVEL: 'warn',
      RUNYARD_WDL_ENGINE: 'cromwell',
      RUNYARD_CROMWELL_URL: 'http://cromwell.example.org:8000',
      ...(usingPostgres() && { RUNYARD_DATABASE_URL: await freshDatabaseUrl() }),
    };
    const child = spawnCli(['server', 'start', '--port', '0', '--data-dir', tempDir('runyard-engine-banner-')], { env });
    child.stdin!.end();
    child.stderr!.resume();
    let out = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no WDL engine line in: ${out}`)), 60_000);
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          if (/API key:/.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      assert.match(out, /\nWDL engine: cromwell at http:\/\/cromwell\.example\.org:8000 for new workspaces \(RUNYARD_WDL_ENGINE;/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
