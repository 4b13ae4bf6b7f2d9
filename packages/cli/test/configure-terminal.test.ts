import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { CLI, cliEnv, tempDir } from './support/run-cli.js';

// util-linux `script` gives the CLI a real terminal; without it there is nothing to test here.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const KEY = 'ry_terminal_secret_0123456789abcdefghij';

/** Runs `runyard args` on a pseudo-terminal; `answers` are typed once the first question shows. */
function onTerminal(
  args: string[],
  home: string,
  answers: string,
  firstQuestion: RegExp,
): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { env: cliEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let typed = false;
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  child.stdout.on('data', (c: Buffer) => {
    output += c.toString();
    if (!typed && firstQuestion.test(output)) {
      typed = true;
      child.stdin.write(answers);
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
  it('asks each question, hides the API key as it is typed, and asks again after a bad answer', async () => {
    const home = tempDir('runyard-home-');
    const answers = [KEY, 'not a url', 'http://127.0.0.1:8080/', 'ws1', '', '2', '', '', ''].map((a) => `${a}\r`).join('');
    const r = await onTerminal(['configure', '--profile', 'tty'], home, answers, /API key: /);
    assert.equal(r.code, 0, r.output);
    assert.ok(!r.output.includes(KEY), 'the key is not echoed');
    assert.match(r.output, /Platform URL must be an http/);
    assert.match(r.output, /Profile "tty" created \(default profile\)/);
    const config = readFileSync(path.join(home, '.runyard', 'config'), 'utf8');
    assert.match(config, /platform_url = http:\/\/127\.0\.0\.1:8080\n/);
    assert.match(config, /execution_platform = azure\n/);
    assert.match(readFileSync(path.join(home, '.runyard', 'credentials'), 'utf8'), new RegExp(`apikey = ${KEY}\\n`));
  });

  it('Ctrl-C cancels with exit 2 and saves nothing', async () => {
    const home = tempDir('runyard-home-');
    const r = await onTerminal(['configure'], home, '\x03', /API key: /);
    assert.equal(r.code, 2, r.output);
    assert.match(r.output, /Error: Cancelled; nothing was saved\./);
    assert.throws(() => readFileSync(path.join(home, '.runyard', 'config')));
  });
});
