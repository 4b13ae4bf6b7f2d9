// WEB for issue 14: how soon the job page is usable, on loopback. The real server (packages/server/dist)
// serves the built dashboard (packages/web/dist) and runs one bash job; Debian's chromium, driven by
// playwright-core, opens that job's page N times, each time in a fresh context (no cache, the session
// cookie only), and the time is taken in the page, from the start of the navigation until the job's
// name is its heading, its log shows the job's output, and its action buttons are there (the React
// tree has rendered the live data). Also the bundle's size, gzipped, as the server sends it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { percentile, startJobServer } from './lib/jobs.mjs';

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 20);
const TARGET_MS = 1000;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const WEB_DIST = fileURLToPath(new URL('../packages/web/dist', import.meta.url));
const LOG_LINE = 'web-bench: the output of the job';

/** The gzipped size of what a first visit downloads: index.html and every asset (JS and CSS). */
function bundleGzipBytes() {
  const assets = path.join(WEB_DIST, 'assets');
  const files = [
    path.join(WEB_DIST, 'index.html'),
    ...readdirSync(assets)
      .filter((f) => /\.(js|css)$/.test(f))
      .map((f) => path.join(assets, f)),
  ];
  return files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
}

/** The runyard_session cookie of a sign-in with the key (the dashboard's own sign-in route). */
async function sessionCookie(url, apikey) {
  const reply = await fetch(`${url}/api/runyard/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apikey }),
  });
  if (reply.status !== 200) throw new Error(`sign-in: ${reply.status} ${await reply.text()}`);
  const cookie = /runyard_session=([^;]+)/.exec(reply.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('sign-in set no runyard_session cookie');
  return { name: 'runyard_session', value: cookie, url };
}

/** Polls the job until it has ended (it is a one-line bash job). */
async function waitEnded(s, jobId) {
  for (let i = 0; i < 600; i++) {
    const job = await s.call('GET', `/api/v1/jobs/${jobId}?teamId=${s.ws}`);
    if (['completed', 'failed', 'aborted'].includes(job.status)) {
      if (job.status !== 'completed') throw new Error(`the bench job ${job.status}`);
      return job;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the bench job did not end in 60 s');
}

/** Milliseconds from navigation start until the job page shows the job, its log and its buttons. */
async function openJobPage(browser, cookie, pageUrl, jobName) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    await context.addCookies([cookie]);
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pageUrl, { waitUntil: 'commit' });
    const ready = await page.waitForFunction(
      ({ name, line }) => {
        const h1 = document.querySelector('h1');
        const buttons = document.querySelectorAll('main button').length;
        return h1?.textContent?.includes(name) && buttons > 0 && document.body.innerText.includes(line) ? performance.now() : false;
      },
      { name: jobName, line: LOG_LINE },
      { polling: 'raf', timeout: 30_000 },
    );
    const ms = await ready.jsonValue();
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    // Where the time goes: the document and the bundle (DOMContentLoaded waits for the module script), then the API calls.
    const dcl = await page.evaluate(() => performance.getEntriesByType('navigation')[0]?.domContentLoadedEventEnd ?? NaN);
    return { ms, dcl };
  } finally {
    await context.close();
  }
}

export async function run() {
  for (const [what, file] of [
    ['the dashboard (npm run build)', path.join(WEB_DIST, 'index.html')],
    ['chromium (or CHROMIUM=path)', CHROMIUM],
  ]) {
    if (!existsSync(file)) throw new Error(`WEB: ${what} is missing: ${file}`);
  }
  const s = await startJobServer({ env: { RUNYARD_WEB_DIR: WEB_DIST, RUNYARD_LOCAL_CPUS: '64', RUNYARD_LOCAL_MEMORY_GIB: '256' } });
  let browser;
  try {
    const { jobId } = await s.call('POST', `/api/v2/jobs?teamId=${s.ws}`, s.body(`echo "${LOG_LINE}"`));
    const done = await waitEnded(s, jobId);
    const cookie = await sessionCookie(s.url, s.apikey);
    const pageUrl = `${s.url}/app/advanced-analytics/analyses/${jobId}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 120_000 });
    console.log(`# WEB the job page of a completed bash job, ${RUNS} visits, each in a fresh browser context (cold cache), loopback`);
    // One visit first, not counted: the browser's first page starts its renderer.
    await openJobPage(browser, cookie, pageUrl, done.name);
    const visits = [];
    for (let i = 0; i < RUNS; i++) visits.push(await openJobPage(browser, cookie, pageUrl, done.name));
    const times = visits.map((v) => v.ms).sort((a, b) => a - b);
    const dcl = visits.map((v) => v.dcl).sort((a, b) => a - b);
    const kB = bundleGzipBytes() / 1000;
    console.log(
      `# WEB where it goes (p50): document and bundle loaded (DOMContentLoaded) ${percentile(dcl, 0.5).toFixed(0)} ms; ` +
        `then the session, the job and its log: ${(percentile(times, 0.5) - percentile(dcl, 0.5)).toFixed(0)} ms; ` +
        `slowest visit ${times[times.length - 1].toFixed(0)} ms`,
    );
    console.log(
      `WEB job page interactive: p50 ${percentile(times, 0.5).toFixed(0)} ms, p95 ${percentile(times, 0.95).toFixed(0)} ms ` +
        `(target < ${TARGET_MS} ms); bundle ${kB.toFixed(0)} kB gzip`,
    );
  } finally {
    await browser?.close();
    await s.close();
  }
}

// `node bench/web-load.mjs` runs it alone (bench/run.mjs imports it as `web`).
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await run();
