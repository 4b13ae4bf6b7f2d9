// B2 for issue 4 (../shared/design/performance.md): job submissions per second, `POST /api/v2/jobs`
// from 8 concurrent keep-alive clients, against raw inserts of the same rows with better-sqlite3 in
// one process (a fresh database migrated by the server's own migrations, WAL and synchronous=FULL
// like the server, one INSERT per row, each its own transaction).
//
// The B2 line is an API process (role api, as beside scheduler processes): it runs no job, as the
// baseline runs none. A second line is the embedded default (role all), whose scheduler runs the
// submitted jobs meanwhile on the same cores: so that they do not swamp the machine, the jobs go to
// an admin-created default queue of concurrency 1 and run `true`; the scheduler's poll interval is
// long (each submission still wakes it, as in production).
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { newObjectId } from '@runyard/contract';
import { databaseUrlOf, migrateToLatest, openStore } from '@runyard/server';
import { startJobServer } from './lib/jobs.mjs';
import { measure } from './lib/load.mjs';
import { figure } from './lib/report.mjs';
import { scratchDir } from './lib/scratch.mjs';

const load = {
  concurrency: 8,
  warmupMs: 1000,
  durationMs: Number(process.env.BENCH_DURATION_MS ?? 5000),
};
/** The raw-insert baseline stops at whichever comes first. */
const BASELINE_MAX_ROWS = 50_000;

/** A job row the server inserted, and every row of the tables it refers to (users, workspace, project, workflow, queues...). */
function snapshot(file) {
  const db = new SQLite(file, { readonly: true });
  try {
    const job = db.prepare('select * from jobs order by created_at limit 1').get();
    const tables = db
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'runyard_migrations%' and name <> 'jobs'",
      )
      .all()
      .map((t) => t.name);
    const rows = Object.fromEntries(tables.map((t) => [t, db.prepare(`select * from "${t}"`).all()]));
    return { job, rows };
  } finally {
    db.close();
  }
}

function insertStatement(db, table, columns) {
  return db.prepare(
    `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((c) => `@${c}`).join(', ')})`,
  );
}

/** Inserts clones of the job row (new id and times, queued) one per transaction, for durationMs; answers rows/s. */
async function rawInserts(dir, { job, rows }, durationMs) {
  const file = path.join(dir, 'baseline.db');
  const store = openStore(`sqlite:${file}`);
  try {
    await migrateToLatest(store.db);
  } finally {
    await store.close();
  }
  const db = new SQLite(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      for (const [table, list] of Object.entries(rows)) {
        if (!list.length) continue;
        const insert = insertStatement(db, table, Object.keys(list[0]));
        for (const row of list) insert.run(row);
      }
    })();
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    const insert = insertStatement(db, 'jobs', Object.keys(job));
    let n = 0;
    const start = performance.now();
    const stopAt = start + durationMs;
    while (n < BASELINE_MAX_ROWS && performance.now() < stopAt) {
      const now = new Date().toISOString();
      insert.run({ ...job, id: newObjectId(), created_at: now, updated_at: now });
      n++;
    }
    return { rows: n, rps: n / ((performance.now() - start) / 1000) };
  } finally {
    db.close();
  }
}

/**
 * Submissions to a server of the given role for load.durationMs; answers the measurement and a
 * snapshot of its database. Role api runs no job (as an API process beside scheduler processes);
 * role all (the embedded default) runs the submitted jobs meanwhile, on the same cores.
 */
async function submissionsTo(role) {
  const s = await startJobServer({ env: { RUNYARD_SCHEDULER_POLL_MS: '600000', RUNYARD_ROLE: role }, queueConcurrency: 1 });
  try {
    const route = `/api/v2/jobs?teamId=${s.ws}`;
    const measured = await measure({ url: s.url + route, method: 'POST', headers: { apikey: s.apikey }, body: s.body('true'), ...load });
    if (measured.errors) throw new Error(`Runyard (role ${role}): ${measured.errors} of ${measured.requests} submissions failed`);
    return { measured, taken: snapshot(databaseUrlOf(s.server.config).replace(/^sqlite:/, '')) };
  } finally {
    // Stopped before the next measurement: a role all server's queue still holds thousands of jobs to run.
    await s.close();
  }
}

export async function run() {
  console.log(
    `# B2 POST /api/v2/jobs (bash job \`true\`, default queue of concurrency 1) on SQLite; ` +
      `${load.concurrency} keep-alive connections, ${load.durationMs / 1000} s after ${load.warmupMs / 1000} s warm-up`,
  );
  // The submission path against the same inserts: an API process (role api) runs no job, as the baseline runs none.
  const api = await submissionsTo('api');
  // The embedded default, whose scheduler runs the jobs submitted (one at a time) on the same two cores meanwhile.
  const all = await submissionsTo('all');
  const baseline = await rawInserts(scratchDir('runyard-bench-'), api.taken, load.durationMs);
  console.log(`# B2 baseline: ${baseline.rows} rows inserted by better-sqlite3, WAL, synchronous=FULL, one transaction per row`);
  console.log(figure('B2 job submissions throughput', api.measured.rps, baseline.rps, 'jobs/s'));
  console.log(`# B2 submission latency under that load: p50 ${api.measured.p50.toFixed(1)} ms, p99 ${api.measured.p99.toFixed(1)} ms`);
  console.log(figure('B2 job submissions throughput, role all (its jobs running meanwhile)', all.measured.rps, baseline.rps, 'jobs/s'));
  console.log(`# B2 role all latency: p50 ${all.measured.p50.toFixed(1)} ms, p99 ${all.measured.p99.toFixed(1)} ms`);
}
