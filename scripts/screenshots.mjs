#!/usr/bin/env node
// Regenerates docs/screenshots/*.png, the dashboard's main pages: starts a throwaway Runyard (the CLI's
// `runyard server start` on a free loopback port, in a temporary data directory), gives it a project,
// a few bash jobs (completed, and one failed), a file and a second user, then drives Debian's chromium
// with playwright-core at 1280x800 (and the job list at phone width, 390 px).
//
//   npm run build && node scripts/screenshots.mjs [--out DIR]
//
// A page wider than its window is reported (with the elements that stick out): the pictures are also a check.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunyardClient } from '@runyard/client';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'packages/cli/bin/runyard.js');
const WEB_DIST = path.join(ROOT, 'packages/web/dist');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const outArg = process.argv.indexOf('--out');
const OUT = outArg > 0 ? path.resolve(process.argv[outArg + 1]) : path.join(ROOT, 'docs/screenshots');

for (const [what, file] of [
  ['the dashboard (npm run build)', path.join(WEB_DIST, 'index.html')],
  ['the server (npm run build)', path.join(ROOT, 'packages/server/dist/main.js')],
  ['chromium (apt-get install chromium, or CHROMIUM=path)', CHROMIUM],
]) {
  if (!existsSync(file)) {
    console.error(`screenshots: ${what} is missing: ${file}`);
    process.exit(2);
  }
}

/** `runyard server start` with only our RUNYARD_* settings; resolves once it prints its URL and first key. */
async function startServer(dataDir) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RUNYARD_')));
  const child = spawn(process.execPath, [CLI, 'server', 'start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    env: {
      ...env,
      RUNYARD_WEB_DIR: WEB_DIST,
      RUNYARD_LOG_LEVEL: 'warn',
      // Room for the default instance type (4 vCPUs, 8 GiB) on a small machine: these jobs are tiny.
      RUNYARD_LOCAL_CPUS: '64',
      RUNYARD_LOCAL_MEMORY_GIB: '256',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const started = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in 120 s:\n${out}\n${err}`)), 120_000);
    const poll = setInterval(() => {
      const url = /URL:\s+(\S+)/.exec(out)?.[1];
      const apikey = /API key:\s+(\S+)/.exec(out)?.[1];
      const ws = /Workspace id:\s+(\S+)/.exec(out)?.[1];
      if (url && apikey && ws) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve({ url, apikey, ws });
      } else if (child.exitCode !== null) {
        clearInterval(poll);
        clearTimeout(timer);
        reject(new Error(`the server exited (${child.exitCode}):\n${out}\n${err}`));
      }
    }, 50);
  });
  return {
    ...started,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      clearTimeout(timer);
    },
  };
}

/** The jobs, files and users the pictures show. */
async function populate(client, ws, dataDir) {
  await client.createProject(ws, 'rna-seq-study');
  await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  const run = (jobName, command) =>
    client.sendJob({ workspaceId: ws, projectName: 'rna-seq-study', workflowName: 'ubuntu', workflowType: 'docker', command, jobName });
  const jobs = [];
  for (const [name, command] of [
    [
      'qc-sample-A',
      'echo "FastQC on sample A"; for i in 1 2 3 4; do echo "  chunk $i/4: 250000 reads, mean quality 36.1"; done; echo "QC passed"',
    ],
    [
      'align-sample-A',
      'echo "Aligning sample A to GRCh38"; for i in 1 2 3; do echo "  batch $i: 1204 alignments"; done; echo "Wrote sample-A.bam"',
    ],
    [
      'count-features',
      'echo "Counting features"; echo "gene_id,count"; echo "ENSG00000141510,812"; echo "ENSG00000012048,455"; echo "done"',
    ],
    ['merge-results', 'echo "Merging counts of 3 samples"; echo "error: sample-C.counts.csv is missing" >&2; exit 3'],
  ]) {
    jobs.push({ name, id: await run(name, command) });
  }
  for (const job of jobs) await client.waitJobCompletion(job.id, ws, { waitTime: 120 });

  const samples = path.join(dataDir, 'samples.csv');
  writeFileSync(samples, 'sample,condition,reads\nA,control,1000000\nB,treated,980000\nC,treated,1020000\n');
  const files = await client.datasets(ws, 'rna-seq-study');
  await files.uploadFile(samples, 'Data');

  const mia = await client.admin.createUser({ username: 'mia', email: 'mia@example.org', name: 'Mia', surname: 'Lopez' });
  await client.admin.addMember(ws, mia.id, 'member');
  await client.admin.createApiKey(mia.id, 'mia laptop');
  await client.admin.createApiKey((await client.getUserInfo()).id, 'ci pipeline');
  return { completed: jobs[1], failed: jobs[3] };
}

/** Waits until the page shows its content: its title, no loading placeholder, fonts drawn. */
async function settled(page) {
  await page.locator('h1').first().waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 20_000 }).catch(() => undefined);
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(300);
}

/** The page is no wider than its window; else what sticks out (the widest elements that end past its right edge). */
async function overflow(page) {
  return page.evaluate(() => {
    const width = window.innerWidth;
    if (document.documentElement.scrollWidth <= width) return null;
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.right > width + 1 && !el.closest('.table-wrap, pre')) {
        const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
        out.push({ what: `${el.tagName.toLowerCase()}${cls}`, right: Math.round(r.right) });
      }
    }
    out.sort((a, b) => b.right - a.right);
    return { scrollWidth: document.documentElement.scrollWidth, width, items: out.slice(0, 6) };
  });
}

async function shoot(page, name, problems) {
  await settled(page);
  mkdirSync(OUT, { recursive: true });
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file });
  const wide = await overflow(page);
  console.log(`${path.relative(ROOT, file)}  ${page.url().replace(/^https?:\/\/[^/]+/, '')}`);
  if (wide) {
    const where = wide.items.map((i) => `${i.what} (to ${i.right} px)`).join(', ');
    problems.push(`${name}: the page is ${wide.scrollWidth} px wide in a ${wide.width} px window: ${where}`);
  }
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runyard-screenshots-'));
let server;
let browser;
try {
  server = await startServer(dataDir);
  const client = new RunyardClient({ platformUrl: server.url, apikey: server.apikey });
  const { completed, failed } = await populate(client, server.ws, dataDir);
  client.close();

  browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 120_000 });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  const app = (p) => `${server.url}/app${p}`;

  await page.goto(app('/'));
  await page.getByLabel('API key').waitFor();
  await shoot(page, 'sign-in', problems);
  await page.getByLabel('API key').fill(server.apikey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname.startsWith('/app/advanced-analytics/analyses'));

  await shoot(page, 'jobs', problems);
  await page.goto(app(`/advanced-analytics/analyses/${completed.id}`));
  await page.getByText('Wrote sample-A.bam').first().waitFor({ timeout: 60_000 });
  await shoot(page, 'job', problems);
  await page.goto(app(`/advanced-analytics/analyses/${failed.id}`));
  await page
    .getByText('sample-C.counts.csv is missing')
    .first()
    .waitFor({ timeout: 60_000 })
    .catch(() => undefined);
  await shoot(page, 'job-failed', problems);
  await page.goto(app('/advanced-analytics/launch'));
  await shoot(page, 'launch', problems);
  await page.goto(app('/data'));
  await page.getByRole('link', { name: 'Data/' }).click({ timeout: 60_000 });
  await page.getByText('samples.csv').first().waitFor({ timeout: 60_000 });
  await shoot(page, 'data', problems);
  await page.goto(app('/workflows'));
  await shoot(page, 'workflows', problems);
  await page.goto(app('/projects'));
  await shoot(page, 'projects', problems);
  await page.goto(app('/data-science/interactive-analysis'));
  await shoot(page, 'sessions', problems);
  await page.goto(app('/admin/members'));
  await shoot(page, 'admin', problems);
  await page.goto(app('/admin/keys'));
  await shoot(page, 'admin-keys', problems);
  await page.goto(app('/admin/engine'));
  await shoot(page, 'admin-engine', problems);

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(app('/advanced-analytics/analyses'));
  await shoot(page, 'jobs-phone', problems);
  await page.goto(app('/admin/users'));
  await shoot(page, 'admin-phone', problems);

  await context.close();
  if (problems.length) {
    console.log(`\n${problems.length} problem(s) seen:`);
    for (const p of problems) console.log(`  - ${p}`);
  }
} finally {
  await browser?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
