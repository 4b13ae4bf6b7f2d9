import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium } from 'playwright-core';
import { WebSocket } from 'ws';
import { jupyterStatus, jupyterTask, SessionNotReadyError, waitForJupyter, type JupyterTask } from '../../src/engines/session/jupyter.js';
import type { Executor, ExternalId, TaskEnd } from '../../src/executors/executor.js';
import { findOnPath } from '../../src/executors/find-executable.js';
import { createExecutors } from '../../src/executors/registry.js';
import { SessionUiTokens } from '../../src/http/session-ui-token.js';
import { cmdlinesHolding } from '../engines/cmdlines.js';
import { execute } from './kernel.js';
import { cookieOf, request, startProxyApp, type ProxyApp } from './proxy-app.js';
import { isNotebookFailure } from '../../../../test/support/notebook-responses.js';

/**
 * A real Jupyter Notebook session, run by the local executor in its bubblewrap sandbox as in
 * production, reached through the platform's proxy on a real server: its pages, its REST API and
 * a kernel over WebSocket.
 */

const SESSION = '0123456789abcdef01234567';
const MEMBER = '111111111111111111111111';
const CHROMIUM = '/usr/bin/chromium';
const hasJupyter = Boolean(findOnPath('jupyter', process.env.PATH ?? '')) && Boolean(findOnPath('bwrap', process.env.PATH ?? ''));

/** The pids of a process and all its descendants (read from /proc). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // ended meanwhile
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Inodes of the TCP sockets (any state) of the network namespace a process is in. */
function tcpInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['tcp', 'tcp6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${file}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) inodes.add(line.trim().split(/\s+/)[9]!);
  }
  return inodes;
}

/** Inodes of the sockets a process holds open. */
function socketInodes(pid: number): string[] {
  const out: string[] = [];
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) out.push(m[1]!);
      } catch {
        // closed meanwhile
      }
    }
  } catch {
    // ended meanwhile
  }
  return out;
}

describe(
  'a Jupyter session in the sandbox, through the proxy',
  { skip: !hasJupyter && 'jupyter or bwrap is not installed', timeout: 600_000 },
  () => {
    let s: ProxyApp;
    let executor: Executor;
    let id: ExternalId;
    let jt: JupyterTask;
    let ended: Promise<TaskEnd>;
    let root: string;
    const control = () => ({ dir: path.join(root, 'control'), attempt: 1 });
    const dirs = () => ({
      home: path.join(root, 'home'),
      runtime: path.join(root, 'runtime'),
      mounts: path.join(root, 'mounts'),
      logFile: path.join(root, 'logs', 'session.log'),
    });
    const base = `/api/runyard/interactive-sessions/${SESSION}/ui/`;

    before(async () => {
      s = await startProxyApp();
      root = mkdtempSync(path.join(os.tmpdir(), 'runyard-session-'));
      executor = createExecutors(s.config).local!;
      jt = jupyterTask({ sessionId: SESSION, dirs: dirs(), config: s.config, resources: { cpus: 1, memoryGiB: 2 } });
      id = await executor.launch(jt.task, control());
      ended = executor.wait(control(), id);
      // Should the task end before it answers, the wait stops at once, with its log.
      const stop = new AbortController();
      void ended.then(() => stop.abort(new Error(`the session's task ended: ${readFileSync(dirs().logFile, 'utf8')}`)));
      await waitForJupyter({ ...jt, logFile: dirs().logFile, timeoutMs: 240_000, signal: stop.signal });
      s.sessions.set(SESSION, { upstream: { socketPath: jt.socketPath, token: jt.token }, members: new Set([MEMBER]) });
    });

    after(async () => {
      if (id) {
        await executor.kill(id, { force: false, graceMs: 10_000 });
        const end = await ended;
        assert.ok(end.state === 'exited' || end.state === 'lost', JSON.stringify(end));
        // Nothing of the session is left running (its processes all name its socket).
        assert.deepEqual(cmdlinesHolding(jt.socketPath), []);
      }
      await s?.close();
    });

    it('describes a task that listens only on its socket, with its token in its environment only', () => {
      const { task } = jt;
      // The server's task network (outbound by default): the internet, nothing of the host.
      assert.equal(task.network, 'outbound');
      assert.equal(task.env.JUPYTER_TOKEN, jt.token);
      assert.equal(task.env.HOME, dirs().home);
      assert.ok(!task.argv.join(' ').includes(jt.token));
      assert.ok(task.argv.includes(`--sock=${jt.socketPath}`));
      assert.ok(task.argv.includes(`--NotebookApp.base_url=${base}`));
      assert.equal(path.dirname(jt.socketPath), dirs().runtime);
      assert.equal(statSync(dirs().runtime).mode & 0o777, 0o700);
      // Only the session's user (and root) may connect to the socket: 0600, its owner the task's host user
      // (a root server's RUNYARD_TASK_UID), else the server's own (the sandbox maps nobody to it).
      const sock = statSync(jt.socketPath);
      assert.ok(sock.isSocket());
      assert.equal(sock.mode & 0o777, 0o600);
      assert.equal(sock.uid, process.getuid!() === 0 ? s.config.taskUid : process.getuid!());
      assert.equal(readlinkSync(path.join(dirs().home, 'mounts')), dirs().mounts);
    });

    it("takes only its own token on its socket, and the readiness check says so with the log's end", async () => {
      assert.equal(await jupyterStatus(jt.socketPath, jt.token, base), 200);
      assert.equal(await jupyterStatus(jt.socketPath, 'f'.repeat(64), base), 403);
      await assert.rejects(
        waitForJupyter({ ...jt, token: 'f'.repeat(64), logFile: dirs().logFile, timeoutMs: 30_000 }),
        (e: Error) => e instanceof SessionNotReadyError && /HTTP 403/.test(e.message) && /NotebookApp/.test(e.message),
      );
      await assert.rejects(
        waitForJupyter({ ...jt, socketPath: path.join(root, 'none.sock'), logFile: dirs().logFile, timeoutMs: 1500, pollMs: 100 }),
        (e: Error) =>
          e instanceof SessionNotReadyError &&
          /did not answer .* within 2 s \(last: ENOENT\)/.test(e.message) &&
          /NotebookApp/.test(e.message),
      );
    });

    it('serves the notebook tree through the proxy with a launch token, and 404 without one', async () => {
      const launch = s.tokens.issue('launch', SESSION, MEMBER, 120);
      const first = await request(`${s.url}${base}tree?token=${encodeURIComponent(launch)}`);
      assert.equal(first.status, 200, first.body);
      const cookie = cookieOf(first);
      const tree = await request(`${s.url}${base}tree`, { headers: { cookie } });
      assert.equal(tree.status, 200, tree.body.slice(0, 500));
      assert.match(String(tree.headers['content-type']), /text\/html/);
      assert.match(tree.body, /<title>Home Page - Select or create a notebook<\/title>/);
      assert.ok(tree.body.includes(`${base}static/`), 'the page links its files under the base path');
      // A file the page loads, through the proxy too.
      const m = new RegExp(`(${base}static/[^"?]+\\.js)`).exec(tree.body);
      assert.ok(m, 'the page loads a script');
      assert.equal((await request(`${s.url}${m[1]}`, { headers: { cookie } })).status, 200);

      const past = SessionUiTokens.fromKeyFile(s.config.secretKeyFile, () => Date.now() - 3_600_000);
      for (const [what, url] of [
        ['no token', `${s.url}${base}tree`],
        [
          'a token for another session',
          `${s.url}${base}tree?token=${encodeURIComponent(s.tokens.issue('launch', 'f'.repeat(24), MEMBER, 60))}`,
        ],
        ['an expired token', `${s.url}${base}tree?token=${encodeURIComponent(past.issue('launch', SESSION, MEMBER, 60))}`],
      ] as const) {
        const r = await request(url);
        assert.equal(r.status, 404, what);
        assert.equal((JSON.parse(r.body) as { code: string }).code, 'ROUTE_NOT_FOUND', what);
      }
    });

    it('runs a notebook cell in a kernel over WebSocket, which writes into the home', async () => {
      const launch = s.tokens.issue('launch', SESSION, MEMBER, 120);
      const cookie = cookieOf(await request(`${s.url}${base}tree?token=${encodeURIComponent(launch)}`));
      const created = await request(`${s.url}${base}api/kernels`, {
        method: 'POST',
        body: JSON.stringify({ name: 'python3' }),
        headers: { cookie, 'content-type': 'application/json', origin: s.url },
      });
      assert.equal(created.status, 201, created.body);
      const kernel = JSON.parse(created.body) as { id: string; name: string };
      assert.equal(kernel.name, 'python3');

      const ws = new WebSocket(`${s.url.replace(/^http/, 'ws')}${base}api/kernels/${kernel.id}/channels?session_id=${randomUUID()}`, {
        headers: { cookie, origin: s.url },
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
        ws.once('unexpected-response', (_q, r) => reject(new Error(`WebSocket refused: ${r.statusCode}`)));
      });
      try {
        // The kernel may still be starting: the request waits for it (generous: a busy machine starts Python slowly).
        const out = await execute(
          ws,
          [
            'import os',
            "p = os.path.join(os.environ['HOME'], 'from-the-kernel.txt')",
            "open(p, 'w').write('written by a notebook cell\\n')",
            "print('uid', os.getuid(), 'wrote', p)",
            '6 * 7',
          ].join('\n'),
          180_000,
        );
        assert.equal(out.status, 'ok', out.stdout);
        assert.equal(out.stdout, `uid 65534 wrote ${path.join(dirs().home, 'from-the-kernel.txt')}\n`);
        assert.equal(out.result, '42');
        assert.equal(readFileSync(path.join(dirs().home, 'from-the-kernel.txt'), 'utf8'), 'written by a notebook cell\n');

        // Every process of the session, kernel included: none shows the token in its argv.
        const pids = processTree((id as unknown as { pid: number }).pid);
        const lines = pids.map(cmdline);
        // The notebook server itself (the wrapper's and bwrap's argv hold its argv too).
        const jupyterPid = pids.find((p) => /^\S*python3\S* \S*jupyter-notebook /.test(cmdline(p)));
        assert.ok(jupyterPid, 'the notebook server is in the task');
        assert.ok(
          lines.some((l) => l.includes('ipykernel')),
          `the kernel is in the task: ${lines.join('\n')}`,
        );
        assert.deepEqual(cmdlinesHolding(jt.token), []);
        // The notebook server holds no TCP socket (its kernels talk to it over ipc sockets too). A kernel keeps
        // one loopback port of its own (ipykernel's output pipe, which cannot be turned off): in the session's
        // network namespace, which is not the server's, so nothing of the session listens on the host.
        assert.deepEqual(
          socketInodes(jupyterPid).filter((inode) => tcpInodes(jupyterPid).has(inode)),
          [],
          'the notebook server holds TCP sockets',
        );
        assert.notEqual(readlinkSync(`/proc/${jupyterPid}/ns/net`), readlinkSync('/proc/self/ns/net'));
        const hostTcp = tcpInodes(process.pid);
        for (const pid of processTree(jupyterPid)) {
          assert.equal(
            readlinkSync(`/proc/${pid}/ns/net`),
            readlinkSync(`/proc/${jupyterPid}/ns/net`),
            `process ${pid} shares the session's network`,
          );
          assert.deepEqual(
            socketInodes(pid).filter((inode) => hostTcp.has(inode)),
            [],
            `process ${pid} (${cmdline(pid)}) holds a TCP socket of the host`,
          );
        }
      } finally {
        ws.close();
      }
      // The kernel's file is seen through the notebook's contents API as well.
      const listed = await request(`${s.url}${base}api/contents/from-the-kernel.txt?content=1`, { headers: { cookie } });
      assert.equal(listed.status, 200, listed.body);
      assert.equal((JSON.parse(listed.body) as { content: string }).content, 'written by a notebook cell\n');
    });

    it(
      'opens the notebook UI in a browser (headless Chromium) from the launch URL, and runs a cell',
      { skip: !existsSync(CHROMIUM) && `no ${CHROMIUM}` },
      async () => {
        const launch = s.tokens.issue('launch', SESSION, MEMBER, 120);
        // A notebook with one cell, made through the proxy as the UI's "New" would.
        const cookie = cookieOf(await request(`${s.url}${base}tree?token=${encodeURIComponent(launch)}`));
        const notebook = {
          type: 'notebook',
          content: {
            cells: [
              {
                cell_type: 'code',
                source:
                  "import os\nopen(os.path.join(os.environ['HOME'], 'from-the-browser.txt'), 'w').write('ok')\nprint('ran in the browser')",
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
        const put = await request(`${s.url}${base}api/contents/browser.ipynb`, {
          method: 'PUT',
          body: JSON.stringify(notebook),
          headers: { cookie, 'content-type': 'application/json', origin: s.url },
        });
        assert.equal(put.status, 201, put.body);

        const browser = await chromium.launch({ executablePath: CHROMIUM, timeout: 120_000 });
        try {
          const page = await browser.newPage();
          // Every file the UI loads comes through the proxy: none may fail.
          const failed: string[] = [];
          page.on('response', (r) => {
            if (isNotebookFailure(r.status(), r.url())) failed.push(`${r.status()} ${r.url()}`);
          });
          const opened = `${s.url}${base}notebooks/browser.ipynb`;
          await page.goto(`${opened}?token=${encodeURIComponent(s.tokens.issue('launch', SESSION, MEMBER, 120))}`, { timeout: 120_000 });
          // The launch page sets the cookie and goes on to the notebook, without the token.
          await page.waitForURL(opened, { timeout: 120_000 });
          await page.waitForFunction(
            () => {
              const w = window as unknown as { Jupyter?: { notebook?: { kernel?: { is_connected(): boolean; info_reply?: unknown } } } };
              return Boolean(w.Jupyter?.notebook?.kernel?.is_connected() && w.Jupyter.notebook.kernel.info_reply);
            },
            undefined,
            { timeout: 180_000 },
          );
          assert.ok(!(await page.evaluate(() => document.cookie)).includes('runyard-session-ui'), 'the cookie is HttpOnly');
          await page.evaluate(() =>
            (window as unknown as { Jupyter: { notebook: { execute_all_cells(): void } } }).Jupyter.notebook.execute_all_cells(),
          );
          await page.locator('.output_subarea', { hasText: 'ran in the browser' }).waitFor({ timeout: 180_000 });
          assert.equal(readFileSync(path.join(dirs().home, 'from-the-browser.txt'), 'utf8'), 'ok');
          assert.deepEqual(failed, []);
        } finally {
          await browser.close();
        }
      },
    );

    it("keeps the token out of the session's log", () => {
      const log = readFileSync(dirs().logFile, 'utf8');
      assert.match(log, /Jupyter Notebook 6\.\d+\.\d+ is running at/);
      assert.ok(!log.includes(jt.token));
      assert.ok(existsSync(jt.socketPath));
    });
  },
);
