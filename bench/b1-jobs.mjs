// B1 (job list) for issue 15 (../shared/design/performance.md): `GET /api/v2/jobs`, limit 100,
// with 100,000 jobs stored, against a bare node:http server answering the same JSON.
import { databaseUrlOf } from '@runyard/server';
import { measureAgainstBare } from './lib/against-bare.mjs';
import { startJobServer, untilEnded } from './lib/jobs.mjs';
import { storeJobCopies } from './lib/stored-jobs.mjs';

const JOBS = Number(process.env.BENCH_B1_JOBS ?? 100_000);

export async function run() {
  const s = await startJobServer({ queueConcurrency: 1 });
  try {
    const first = await s.call('POST', `/api/v2/jobs?teamId=${s.ws}`, s.body('true'));
    await untilEnded(s.call, s.ws, first.jobId);
    await storeJobCopies(databaseUrlOf(s.server.config), first.jobId, JOBS - 1);

    const route = `/api/v2/jobs?teamId=${s.ws}&limit=100`;
    const headers = { apikey: s.apikey };
    const reply = await fetch(s.url + route, { headers });
    const body = await reply.text();
    const parsed = JSON.parse(body);
    if (reply.status !== 200 || parsed.jobs?.length !== 100 || parsed.paginationMetadata?.['Pagination-Count'] !== JOBS) {
      throw new Error(`unexpected reply ${reply.status}: ${body.slice(0, 300)}`);
    }
    await measureAgainstBare({
      name: 'B1 job list',
      what: `B1 GET /api/v2/jobs, ${JOBS} jobs on SQLite, limit=100`,
      url: s.url,
      route,
      headers,
      body,
    });
  } finally {
    await s.close();
  }
}
