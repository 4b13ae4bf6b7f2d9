import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli, tempDir } from './support/run-cli.js';

const KEY = 'ry_test_0123456789abcdefghijklmnopqrstuvwxyz';
const read = (home: string, file: 'config' | 'credentials') => readFileSync(path.join(home, '.runyard', file), 'utf8');

/** The INI sections of a file as {section: {key: value}}. */
function sections(text: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | undefined;
  for (const line of text.split('\n')) {
    const header = /^\[(.+)\]$/.exec(line.trim());
    if (header) out[header[1]] = current = {};
    else if (current && line.includes('=')) current[line.slice(0, line.indexOf('=')).trim()] = line.slice(line.indexOf('=') + 1).trim();
  }
  return out;
}

describe('runyard configure', () => {
  it('creates the first profile from flags, as the default, in files of mode 600', async () => {
    const home = tempDir('runyard-home-');
    const r = await runCli(
      ['configure', '-k', KEY, '--platform-url', 'https://runyard.example.org/', '--workspace-id', 'ws1', '--project-name', 'p1'],
      { home },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Profile "default" created \(default profile\)/);
    assert.ok(!r.stderr.includes(KEY), 'the API key is never printed');
    assert.deepEqual(sections(read(home, 'credentials')), { default: { apikey: KEY } });
    assert.deepEqual(sections(read(home, 'config')), {
      default: { platform_url: 'https://runyard.example.org', workspace_id: 'ws1', project_name: 'p1', default: 'True' },
    });
    for (const f of ['config', 'credentials']) assert.equal(statSync(path.join(home, '.runyard', f)).mode & 0o777, 0o600, f);
    assert.equal(statSync(path.join(home, '.runyard')).mode & 0o777, 0o700);
  });

  it('asks in cloudos-cli order when answers are piped, one per line, and Enter keeps a value', async () => {
    const home = tempDir('runyard-home-');
    const answers = [KEY, 'http://127.0.0.1:8080', 'ws1', 'proj', '2', 'gitlab', 'wf', 'sess'].join('\n') + '\n';
    const r = await runCli(['configure', '--profile', 'work'], { home, input: answers });
    assert.equal(r.code, 0, r.stderr);
    const questions = r.stderr.split('\n').filter((l) => l.endsWith(': '));
    assert.deepEqual(
      questions.map((q) => q.replace(/ \(.*$| \[.*$|: $/, '')),
      [
        'API key',
        'Platform URL',
        'Workspace id',
        'Project name',
        'Execution platform',
        'Repository platform',
        'Workflow name',
        'Interactive session id',
      ],
      'no default question for the only profile',
    );
    assert.deepEqual(sections(read(home, 'config')).work, {
      platform_url: 'http://127.0.0.1:8080',
      workspace_id: 'ws1',
      project_name: 'proj',
      execution_platform: 'azure',
      repository_platform: 'gitlab',
      workflow_name: 'wf',
      session_id: 'sess',
      default: 'True',
    });

    // Enter on every question keeps every value; the key is shown masked in its question.
    const again = await runCli(['configure', '--profile', 'work'], { home, input: '\n'.repeat(8) });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /API key \[\*+wxyz\]: /);
    assert.ok(!again.stderr.includes(KEY));
    assert.match(again.stderr, /Profile "work" updated/);
    assert.equal(sections(read(home, 'config')).work.workspace_id, 'ws1');
    assert.equal(sections(read(home, 'credentials')).work.apikey, KEY);

    // Missing answers (end of input) count as Enter; one answer changes one value.
    const partial = await runCli(['configure', '--profile', 'work'], { home, input: '\n\nws2\n' });
    assert.equal(partial.code, 0, partial.stderr);
    assert.equal(sections(read(home, 'config')).work.workspace_id, 'ws2');
    assert.equal(sections(read(home, 'config')).work.project_name, 'proj');
  });

  it('gives Enter on an empty profile the cloudos-cli defaults (aws, github) and leaves the rest unset', async () => {
    const home = tempDir('runyard-home-');
    const r = await runCli(['configure'], { home, input: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sections(read(home, 'config')).default, { execution_platform: 'aws', repository_platform: 'github', default: 'True' });
  });

  it('asks "Make this profile the default?" only when other profiles exist, and honours the answer', async () => {
    const home = tempDir('runyard-home-');
    assert.equal((await runCli(['configure', '-k', KEY, '--profile', 'first'], { home })).code, 0);
    const no = await runCli(['configure', '--profile', 'second'], { home, input: `${KEY}\n\n\n\n\n\n\n\nn\n` });
    assert.equal(no.code, 0, no.stderr);
    assert.match(no.stderr, /Make this profile the default\? \(y\/n\)/);
    let listed = await runCli(['configure', 'list-profiles'], { home });
    assert.equal(listed.stdout, 'first (default)\nsecond\n');

    const yes = await runCli(['configure', '--profile', 'third'], { home, input: `${KEY}\n\n\n\n\n\n\n\ny\n` });
    assert.equal(yes.code, 0, yes.stderr);
    listed = await runCli(['configure', 'list-profiles'], { home });
    assert.equal(listed.stdout, 'first\nsecond\nthird (default)\n');
    const defaults = Object.values(sections(read(home, 'config'))).map((s) => s.default);
    assert.deepEqual(defaults, ['False', 'False', 'True']);
  });

  it('--make-default alone moves the default to an existing profile; with flags it updates and moves it', async () => {
    const home = tempDir('runyard-home-');
    await runCli(['configure', '-k', KEY, '--profile', 'a'], { home });
    await runCli(['configure', '-k', KEY, '--profile', 'b'], { home });
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'a (default)\nb\n');
    const r = await runCli(['configure', '--profile', 'b', '--make-default'], { home, input: 'this would be an answer\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!r.stderr.includes('API key'), 'nothing asked');
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'a\nb (default)\n');
    await runCli(['configure', '--profile', 'a', '--make-default', '--workspace-id', 'w9'], { home });
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'a (default)\nb\n');
    assert.equal(sections(read(home, 'config')).a.workspace_id, 'w9');
  });

  it('remove-profile removes a profile; removing the default makes the first remaining one the default', async () => {
    const home = tempDir('runyard-home-');
    for (const p of ['one', 'two', 'three']) await runCli(['configure', '-k', KEY, '--profile', p], { home });
    await runCli(['configure', '--profile', 'two', '--make-default'], { home });
    const r = await runCli(['configure', 'remove-profile', '--profile', 'two'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /"one" is now the default profile/);
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'one (default)\nthree\n');
    assert.deepEqual(Object.keys(sections(read(home, 'credentials'))), ['one', 'three']);
    await runCli(['configure', 'remove-profile', '--profile', 'three'], { home });
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'one (default)\n');
    for (const f of ['config', 'credentials']) assert.equal(statSync(path.join(home, '.runyard', f)).mode & 0o777, 0o600, f);

    const missing = await runCli(['configure', 'remove-profile', '--profile', 'nope'], { home });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^Error: No profile named "nope"/);
    const noName = await runCli(['configure', 'remove-profile'], { home });
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /--profile/);
  });

  it('list-profiles on a fresh home says there is none', async () => {
    const r = await runCli(['configure', 'list-profiles']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /No profiles found/);
  });

  it('refuses bad values with a usage error and saves nothing', async () => {
    const home = tempDir('runyard-home-');
    const badUrl = await runCli(['configure', '--platform-url', 'ftp://x'], { home });
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /^Error: --platform-url: Platform URL must be an http/);
    const badChoice = await runCli(['configure', '--execution-platform', 'mars'], { home });
    assert.equal(badChoice.code, 2);
    const piped = await runCli(['configure'], { home, input: `${KEY}\n\n\n\nmars\n` });
    assert.equal(piped.code, 2);
    assert.match(piped.stderr, /Error: Execution platform must be one of aws, azure, hpc/);
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, '');
  });

  it('accepts --cloudos-url as another name for --platform-url', async () => {
    const home = tempDir('runyard-home-');
    await runCli(['configure', '--cloudos-url', 'http://h:1/'], { home });
    assert.equal(sections(read(home, 'config')).default.platform_url, 'http://h:1');
  });

  it('reads cloudos-cli style files (cloudos_url) and keeps keys it does not know', async () => {
    const home = tempDir('runyard-home-');
    mkdirSync(path.join(home, '.runyard'));
    writeFileSync(path.join(home, '.runyard', 'config'), '[default]\ncloudos_url = http://old:1\nprocurement_id = p42\ndefault = True\n');
    const r = await runCli(['configure', '--workspace-id', 'w2'], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sections(read(home, 'config')).default, {
      platform_url: 'http://old:1',
      workspace_id: 'w2',
      procurement_id: 'p42',
      default: 'True',
    });
  });
});
