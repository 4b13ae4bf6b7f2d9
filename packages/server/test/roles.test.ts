import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freshDatabaseUrl, usingPostgres } from '../../../test/support/database.js';
import { jsonApi } from '../../../test/support/json-api.js';
import { running, startMain, stop } from '../../../test/support/server-process.js';

// Process roles (RUNYARD_ROLE, `runyard server start --role`): an API-only process runs no job, a
// scheduler-only process serves nothing, and the two share one database.

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('process roles', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-roles-'));
  const env: Record<string, string> = {
    RUNYARD_DATA_DIR: path.join(dir, 'data'),
    RUNYARD_LOG_LEVEL: 'warn',
    RUNYARD_SCHEDULER_POLL_MS: '100',
  };
  before(async () => {
    if (usingPostgres()) env.RUNYARD_DATABASE_URL = await freshDatabaseUrl();
  });
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it('a job submitted to an api process stays queued until a scheduler process on the same database runs it; the scheduler serves no port', async () => {
    const port = await freePort();
    const apiProcess = startMain({ ...env, RUNYARD_ROLE: 'api', RUNYARD_PORT: String(port) });
    try {
      await apiProcess.waitFor(/Role api: this process runs no job/);
      const key = (await apiProcess.waitFor(/API key: +(\S+)/))[1];
      const ws = (await apiProcess.waitFor(/Workspace id: +([0-9a-f]{24})/))[1];
      const api = jsonApi(
        () => `http://127.0.0.1:${port}`,
        () => key,
      );
      const project = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 'roles' })).json._id;
      const workflow = (
        await api('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'sh', containerName: 'library/ubuntu' })
      ).json._id;
      const submitted = await api('POST', `/api/v2/jobs?teamId=${ws}`, { project, workflow, command: 'echo ran', name: 'roles' });
      assert.equal(submitted.status, 200, JSON.stringify(submitted.json));
      const jobId = submitted.json.jobId as string;
      const status = async () => (await api('GET', `/api/v1/jobs/${jobId}?teamId=${ws}`)).json.status as string;
      // Many poll intervals of a scheduler, had there been one in this process.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await status(), 'queued', 'an api process runs no job');

      const schedulerPort = await freePort();
      const scheduler = startMain({ ...env, RUNYARD_ROLE: 'scheduler', RUNYARD_PORT: String(schedulerPort) });
      try {
        await scheduler.waitFor(/scheduler \S+ is running \(database: (sqlite|postgres)\); role scheduler serves no API/);
        let now = await status();
        for (let i = 0; i < 600 && now !== 'completed' && now !== 'failed'; i++) {
          await new Promise((r) => setTimeout(r, 100));
          now = await status();
        }
        assert.equal(now, 'completed', scheduler.stdout() + scheduler.stderr());
        assert.ok(await refused(schedulerPort), 'the scheduler process listens on no port');
        assert.doesNotMatch(scheduler.stdout(), /API key:/, 'a scheduler process creates no admin');
      } finally {
        assert.equal(await stop(scheduler), 0, scheduler.stderr());
      }
    } finally {
      assert.equal(await stop(apiProcess), 0, apiProcess.stderr());
    }
  });

  it('an unknown role is a configuration error naming RUNYARD_ROLE (exit code 1)', async () => {
    const p = startMain({ ...env, RUNYARD_ROLE: 'worker', RUNYARD_PORT: '0' });
    assert.equal(await p.exited, 1);
    assert.match(p.stderr(), /RUNYARD_ROLE/);
  });
});
