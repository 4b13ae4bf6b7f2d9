import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { freshDatabaseUrl, usingPostgres } from '../../../test/support/database.js';
import { running, startMain, stop } from '../../../test/support/server-process.js';
import { selfSignedCertificate } from '../../../test/support/tls.js';
import { detectCgroups, parseSelfCgroup } from '../src/executors/sandbox/cgroup.js';

const count = (text: string, part: string) => text.split(part).length - 1;

describe('startup (node dist/main.js)', () => {
  // Not there yet: the server creates it.
  const dataDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-main-')), 'data');
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
      assert.equal(statSync(dataDir).mode & 0o777, 0o700, "the data directory is its owner's only");
      if (!usingPostgres()) {
        const db = path.join(dataDir, 'runyard.db');
        assert.ok(existsSync(db), 'SQLite database in the data directory');
        for (const f of [db, `${db}-wal`]) assert.equal(statSync(f).mode & 0o777, 0o600, f);
      }

      const me = await fetch(`${url}/api/v1/users/me`, { headers: { apikey } });
      assert.equal(me.status, 200);
      assert.equal((await me.json()).isAdmin, true);
      const projects = await fetch(`${url}/api/v2/projects?teamId=${workspaceId}&pageSize=10&page=1`, { headers: { apikey } });
      assert.deepEqual(await projects.json(), { total: 0, projects: [] });
      assert.equal((await fetch(`${url}/api/v1/users/me`)).status, 401);
    } finally {
      assert.equal(await stop(p), 0, p.stderr());
    }
    assert.doesNotMatch(p.stdout(), /incoming request|request completed/, 'requests are logged at debug only');
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

  it(
    "role all, where cgroup v1's cpu controller is writable: the background thread runs in runyard-dispatch, the API's thread does not",
    {
      skip: detectCgroups('auto').version === 1 ? false : 'this host has no writable cgroup v1 controllers',
    },
    async () => {
      const p = startMain(env);
      try {
        await p.waitFor(/is listening on/);
        const pid = p.child.pid!;
        const cpuGroup = (file: string) =>
          parseSelfCgroup(readFileSync(file, 'utf8')).find((l) => l.controllers.includes('cpu'))?.path ?? '';
        const moved = () =>
          readdirSync(`/proc/${pid}/task`).filter((tid) => /\/runyard-dispatch$/.test(cpuGroup(`/proc/${pid}/task/${tid}/cgroup`)));
        // The background thread may start after the API listens.
        for (const deadline = Date.now() + 30_000; moved().length === 0 && Date.now() < deadline;) await sleep(50);
        assert.equal(moved().length, 1, 'one thread: the background one');
        // Looked at once the background thread moved: the main thread stayed.
        assert.doesNotMatch(cpuGroup(`/proc/${pid}/cgroup`), /runyard-dispatch/, "the API's (main) thread");
      } finally {
        assert.equal(await stop(p), 0, p.stderr());
      }
    },
  );

  it('a bad configuration: exit code 1 and every problem on stderr', async () => {
    const p = startMain({ ...env, RUNYARD_PORT: 'eighty', RUNYARD_LOG_LEVEL: 'loud' });
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
    const code = await p.exited;
    clearTimeout(timer);
    assert.equal(code, 1);
    assert.match(p.stderr(), /RUNYARD_PORT/);
    assert.match(p.stderr(), /RUNYARD_LOG_LEVEL/);
  });
  it('a port in use: exit code 1, a message naming RUNYARD_PORT, and no data directory created', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as net.AddressInfo;
    // The SQLite default, whose file lives in the data directory, whichever database the suite uses.
    const fresh = path.join(mkdtempSync(path.join(os.tmpdir(), 'runyard-busy-')), 'data');
    try {
      const p = startMain({ RUNYARD_DATA_DIR: fresh, RUNYARD_PORT: String(port) });
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
      const code = await p.exited;
      clearTimeout(timer);
      assert.equal(code, 1);
      assert.match(p.stderr(), new RegExp(`Port ${port} is already in use on 127\\.0\\.0\\.1: .*RUNYARD_PORT`));
      assert.doesNotMatch(p.stderr(), /EADDRINUSE|at .*\.js:\d+/, 'a sentence, not a stack');
      assert.equal(existsSync(fresh), false, `created: ${existsSync(fresh) ? readdirSync(fresh).join(', ') : ''}`);
    } finally {
      busy.close();
    }
  });

  it('on a pipe, JSON log lines; RUNYARD_LOG_FORMAT=pretty: one readable line each; Ctrl-C says it is stopping', async () => {
    for (const format of ['auto', 'pretty']) {
      const p = startMain({ ...env, RUNYARD_LOG_LEVEL: 'debug', RUNYARD_LOG_FORMAT: format });
      const [, url] = await p.waitFor(/listening on (\S+)/);
      await fetch(`${url}/api/runyard/health`);
      await p.waitFor(/request completed/);
      p.child.kill('SIGINT');
      assert.equal(await p.exited, 0, p.stderr());
      const logLines = p
        .stdout()
        .split('\n')
        .filter((l) => /request completed/.test(l));
      assert.equal(logLines.length, 1, p.stdout());
      if (format === 'auto') {
        assert.equal(JSON.parse(logLines[0]).url, '/api/runyard/health');
      } else {
        assert.match(logLines[0], /^\[\d\d:\d\d:\d\d\] DEBUG: request completed .*"url":"\/api\/runyard\/health"/);
        assert.doesNotMatch(p.stdout(), /^\{/m, 'no JSON line');
      }
      assert.match(p.stdout(), /^Runyard is shutting down \(SIGINT\)/m);
      assert.match(p.stdout(), /^Runyard stopped\.$/m);
    }
  });
  it('with a certificate, the socket bound first speaks HTTPS', async () => {
    const { certFile, keyFile } = selfSignedCertificate();
    const p = startMain({ ...env, RUNYARD_TLS_CERT_FILE: certFile, RUNYARD_TLS_KEY_FILE: keyFile });
    try {
      const [, url] = await p.waitFor(/listening on (\S+)/);
      assert.match(url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const status = await new Promise<number | undefined>((resolve, reject) =>
        https.get(`${url}/api/runyard/health`, { ca: readFileSync(certFile) }, (r) => resolve(r.resume().statusCode)).on('error', reject),
      );
      assert.equal(status, 200);
    } finally {
      assert.equal(await stop(p), 0, p.stderr());
    }
  });
});
