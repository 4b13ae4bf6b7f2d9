import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { sessionDirsOf } from '../../src/scheduler/session-runner.js';
import { cookieOf, request } from '../sessions-runtime/proxy-app.js';
import { call } from '../wire.js';
import { runningSessionWorld, type RunningSessionWorld } from './running-world.js';
import { JUPYTER_INSTALLED } from './world.js';
import { isNotebookFailure } from '../../../../test/support/notebook-responses.js';

const CHROMIUM = '/usr/bin/chromium';

/**
 * A person opens a Jupyter session in a browser (headless Chromium, driven with playwright-core)
 * from the platform: the link the platform gives (`POST .../ui-link`), the proxy's launch page,
 * the notebook UI with every file it loads, its kernel over WebSocket, and a cell that runs.
 */
describe(
  'a Jupyter session in the browser',
  { skip: (!JUPYTER_INSTALLED && 'jupyter is not installed') || (!existsSync(CHROMIUM) && `no ${CHROMIUM}`), timeout: 600_000 },
  () => {
    let w: RunningSessionWorld;
    before(async () => {
      w = await runningSessionWorld();
    });
    after(() => w.close());

    it('opens the notebook from the platform link and runs a cell', async () => {
      const created = await w.session({ backend: 'regular', name: 'in-the-browser' });
      await w.until(created._id, ['ready']);
      const linkOf = async () => {
        const r = await call(
          w.s,
          'POST',
          `/api/runyard/interactive-sessions/${created._id}/ui-link?teamId=${w.ws}`,
          undefined,
          w.s.admin.apikey,
        );
        assert.equal(r.statusCode, 200, r.body);
        return r.json().url as string;
      };
      // A notebook with one cell, saved through the proxy as the UI's "New" would.
      const base = `/api/runyard/interactive-sessions/${created._id}/ui/`;
      const cookie = cookieOf(await request(await linkOf()));
      const notebook = {
        type: 'notebook',
        content: {
          cells: [
            {
              cell_type: 'code',
              source: "open('from-the-browser.txt', 'w').write('ok')\nprint('ran in the browser')",
              metadata: {},
              outputs: [],
              execution_count: null,
            },
          ],
          metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
          nbformat: 4,
          nbformat_minor: 4,
        },
      };
      const put = await request(`${w.sessionsUrl}${base}api/contents/browser.ipynb`, {
        method: 'PUT',
        body: JSON.stringify(notebook),
        headers: { cookie, 'content-type': 'application/json', origin: w.sessionsUrl },
      });
      assert.equal(put.status, 201, put.body);

      const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 120_000 });
      try {
        const page = await browser.newPage();
        const failed: string[] = [];
        page.on('response', (r) => {
          if (isNotebookFailure(r.status(), r.url())) failed.push(`${r.status()} ${r.url()}`);
        });
        // The platform's link (on the sessions' own origin) opens the session's tree; from there the person opens the notebook.
        await page.goto(await linkOf(), { timeout: 120_000 });
        // Without the token (the cookie now), on Jupyter's file tree.
        await page.waitForURL((u) => u.href.startsWith(`${w.sessionsUrl}${base}tree`) && !u.searchParams.has('token'), {
          timeout: 120_000,
        });
        const opened = `${w.sessionsUrl}${base}notebooks/browser.ipynb`;
        await page.goto(opened, { timeout: 120_000 });
        await page.waitForFunction(
          () => {
            const j = window as unknown as { Jupyter?: { notebook?: { kernel?: { is_connected(): boolean; info_reply?: unknown } } } };
            return Boolean(j.Jupyter?.notebook?.kernel?.is_connected() && j.Jupyter.notebook.kernel.info_reply);
          },
          undefined,
          { timeout: 180_000 },
        );
        await page.evaluate(() =>
          (window as unknown as { Jupyter: { notebook: { execute_all_cells(): void } } }).Jupyter.notebook.execute_all_cells(),
        );
        await page.locator('.output_subarea', { hasText: 'ran in the browser' }).waitFor({ timeout: 180_000 });
        assert.equal(readFileSync(path.join(sessionDirsOf(w.s.config, created._id).home, 'from-the-browser.txt'), 'utf8'), 'ok');
        assert.deepEqual(failed, []);
      } finally {
        await browser.close();
      }
    });
  },
);
