import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { freshDatabaseUrl, usingPostgres } from '../../../test/support/database.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli, spawnCli, tempDir } from './support/run-cli.js';
import { waitForOutput } from './support/child-output.js';

function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not stop within ${timeoutMs} ms`)), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('runyard server start', () => {
  it('on a fresh data directory prints the admin key, which works; SIGTERM stops it', async () => {
    const dataDir = path.join(tempDir('runyard-server-'), 'data');
    const env: Record<string, string> = {
      RUNYARD_LOG_LEVEL: 'warn',
      ...(usingPostgres() && { RUNYARD_DATABASE_URL: await freshDatabaseUrl() }),
    };
    const child = spawnCli(['server', 'start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], { env });
    child.stdin!.end();
    child.stderr!.resume();
    try {
      const m = await waitForOutput(child, /URL: +(\S+)\n {2}Workspace id: +([0-9a-f]{24})\n {2}API key: +(\S+)\n/, 30_000);
      const [, url, workspaceId, apikey] = m;
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const file = path.join(dataDir, 'initial-admin.json');
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { url, workspaceId, apikey });
      assert.equal(statSync(file).mode & 0o777, 0o600);

      const created = await runCli(['project', 'create', '--new-project', 'first', ...connectionArgs(url, apikey, workspaceId)]);
      assert.equal(created.code, 0, created.stderr);
      const listed = await runCli(['project', 'list', ...connectionArgs(url, apikey, workspaceId)]);
      assert.equal(listed.stdout.split('\t')[1], 'first');

      child.kill('SIGTERM');
      assert.equal(await waitForExit(child, 15_000), 0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('a bad option is a usage error and starts nothing', async () => {
    const r = await runCli(['server', 'start', '--port', '70000']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^Error: option '--port <port>' argument '70000' is invalid/);
  });
});
