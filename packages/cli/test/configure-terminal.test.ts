import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startTestServer } from '../../../test/support/server.js';
import { CLI, cliEnv, tempDir } from './support/run-cli.js';

// util-linux `script` gives the CLI a real terminal; without it there is nothing to test here.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Runs `runyard args` on a pseudo-terminal; each answer is typed once its question shows (after the
 * previous answer), as a person would.
 */
function onTerminal(args: string[], home: string, steps: Array<[RegExp, string]>): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: cliEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let step = 0;
  let from = 0;
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
    while (step < steps.length && steps[step][0].test(output.slice(from))) {
      from = output.length;
      child.stdin.write(steps[step][1]);
      step++;
    }
  });
  child.stderr.resume();
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('runyard configure on a terminal', { skip: !hasScript && 'needs util-linux script' }, () => {
  it('asks each question, hides the API key as it is typed, asks again after a bad or missing answer, and signs in', async () => {
    const srv = await startTestServer({ listen: true });
    try {
      const home = tempDir('runyard-home-');
      const key = srv.admin.apikey;
      const url = /Platform URL \[http:\/\/127\.0\.0\.1:8080\]: /;
      const r = await onTerminal(['configure', '--profile', 'tty'], home, [
        [url, 'not a url\r'],
        [url, `${srv.url}/\r`],
        [/Workspace id: /, `${srv.admin.workspaceId}\r`],
        [/API key: /, '\r'],
        [/API key: /, `${key}\r`],
      ]);
      assert.equal(r.code, 0, r.output);
      assert.ok(!r.output.includes(key), 'the key is not echoed');
      assert.match(r.output, /The platform URL must start with http/);
      assert.match(r.output, /API key is needed\./);
      assert.match(r.output, /Signed in to http:\/\/[^ ]+ as [^\n]+\(admin\)\./);
      assert.match(r.output, /Profile "tty" created \(default profile\)/);
      const config = readFileSync(path.join(home, '.runyard', 'config'), 'utf8');
      assert.match(config, new RegExp(`platform_url = ${srv.url}\n`));
      assert.match(readFileSync(path.join(home, '.runyard', 'credentials'), 'utf8'), new RegExp(`apikey = ${key}\n`));
    } finally {
      await srv.close();
    }
  });

  it('Ctrl-C cancels with exit 2 and saves nothing', async () => {
    const home = tempDir('runyard-home-');
    const r = await onTerminal(['configure'], home, [[/Platform URL \[[^\]]+\]: /, '\x03']]);
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /Error: Cancelled; nothing was saved\./);
    assert.throws(() => readFileSync(path.join(home, '.runyard', 'config')));
  });
});
