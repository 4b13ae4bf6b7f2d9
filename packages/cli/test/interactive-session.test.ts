import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InteractiveSession, RunyardClient } from '@runyard/client';
import { connectionArgs } from './support/connection-args.js';
import { runCli, tempDir, type CliResult } from './support/run-cli.js';
import { createJupyterArgs, JUPYTER, NOWHERE, startSessionServer, until, type SessionServer } from './support/session-server.js';

// runyard interactive-session list|create|status|pause|resume|open against `runyard server start`,
// whose background work runs the sessions: real Jupyter in the task sandbox, reached through the
// platform's proxy with the link `open` prints.

describe('runyard interactive-session', { skip: !JUPYTER && 'jupyter is not installed', timeout: 900_000 }, () => {
  let srv: SessionServer;
  let url = '';
  let ws = '';
  let apikey = '';
  let conn: string[];
  let client: RunyardClient;
  let other: { ws: string; apikey: string; conn: string[] };

  before(async () => {
    srv = await startSessionServer();
    ({ url, ws, apikey, conn, client } = srv);
    const user = await client.admin.createUser({ username: 'mallory', email: 'mallory@example.org', name: 'Mallory', surname: 'Other' });
    const otherWs = await client.admin.createWorkspace('mallory workspace', user.id);
    const key = await client.admin.createApiKey(user.id, 'mallory key');
    other = { ws: otherWs.id, apikey: key.apikey, conn: connectionArgs(url, key.apikey, otherWs.id) };
  });

  after(() => srv?.close());

  const run = (args: string[], options: { env?: Record<string, string>; timeoutMs?: number } = {}) =>
    runCli([...args, ...conn], { timeoutMs: 300_000, ...options });
  async function ok(args: string[], options: { env?: Record<string, string> } = {}): Promise<CliResult> {
    const r = await run(args, options);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(!r.stdout.includes(apikey) && !r.stderr.includes(apikey), 'the API key is never printed');
    return r;
  }
  async function fails(args: string[], code: number, message: RegExp, c = conn): Promise<CliResult> {
    const r = await runCli([...args, ...c], { timeoutMs: 120_000 });
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '', `${args.join(' ')} prints nothing on stdout`);
    return r;
  }
  const get = (id: string): Promise<InteractiveSession> => client.getInteractiveSession(id, ws);
  const fast = ['--watch-interval', '0.5', '--max-wait-time', '4m'];
  /** A running session made with the CLI; its id. */
  async function runningSession(name: string, extra: string[] = []): Promise<string> {
    const r = await ok(createJupyterArgs(name, ['--watch', ...fast, ...extra]));
    return r.stdout.trim();
  }

  it('create -> status --watch -> open (the URL works, once) -> pause -> paused -> resume --watch -> running', async () => {
    const created = await ok([
      'interactive-session',
      'create',
      '--project-name',
      'demo',
      '--name',
      'nb-cli',
      '--session-type',
      'jupyter',
      '--shared',
      '--shutdown-in',
      '2h',
      '--cost-limit',
      '5',
      '--instance',
      'c5.large',
      '--storage',
      '200',
    ]);
    assert.match(created.stdout, /^[0-9a-f]{24}\n$/);
    const id = created.stdout.trim();
    assert.ok(
      created.stderr.includes(`Session link: ${url}/app/data-science/interactive-analysis/view/${id}\n`),
      `the CloudOS link: ${created.stderr}`,
    );
    assert.match(created.stderr, /Interactive session "nb-cli" created: Jupyter on c5\.large, 200 GB, workspace/);
    // The body was build_session_payload's.
    const doc = await get(id);
    const conf = doc.interactiveSessionConfiguration;
    assert.deepEqual(
      [conf.backend, conf.executionPlatform, conf.instanceType, conf.isCostSaving, conf.storageSizeInGb, conf.storageMode, conf.visibility],
      ['regular', 'aws', 'c5.large', false, 200, 'regular', 'workspace'],
    );
    assert.equal(conf.execution.computeCostLimit, 5);
    const shutdownIn = Date.parse(conf.execution.autoShutdownAtDate!) - Date.now();
    assert.ok(shutdownIn > 110 * 60_000 && shutdownIn <= 120 * 60_000, `auto-shutdown in 2 h: ${conf.execution.autoShutdownAtDate}`);
    assert.equal(doc.project.name, 'demo');

    const watched = await ok(['interactive-session', 'status', id, '--watch', ...fast]);
    assert.match(watched.stdout, new RegExp(`^Session ID: +${id}$`, 'm'));
    assert.match(watched.stdout, /^Status: +running \(ready\)$/m);
    assert.match(watched.stdout, /^Backend: +Jupyter$/m);
    assert.match(watched.stdout, /^Instance Type: +c5\.large$/m);
    assert.match(watched.stdout, /^Cost Limit: +\$5\.00$/m);
    assert.equal((await get(id)).status, 'ready');

    // open: the full URL of a launch link, on the sessions' own origin (the server at 127.0.0.1 serves
    // them at localhost, the same port); a browser (here fetch) exchanges it for the proxy's cookie.
    const opened = await ok(['interactive-session', 'open', id]);
    const launch = opened.stdout.trim();
    const sessionsUrl = url.replace('//127.0.0.1:', '//localhost:');
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(launch, new RegExp(`^${sessionsUrl}/api/runyard/interactive-sessions/${id}/ui/\\?token=\\S+$`));
    assert.match(opened.stderr, /it works once, and only for you/);
    const first = await fetch(launch, { redirect: 'manual' });
    assert.equal(first.status, 200);
    const cookie = first.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^runyard-session-ui=[^;]+;/);
    const tree = await fetch(`${sessionsUrl}/api/runyard/interactive-sessions/${id}/ui/tree`, {
      headers: { cookie: cookie.split(';')[0] },
    });
    assert.equal(tree.status, 200);
    assert.match(await tree.text(), /Jupyter/);
    assert.equal((await fetch(launch, { redirect: 'manual' })).status, 404, 'a launch link is taken once');

    // --web hands a fresh link to the browser opener (xdg-open, found on the PATH).
    const bin = tempDir('runyard-opener-');
    const seen = path.join(bin, 'opened.txt');
    writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" > '${seen}.tmp' && mv '${seen}.tmp' '${seen}'\n`);
    chmodSync(path.join(bin, 'xdg-open'), 0o755);
    const web = await ok(['interactive-session', 'open', '--session-id', id, '--web'], {
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH}` },
    });
    assert.match(web.stderr, /Opening the session in your browser \(xdg-open\)/);
    const handed = await until(
      'xdg-open to be run',
      async () => (existsSync(seen) ? readFileSync(seen, 'utf8').trim() : undefined),
      30_000,
    );
    assert.equal(handed, web.stdout.trim());
    assert.equal((await fetch(handed, { redirect: 'manual' })).status, 200);

    // pause: a confirmation is needed (none can be asked of a pipe), then the home is saved.
    await fails(['interactive-session', 'pause', id], 2, /Refusing to pause without a confirmation: stdin is not a terminal\. Add -y/);
    const paused = await ok(['interactive-session', 'pause', id, '-y', '--wait']);
    assert.equal(paused.stdout, `${id}\n`);
    assert.match(paused.stderr, /Session paused successfully\n {2}Session ID: [0-9a-f]{24}\n {2}Final status: paused\n/);
    assert.match(paused.stderr, /Home saved at: /);
    const status = await ok(['interactive-session', 'status', id]);
    assert.match(status.stdout, /^Status: +paused \(aborted\)$/m);
    assert.match(status.stdout, /^Last Saved: +\d{4}-/m);
    const json = JSON.parse((await ok(['interactive-session', 'status', id, '--output-format', 'json'])).stdout);
    assert.equal(json.status, 'aborted');
    assert.equal(json.stopReason, 'user');
    assert.ok(json.lastSavedAt);
    const csv = (await ok(['interactive-session', 'status', id, '--output-format', 'csv'])).stdout.split('\n');
    assert.equal(csv[0], 'ID,Name,Status,Backend,Instance,Storage,Cost,Runtime,Created');
    assert.ok(csv[1].startsWith(`${id},nb-cli,paused,Jupyter,c5.large,200 GB,$`), csv[1]);

    await fails(['interactive-session', 'pause', id, '-y'], 1, /Cannot pause session [0-9a-f]{24}: it is already paused/);
    await fails(['interactive-session', 'open', id], 1, /is paused \(aborted\), not running\. Resume it first/);

    const resumed = await ok(['interactive-session', 'resume', id, '--cost-limit', '7', '--watch', ...fast]);
    assert.equal(resumed.stdout, `${id}\n`);
    assert.match(resumed.stderr, /Session [0-9a-f]{24} has been resumed successfully!\nUpdated configuration:\n {2}Cost limit: \$7\n/);
    assert.match(resumed.stderr, /is now running and ready to use/);
    const again = await get(id);
    assert.equal(again.status, 'ready');
    assert.equal(again.interactiveSessionConfiguration.execution.computeCostLimit, 7);
    await fails(
      ['interactive-session', 'resume', id],
      1,
      /its status is "running"; only paused sessions can be resumed\. It is already running/,
    );

    // --force stops it at once, without a question.
    const forced = await ok(['interactive-session', 'pause', id, '--force', '--wait']);
    assert.match(forced.stderr, /force-aborted/);
    assert.equal((await get(id)).status, 'aborted');
  });

  it('list: status filters (the CLI names and the API names), paging, owner, archived; table, json, csv and a file', async () => {
    const running = await runningSession('list-running');
    const stopped = await runningSession('list-paused');
    await ok(['interactive-session', 'pause', stopped, '-y', '--no-upload', '--wait']);
    assert.equal((await get(stopped)).status, 'aborted');

    const ids = async (args: string[]) =>
      (
        JSON.parse(
          (await ok(['interactive-session', 'list', '--output-format', 'json', '--limit', '100', ...args])).stdout,
        ) as InteractiveSession[]
      ).map((s) => s._id);
    const all = await ids([]);
    assert.ok(all.includes(running) && all.includes(stopped));
    assert.ok(all.indexOf(stopped) < all.indexOf(running), 'newest first');
    for (const filter of [
      ['--filter-status', 'running'],
      ['--filter-status', 'ready'],
    ]) {
      const only = await ids(filter);
      assert.ok(only.includes(running) && !only.includes(stopped), filter.join(' '));
    }
    for (const filter of [
      ['--filter-status', 'paused'],
      ['--filter-status', 'stopped'],
      ['--filter-status', 'aborted'],
    ]) {
      const only = await ids(filter);
      assert.ok(only.includes(stopped) && !only.includes(running), filter.join(' '));
    }
    const both = await ids(['--filter-status', 'running,paused']);
    assert.ok(both.includes(stopped) && both.includes(running));
    assert.deepEqual(await ids(['--filter-status', 'running', '--filter-status', 'paused']), both);
    const none = await run(['interactive-session', 'list', '--filter-status', 'provisioning']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /No interactive sessions found in the requested status\.\nSession status flow: scheduled → initialising/);

    // The table: tab-separated when piped (no header), the CLI's status names.
    const table = await ok([
      'interactive-session',
      'list',
      '--filter-status',
      'running,paused',
      '--table-columns',
      'id,status,type,project',
    ]);
    const rows = table.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.deepEqual(
      rows.find((r) => r[0] === running),
      [running, 'running', 'Jupyter', 'demo'],
    );
    assert.deepEqual(
      rows.find((r) => r[0] === stopped),
      [stopped, 'paused', 'Jupyter', 'demo'],
    );
    await fails(['interactive-session', 'list', '--table-columns', 'id,colour'], 2, /Invalid column: colour; valid columns: backend, cost/);

    // CSV: process_interactive_session_list's columns.
    const csv = (await ok(['interactive-session', 'list', '--output-format', 'csv', '--filter-status', 'running'])).stdout.split('\n');
    assert.equal(csv[0], '_id,name,status,interactiveSessionType,user,instanceType,totalCostInUsd');
    assert.ok(
      csv.some((l) => l.startsWith(`${running},list-running,ready,Jupyter,`)),
      csv.join('\n'),
    );
    const wide = (await ok(['interactive-session', 'list', '--output-format', 'csv', '--all-fields'])).stdout.split('\n')[0];
    assert.ok(wide.includes('interactiveSessionConfiguration.instanceType'), wide);

    // Paging: one session a page; the hint names the next page.
    const page2 = await ok(['interactive-session', 'list', '--output-format', 'json', '--limit', '1', '--page', '2']);
    const second = JSON.parse(page2.stdout) as InteractiveSession[];
    assert.equal(second.length, 1);
    assert.equal(second[0]._id, all[1]);
    assert.match(page2.stderr, new RegExp(`Page 2 of ${all.length} \\(${all.length} interactive sessions\\); the next one: --page 3`));

    // A file instead of stdout.
    const dir = tempDir('runyard-sessions-');
    const written = await run(['interactive-session', 'list', '--output-format', 'json', '--output-basename', path.join(dir, 'sessions')]);
    assert.equal(written.code, 0, written.stderr);
    assert.deepEqual(
      (JSON.parse(readFileSync(path.join(dir, 'sessions.json'), 'utf8')) as InteractiveSession[]).map((s) => s._id),
      all.slice(0, 10),
    );

    // Another person sees nothing of this workspace; only theirs with --filter-only-mine; no archived sessions.
    const mine = await runCli(['interactive-session', 'list', '--filter-only-mine', ...other.conn]);
    assert.equal(mine.code, 0, mine.stderr);
    assert.equal(mine.stdout, '');
    assert.match(mine.stderr, /No interactive sessions found/);
    assert.deepEqual(await ids(['--owner-only']), all, 'the admin made them all');
    assert.deepEqual(await ids(['--archived']), []);
  });

  it("another workspace's session: not found, for every command", async () => {
    const sessions = await client.getInteractiveSessionList(ws, { limit: 1 });
    const id = sessions.sessions[0]._id;
    const notFound = new RegExp(`Session ${id} not found in workspace ${other.ws}`);
    for (const args of [
      ['status', id],
      ['status', id, '--watch'],
      ['pause', id, '-y'],
      ['resume', id],
      ['open', id],
    ]) {
      await fails(['interactive-session', ...args], 1, notFound, other.conn);
    }
    await fails(
      ['interactive-session', 'status', '0123456789abcdef01234567'],
      1,
      /Session 0123456789abcdef01234567 not found in workspace/,
    );
  });

  it('a backend this server does not run is refused by the server, saying which setting offers it', async () => {
    const before = (await client.getInteractiveSessionList(ws, { limit: 100 })).paginationMetadata.count;
    const r = await run(['interactive-session', 'create', '--project-name', 'demo', '--name', 'code', '--session-type', 'vscode']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /vscode sessions are not offered by this server: its operator has not set RUNYARD_SESSION_COMMAND_VSCODE/);
    await fails(['interactive-session', 'create', '--project-name', 'nope', '--name', 'x', '--session-type', 'jupyter'], 1, /nope/);
    assert.equal((await client.getInteractiveSessionList(ws, { limit: 100 })).paginationMetadata.count, before);
  });

  it('--image: the body names the image, the server keeps it, and a pull that fails stops the session with why', async () => {
    // Nothing listens on port 1: the pull fails at once, without a registry (sessions-runtime/session-image.test.ts runs one in a real image).
    const image = '127.0.0.1:1/lab/notebook:1';
    const r = await ok(createJupyterArgs('nb-image', ['--image', image, '--verbose']));
    const id = r.stdout.trim();
    assert.match(r.stderr, /"image": "127\.0\.0\.1:1\/lab\/notebook:1"/);
    assert.match(r.stderr, /, in the image 127\.0\.0\.1:1\/lab\/notebook:1; scheduled\.\n/);
    assert.equal((await get(id)).interactiveSessionConfiguration.image, image);
    const stopped = await until('the session to stop', async () => {
      const s = await get(id);
      return s.status === 'aborted' ? s : undefined;
    });
    assert.match(
      stopped.statusMessage ?? '',
      /^The session could not start: The image could not be pulled: the registry 127\.0\.0\.1:1 could not be reached/,
    );
    await fails(
      createJupyterArgs('x', ['--image', 'Not A Reference']),
      1,
      /interactiveSessionConfiguration\.image: "Not A Reference" is not an image reference/,
    );
  });

  it('bad input is a usage error (exit 2) found before anything is sent to the server', async () => {
    const create = ['interactive-session', 'create', '--project-name', 'demo', '--name', 'x'];
    for (const [args, message] of [
      [
        [...create, '--session-type', 'julia'],
        /argument 'julia' is invalid\. Unknown session type "julia"; choose from jupyter, vscode, spark, rstudio/,
      ],
      [['interactive-session', 'list', '--limit', '101'], /Limit cannot exceed 100/],
      [['interactive-session', 'list', '--limit', '0'], /expected a positive integer/],
      [['interactive-session', 'list', '--filter-status', 'runing'], /"runing" is not a status; choose from running, paused/],
      [
        [...create, '--session-type', 'jupyter', '--shutdown-at', 'next tuesday'],
        /expected a date and time with a time zone, e\.g\. 2030-01-31T18:00:00Z/,
      ],
      [
        [...create, '--session-type', 'jupyter', '--shutdown-at', '2020-01-31T18:00:00Z'],
        /is in the past: the session would be stopped at once/,
      ],
      [[...create, '--session-type', 'jupyter', '--shutdown-at', '2030-02-31T18:00:00Z'], /expected a date and time/],
      [[...create, '--session-type', 'jupyter', '--shutdown-in', '3 weeks'], /expected a duration such as 30m, 8h, 2d/],
      [[...create, '--session-type', 'jupyter', '--shutdown-in', '1h', '--shutdown-at', '2030-01-31T18:00:00Z'], /cannot be used with/],
      [[...create, '--session-type', 'jupyter', '--storage', '50'], /expected an integer from 100 to 5000/],
      [
        [...create, '--session-type', 'vscode', '--image', 'lab/nb:1'],
        /--image runs a Jupyter session in a container image; it cannot be given with --session-type vscode/,
      ],
      [[...create, '--session-type', 'jupyter', '--cost-limit', '-5'], /expected US dollars/],
      [[...create, '--session-type', 'jupyter', '--instance', 'big'], /Invalid AWS instance type for --instance: "big"/],
      [
        [...create, '--session-type', 'spark', '--execution-platform', 'azure', '--instance', 'Standard_F1s'],
        /Spark sessions are only available on aws/,
      ],
      [
        [...create, '--session-type', 'jupyter', '--link', 's3://bucket/a/data/,s3://other/b/data'],
        /Duplicate mount name 'data' detected\. The folders 's3:\/\/bucket\/a\/data\/' and 's3:\/\/other\/b\/data' would both be mounted/,
      ],
      [
        [...create, '--session-type', 'jupyter', '--link', 's3://bucket/data/', '--link', 'data:bucket:elsewhere'],
        /Duplicate mount name 'data' detected/,
      ],
      [[...create, '--session-type', 'jupyter', '--link', 'az://account/container/data'], /Azure blob storage paths are not supported/],
      [[...create, '--session-type', 'jupyter', '--link', 'a:b'], /invalid link format: a:b\. Expected: mountName:bucketName:s3Prefix/],
      [[...create, '--session-type', 'jupyter', '--link', 'data'], /invalid link path format: data/],
      [[...create, '--session-type', 'jupyter', '--link', 'demo/'], /give a folder inside project 'demo'/],
      [[...create, '--session-type', 'jupyter', '--mount', 'notes.txt'], /--mount: invalid data file format: notes\.txt/],
      [
        [...create, '--session-type', 'jupyter', '--execution-platform', 'azure', '--instance', 'Standard_F1s', '--link', 'demo/Data/x'],
        /Linking folders is not supported on Azure\. Please use --mount/,
      ],
      [
        [...create, '--session-type', 'jupyter', '--execution-platform', 'azure', '--instance', 'Standard_F1s', '--mount', 's3://b/k.txt'],
        /S3 mounts are only supported on AWS/,
      ],
      [['interactive-session', 'create', '--name', 'x', '--session-type', 'jupyter'], /Missing option: --project-name \(or --project-id\)/],
      [['interactive-session', 'status', 'abc'], /"abc" is not a session id\. A session id is 24 hexadecimal characters/],
      [['interactive-session', 'status'], /Missing the session id: give it as an argument or with --session-id/],
      [
        ['interactive-session', 'status', '0123456789abcdef01234567', '--session-id', '0123456789abcdef01234568'],
        /Two different session ids/,
      ],
      [
        ['interactive-session', 'status', '0123456789abcdef01234567', '--watch', '--max-wait-time', 'forever'],
        /expected a duration such as 30s/,
      ],
      [['interactive-session', 'resume', '0123456789abcdef01234567', '--link', 's3://b/p/,s3://c/p/'], /Duplicate mount name 'p' detected/],
      [['interactive-session', 'pause', '--session-id', 'xyz'], /A session id is 24 hexadecimal characters/],
    ] as Array<[string[], RegExp]>) {
      await fails(args, 2, message, NOWHERE);
    }
  });
});
