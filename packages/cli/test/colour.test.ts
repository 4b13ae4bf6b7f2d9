import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { CLI, cliEnv, runCli, tempDir } from './support/run-cli.js';

// util-linux `script` gives the CLI a real terminal; without it there is nothing to test here.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const BOLD = '\x1b[1m';

/** Everything `runyard args` writes on a pseudo-terminal. */
function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: cliEnv(tempDir('runyard-home-'), env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.resume();
  child.stdin.end();
  return new Promise((resolve) => child.on('close', () => resolve(output)));
}

describe('bold and colour', { skip: !hasScript && 'needs util-linux script' }, () => {
  let s: TestServer;
  let conn: string[];
  before(async () => {
    s = await startTestServer({ listen: true });
    conn = ['--platform-url', s.url, '--apikey', s.admin.apikey, '--workspace-id', s.admin.workspaceId];
    await runCli(['project', 'create', '--new-project', 'colours', ...conn]);
  });
  after(() => s.close());

  it('a terminal gets a bold header; TERM=dumb, NO_COLOR and --no-color (before or after the command) do not', async () => {
    const list = ['project', 'list', ...conn];
    assert.ok((await onTerminal(list, { TERM: 'xterm' })).includes(`${BOLD}ID`), 'bold on a terminal');
    for (const [args, env] of [
      [list, { TERM: 'dumb' }],
      [list, { TERM: 'xterm', NO_COLOR: '1' }],
      [[...list, '--no-color'], { TERM: 'xterm' }],
      [['--no-color', ...list], { TERM: 'xterm' }],
    ] as const) {
      const out = await onTerminal([...args], env);
      assert.match(out, /ID +NAME/, out);
      assert.ok(!out.includes('\x1b['), `${args.join(' ')} ${JSON.stringify(env)}: ${JSON.stringify(out)}`);
    }
  });

  it('a pipe gets no escape codes', async () => {
    const r = await runCli(['project', 'list', ...conn], { env: { TERM: 'xterm' } });
    assert.ok(!r.stdout.includes('\x1b['));
  });
});
