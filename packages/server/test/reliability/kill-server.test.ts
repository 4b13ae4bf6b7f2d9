import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { freshDatabaseUrl, usingPostgres } from '../../../../test/support/database.js';
import { running, startMain, type ServerProcess } from '../../../../test/support/server-process.js';
import { jsonApi } from '../../../../test/support/json-api.js';

// T1 across the whole server: `kill -9` of the server process while jobs are being submitted and
// run; after a restart every acknowledged job exists, none is stuck, and each ran exactly once.

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function killHard(p: ServerProcess): Promise<void> {
  p.child.kill('SIGKILL');
  await p.exited;
}

describe('T1: kill -9 of the server while jobs are submitted and running', () => {
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it('loses no acknowledged job and runs each exactly once', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-t1-'));
    const marker = path.join(dir, 'runs.txt');
    const port = await freePort();
    const env: Record<string, string> = {
      RUNYARD_DATA_DIR: path.join(dir, 'data'),
      RUNYARD_PORT: String(port),
      RUNYARD_LOG_LEVEL: 'warn',
      RUNYARD_SCHEDULER_LEASE_MS: '1500',
      RUNYARD_SCHEDULER_POLL_MS: '100',
      // T1 tests crash recovery, not confinement: its jobs append to one marker file shared by all, outside their directories.
      RUNYARD_SANDBOX: 'none',
    };
    if (usingPostgres()) env.RUNYARD_DATABASE_URL = await freshDatabaseUrl();
    let server = startMain(env);
    const key = (await server.waitFor(/API key: +(\S+)/))[1];
    const ws = (await server.waitFor(/Workspace id: +([0-9a-f]{24})/))[1];
    const base = `http://127.0.0.1:${port}`;
    const api = jsonApi(
      () => base,
      () => key,
    );
    const project = (await api('POST', `/api/v1/projects?teamId=${ws}`, { name: 't1' })).json._id;
    const workflow = (
      await api('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'sh', containerName: 'library/ubuntu' })
    ).json._id;
    // Each run appends `start <id>` as it starts and `end <id>` as it ends: the marker counts how many times a
    // job's command started. Between the two it waits for the gate, so a kill finds jobs in the middle of their run.
    const gate = path.join(dir, 'gate');
    const command = `echo "start $RUNYARD_JOB_ID" >> '${marker}'; while [ ! -e '${gate}' ]; do sleep 0.05; done; echo "end $RUNYARD_JOB_ID" >> '${marker}'`;
    const lines = () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []);
    const midRun = () => {
      const ended = new Set(
        lines()
          .filter((l) => l.startsWith('end '))
          .map((l) => l.slice(4)),
      );
      return lines().filter((l) => l.startsWith('start ') && !ended.has(l.slice(6))).length;
    };

    const acknowledged: string[] = [];
    const submitOne = async (i: number) => {
      try {
        const r = await api('POST', `/api/v2/jobs?teamId=${ws}`, { project, workflow, command, name: `t1-${i}` });
        if (r.status === 200) acknowledged.push(r.json.jobId);
      } catch {
        // The connection died with the server: this submission was not acknowledged.
      }
    };
    // Submissions keep coming while the server is killed twice: once early, once with jobs running.
    const submissions: Promise<void>[] = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 25; i++) {
        submissions.push(submitOne(round * 100 + i));
        await new Promise((r) => setTimeout(r, 15));
      }
      // A slow machine answers later, not fewer: kill only once some of this round are acknowledged and, in the
      // second round, once a job is in the middle of its run (started, held at the gate).
      const ready = () => acknowledged.length >= (round + 1) * 5 && (round === 0 || midRun() > 0);
      for (let i = 0; i < 1200 && !ready(); i++) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 250));
      if (round === 1) assert.ok(midRun() > 0, 'the second kill finds a job between its start and its end');
      await killHard(server);
      await Promise.allSettled(submissions);
      server = startMain(env);
      await server.waitFor(/listening/);
    }
    assert.ok(acknowledged.length >= 10, `only ${acknowledged.length} submissions were acknowledged`);
    writeFileSync(gate, '');

    const deadline = Date.now() + 60_000;
    let statuses: string[] = [];
    while (Date.now() < deadline) {
      statuses = await Promise.all(
        acknowledged.map(async (id) => (await api('GET', `/api/v1/jobs/${id}?teamId=${ws}`)).json.status ?? 'missing'),
      );
      if (statuses.every((s) => s === 'completed')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(
      statuses.filter((s) => s !== 'completed'),
      [],
      'every acknowledged job exists and completed after the restarts',
    );
    const starts = lines().filter((l) => l.startsWith('start '));
    for (const id of acknowledged) {
      assert.equal(starts.filter((l) => l === `start ${id}`).length, 1, `job ${id} started once`);
      assert.equal(lines().filter((l) => l === `end ${id}`).length, 1, `job ${id} ended once`);
    }
    assert.equal(new Set(starts).size, starts.length, 'no job started twice, acknowledged or not');
    server.child.kill('SIGTERM');
    await server.exited;
  });
});
