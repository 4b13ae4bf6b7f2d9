// B1's measurement: a route of the server under load, then a bare node:http server answering the
// same JSON under the same load, each printed as throughput, p50 and p99 with its ratio.
import { startBareServer } from './bare-server.mjs';
import { measure } from './load.mjs';
import { loadFigures } from './report.mjs';

export const listLoad = {
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
  warmupMs: 1000,
  durationMs: Number(process.env.BENCH_DURATION_MS ?? 5000),
};

/** name: the figures' name; what: the header line's description; body: the reply the bare server sends. */
export async function measureAgainstBare({ name, what, url, route, headers, body }) {
  const bare = await startBareServer(body);
  try {
    console.log(
      `# ${what} (${body.length} bytes); ${listLoad.concurrency} keep-alive connections, ` +
        `${listLoad.durationMs / 1000} s after ${listLoad.warmupMs / 1000} s warm-up`,
    );
    const measured = await measure({ url: url + route, headers, ...listLoad });
    const baseline = await measure({ url: bare.url + route, headers, ...listLoad });
    for (const [who, m] of [
      ['Runyard', measured],
      ['baseline', baseline],
    ]) {
      if (m.errors) throw new Error(`${who}: ${m.errors} of ${m.requests} requests failed`);
    }
    for (const line of loadFigures(name, measured, baseline)) console.log(line);
  } finally {
    await bare.close();
  }
}
