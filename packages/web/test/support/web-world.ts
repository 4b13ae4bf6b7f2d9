import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunyardClient } from '@runyard/client';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createGitMirror, type GitMirror } from '../../../../test/support/git-repos.js';
import { startRunningServer, type RunningServer } from '../../../../test/support/running-server.js';
import { jobPaths } from '../../../server/src/scheduler/job-paths.js';

/** Debian's chromium (`.ci/run` installs it); playwright-core drives it, no browser download. */
export const CHROMIUM = '/usr/bin/chromium';
/** Why the browser tests cannot run here (no Chromium), or false: `describe('...', { skip: NO_BROWSER }, ...)`. */
export const NO_BROWSER: string | false = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium)`;
/** The built dashboard (`npm run build` makes it; `npm test` builds first). */
export const WEB_DIST = fileURLToPath(new URL('../../dist', import.meta.url));

export interface WebWorld {
  s: RunningServer;
  ws: string;
  /** A client with the admin key, to set up and to check what the pages did. */
  client: RunyardClient;
  mirror: GitMirror;
  browser: Browser;
  /** A fresh browser context (its own cookies), signed in with `apikey` (the admin's by default), on the jobs page. */
  signedIn(apikey?: string): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  /**
   * Writes files (name: text) into a job's logs folder, where the server keeps it (the local store):
   * what an engine leaves beside the job log (a WDL job's engine.log, its calls' call-<task>.stdout).
   */
  writeJobLogs(jobId: string, files: Record<string, string>, workspaceId?: string): void;
  close(): Promise<void>;
}

/**
 * A listening server that runs jobs and serves the built dashboard, with a project "demo", a
 * container workflow "ubuntu" and a Nextflow workflow "rnatoy" from a local git mirror, and one
 * Chromium for the file's tests.
 */
export async function webWorld(env: NodeJS.ProcessEnv = {}): Promise<WebWorld> {
  if (!existsSync(`${WEB_DIST}/index.html`)) throw new Error(`The dashboard is not built (${WEB_DIST}): run npm run build first.`);
  const mirror = createGitMirror();
  const repo = mirror.create('acme/rnatoy', {
    files: { 'main.nf': 'workflow {}\n', 'nextflow.config': 'params.greeting = "hi"\n' },
    branches: { dev: { 'dev.txt': 'dev' } },
    tags: { 'v1.0': { message: 'release' } },
  });
  const s = await startRunningServer({ RUNYARD_GIT_URL_REWRITES: JSON.stringify(mirror.rewrites), RUNYARD_WEB_DIR: WEB_DIST, ...env });
  const ws = s.admin.workspaceId;
  const client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
  await client.createProject(ws, 'demo');
  await client.admin.createDockerWorkflow({ workspaceId: ws, name: 'ubuntu', containerName: 'library/ubuntu:22.04' });
  await client.importWorkflow(ws, { workflowUrl: repo.url, workflowName: 'rnatoy', repositoryPlatform: 'github' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 120_000 });
  return {
    s,
    ws,
    client,
    mirror,
    browser,
    async signedIn(apikey = s.admin.apikey) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.goto(`${s.url}/app/`);
      await page.getByLabel('API key').fill(apikey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname.startsWith('/app/advanced-analytics/analyses'));
      return { context, page, problems };
    },
    writeJobLogs(jobId, files, workspaceId = ws) {
      const dir = jobPaths(s.config.dataDir, workspaceId, jobId).logs;
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    },
    async close() {
      await browser.close();
      client.close();
      await s.close();
      mirror.remove();
    },
  };
}

/**
 * What went wrong on a page that a test should not let pass unnoticed: script errors and server
 * errors (5xx). A 4xx can be the expected answer (a job of another workspace), so tests check those themselves.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 500) problems.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  return problems;
}
