import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { freshDatabaseUrl, usingPostgres } from '../../../../test/support/database.js';
import { jsonApi } from '../../../../test/support/json-api.js';
import { running, startMain, stop, type ServerProcess } from '../../../../test/support/server-process.js';
import { slurmClusterUp } from '../../../../test/support/slurm-cluster.js';

// Issue 10: two API processes and two schedulers on one PostgreSQL database, jobs on the real Slurm
// cluster; one scheduler is killed with SIGKILL half-way. Every job runs once and ends once, and the
// survivor adopts the dead scheduler's jobs once their leases run out.

const JOBS = 500;
const LEASE_MS = 3000;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('scale-out: two API processes, two schedulers, Slurm, kill -9 of a scheduler', { timeout: 900_000 }, () => {
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });

  it(
    `${JOBS} jobs submitted across both APIs each run once and end once; the survivor adopts the dead scheduler's jobs`,
    {
      skip: usingPostgres() ? false : 'several scheduler processes share a PostgreSQL database (docs/scaling.md)',
    },
    async () => {
      slurmClusterUp();
      const shared = mkdtempSync(path.join(os.tmpdir(), 'runyard-scale-'));
      const marker = path.join(shared, 'runs.txt');
      const databaseUrl = await freshDatabaseUrl();
      const env: Record<string, string> = {
        RUNYARD_DATA_DIR: path.join(shared, 'data'),
        RUNYARD_DATABASE_URL: databaseUrl,
        RUNYARD_LOG_LEVEL: 'warn',
        RUNYARD_SCHEDULER_LEASE_MS: String(LEASE_MS),
        RUNYARD_SCHEDULER_POLL_MS: '200',
        RUNYARD_SLURM_POLL_MS: '300',
        // The jobs append to one marker file shared by all, outside their directories.
        RUNYARD_SANDBOX: 'none',
      };
      const ports = [await freePort(), await freePort()];
      const first = startMain({ ...env, RUNYARD_ROLE: 'api', RUNYARD_PORT: String(ports[0]) });
      const key = (await first.waitFor(/API key: +(\S+)/))[1];
      const ws = (await first.waitFor(/Workspace id: +([0-9a-f]{24})/))[1];
      const second = startMain({ ...env, RUNYARD_ROLE: 'api', RUNYARD_PORT: String(ports[1]) });
      await second.waitFor(/listening/);
      const schedulers: ServerProcess[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const s = startMain({ ...env, RUNYARD_ROLE: 'scheduler', RUNYARD_PORT: '0' });
        ids.push((await s.waitFor(/scheduler (\S+) is running/))[1]);
        schedulers.push(s);
      }
      const apis = ports.map((port) =>
        jsonApi(
          () => `http://127.0.0.1:${port}`,
          () => key,
        ),
      );
      const cluster = await apis[0]('POST', '/api/runyard/admin/hpc', { name: 'dev', partitions: ['debug'], sharedDirectory: shared });
      assert.equal(cluster.status, 201, JSON.stringify(cluster.json));
      const hpc = cluster.json.id;
      const project = (await apis[0]('POST', `/api/v1/projects?teamId=${ws}`, { name: 'scale' })).json._id;
      const workflow = (
        await apis[0]('POST', '/api/runyard/admin/workflows/docker', { workspaceId: ws, name: 'sh', containerName: 'library/ubuntu' })
      ).json._id;
      const command = `echo "$RUNYARD_JOB_ID" >> '${marker}'`;

      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const submitted: string[] = [];
        for (let i = 0; i < JOBS; i += 10) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(10, JOBS - i) }, (_, k) =>
              apis[(i + k) % 2]('POST', `/api/v2/jobs?teamId=${ws}`, {
                project,
                workflow,
                command,
                name: `scale-${i + k}`,
                executionPlatform: 'hpc',
                hpc,
                resourceRequirements: { cpu: 1, ram: 1 },
              }),
            ),
          );
          for (const r of batch) {
            assert.equal(r.status, 200, JSON.stringify(r.json));
            submitted.push(r.json.jobId);
          }
        }
        const runs = () => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []);
        for (let i = 0; i < 6000 && runs().length < JOBS / 2; i++) await sleep(100);
        assert.ok(runs().length >= JOBS / 2, `only ${runs().length} jobs ran`);

        // Half-way: the first scheduler dies without a word; what it held is adopted after its leases.
        const held = async () =>
          (
            await db.query<{ id: string }>(
              `select id from jobs where lease_owner = $1 and status in ('scheduled', 'initializing', 'running', 'aborting')`,
              [ids[0]],
            )
          ).rows.map((r) => r.id);
        schedulers[0].child.kill('SIGKILL');
        await schedulers[0].exited;
        const killedAt = Date.now();
        const orphans = await held();
        let adoptedAfterMs = 0;
        while ((await held()).length) {
          adoptedAfterMs = Date.now() - killedAt;
          assert.ok(
            adoptedAfterMs < LEASE_MS + 60_000,
            `the survivor had not adopted ${(await held()).length} jobs after ${adoptedAfterMs} ms`,
          );
          await sleep(100);
        }

        for (let i = 0; i < 6000; i++) {
          const { rows } = await db.query<{ n: string }>(
            `select count(*) as n from jobs where status in ('completed', 'failed', 'aborted')`,
          );
          if (Number(rows[0].n) === JOBS) break;
          await sleep(200);
        }
        const { rows } = await db.query<{ status: string; n: string }>('select status, count(*) as n from jobs group by status');
        assert.deepEqual(
          rows.map((r) => `${r.status}: ${r.n}`),
          [`completed: ${JOBS}`],
          `every job completed (${orphans.length} were held by the killed scheduler)`,
        );
        const ran = runs();
        for (const id of submitted)
          assert.equal(ran.filter((r) => r === id).length, 1, `job ${id} ran ${ran.filter((r) => r === id).length} times`);
        assert.equal(ran.length, JOBS, 'no job ran twice');
        // Settled jobs keep no lease; what matters is that the killed scheduler held some when it died.
        assert.ok(orphans.length > 0, 'the killed scheduler held jobs when it died');
      } finally {
        await db.end();
        await stop(schedulers[1]);
        await Promise.all([stop(first), stop(second)]);
      }
    },
  );
});
