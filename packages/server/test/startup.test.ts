import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabaseUrl, usingPostgres } from '../../../test/support/database.js';
import { running, startMain, stop } from '../../../test/support/server-process.js';

const count = (text: string, part: string) => text.split(part).length - 1;

describe('startup (node dist/main.js)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-main-'));
  const env: Record<string, string> = { RUNYARD_DATA_DIR: dataDir, RUNYARD_PORT: '0' };
  let first: { url: string; workspaceId: string; apikey: string };
  before(async () => {
    if (usingPostgres()) env.RUNYARD_DATABASE_URL = await freshDatabaseUrl();
  });
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it('first start: prints the URL, workspace id and key once, writes initial-admin.json (mode 600), exits 0 on SIGTERM', async () => {
    const p = startMain(env);
    try {
      const [, url] = await p.waitFor(/URL:\s+(\S+)/);
      const [, workspaceId] = await p.waitFor(/Workspace id:\s+([0-9a-f]{24})\b/);
      const [, apikey] = await p.waitFor(/API key:\s+(\S+)/);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      first = { url, workspaceId, apikey };

      const file = path.join(dataDir, 'initial-admin.json');
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      assert.deepEqual(Object.keys(saved).sort(), ['apikey', 'url', 'workspaceId']);
      assert.deepEqual(saved, first);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      if (!usingPostgres()) assert.ok(existsSync(path.join(dataDir, 'runyard.db')), 'SQLite database in the data directory');

      const me = await fetch(`${url}/api/v1/users/me`, { headers: { apikey } });
      assert.equal(me.status, 200);
      assert.equal((await me.json()).isAdmin, true);
      const projects = await fetch(`${url}/api/v2/projects?teamId=${workspaceId}&pageSize=10&page=1`, { headers: { apikey } });
      assert.deepEqual(await projects.json(), { total: 0, projects: [] });
      assert.equal((await fetch(`${url}/api/v1/users/me`)).status, 401);
    } finally {
      assert.equal(await stop(p), 0, p.stderr());
    }
    assert.match(p.stdout(), /"msg":"incoming request"/, 'the request log is on stdout');
    assert.equal(count(p.stdout(), first.apikey), 1, 'the key is printed once and never logged');
    assert.equal(count(p.stderr(), first.apikey), 0);
  });

  it('second start on the same data: prints no key, keeps the file, and the first key still works', async () => {
    assert.ok(first, 'the first start ran');
    const before = readFileSync(path.join(dataDir, 'initial-admin.json'), 'utf8');
    const p = startMain(env);
    try {
      const [, url] = await p.waitFor(/listening on (\S+)/);
      const me = await fetch(`${url}/api/v1/users/me`, { headers: { APIKEY: first.apikey } });
      assert.equal(me.status, 200);
    } finally {
      assert.equal(await stop(p), 0, p.stderr());
    }
    assert.doesNotMatch(p.stdout(), /API key|First start/);
    assert.equal(count(p.stdout(), first.apikey), 0);
    assert.equal(readFileSync(path.join(dataDir, 'initial-admin.json'), 'utf8'), before);
  });

  it('a bad configuration: exit code 1 and every problem on stderr', async () => {
    const p = startMain({ ...env, RUNYARD_PORT: 'eighty', RUNYARD_LOG_LEVEL: 'loud' });
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
    const code = await p.exited;
    clearTimeout(timer);
    assert.equal(code, 1);
    assert.match(p.stderr(), /RUNYARD_PORT/);
    assert.match(p.stderr(), /RUNYARD_LOG_LEVEL/);
  });
});
