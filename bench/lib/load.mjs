// Bounded HTTP load from a child process, so that the server under test keeps its own event loop:
// `concurrency` keep-alive connections, each sending its next request as soon as the last reply has
// ended, for `warmupMs` (not counted) and then `durationMs`. Loopback targets only. GET by default;
// with `method` and a JSON `body`, every request sends that body.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { assertLoopback } from './loopback.mjs';
import { atBenchPriority, benchPriorityEnv } from './priority.mjs';

const thisFile = fileURLToPath(import.meta.url);
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Measures `GET url` (or `method url` with `body`) under load; a reply other than expectStatus counts as an error.
 * @returns {Promise<{requests: number, errors: number, rps: number, p50: number, p99: number}>} latencies in ms
 */
export function measure({
  url,
  method = 'GET',
  headers = {},
  body,
  expectStatus = 200,
  concurrency = 16,
  warmupMs = 1000,
  durationMs = 5000,
}) {
  assertLoopback(url);
  return new Promise((resolve, reject) => {
    const child = fork(thisFile, [], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: benchPriorityEnv() });
    const limit = setTimeout(() => child.kill('SIGKILL'), warmupMs + durationMs + REQUEST_TIMEOUT_MS + 5000);
    child.once('message', (result) => resolve(result));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(limit);
      reject(new Error(`load generator exited with ${code} before reporting`)); // a no-op once resolved
    });
    child.send({ url, method, headers, body, expectStatus, concurrency, warmupMs, durationMs });
  });
}

function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
}

async function run({ url, method, headers, body, expectStatus, concurrency, warmupMs, durationMs }) {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  if (payload) headers = { ...headers, 'content-type': 'application/json', 'content-length': payload.length };
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const start = performance.now();
  const measureFrom = start + warmupMs;
  const stopAt = measureFrom + durationMs;
  const latencies = [];
  let errors = 0;
  let lastEnd = measureFrom;

  const once = () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const counted = t0 >= measureFrom;
      const req = http.request(url, { method, agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          const t1 = performance.now();
          if (counted) {
            latencies.push(t1 - t0);
            lastEnd = Math.max(lastEnd, t1);
            if (res.statusCode !== expectStatus) errors++;
          }
          resolve();
        });
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('request timed out')));
      req.on('error', () => {
        if (counted) errors++;
        resolve();
      });
      req.end(payload);
    });

  const lane = async () => {
    while (performance.now() < stopAt) await once();
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const seconds = (lastEnd - measureFrom) / 1000;
  return {
    requests: latencies.length,
    errors,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

if (process.argv[1] === thisFile && process.send) {
  atBenchPriority();
  process.once('message', async (options) => {
    process.send(await run(options), () => process.exit(0));
  });
}
