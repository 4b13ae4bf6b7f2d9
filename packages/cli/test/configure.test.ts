import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { runCli, tempDir } from './support/run-cli.js';

const KEY = 'ry_test_0123456789abcdefghijklmnopqrstuvwxyz';
const WS = '6630f0aa11223344556677ff';
const WS2 = '6630f0aa11223344556677fe';
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
      ['configure', '-k', KEY, '--platform-url', 'https://runyard.example.org/', '--workspace-id', WS, '--project-name', 'p1'],
      { home },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Profile "default" created \(default profile\)/);
    assert.ok(!r.stderr.includes(KEY), 'the API key is never printed');
    assert.deepEqual(sections(read(home, 'credentials')), { default: { apikey: KEY } });
    assert.deepEqual(sections(read(home, 'config')), {
      default: { platform_url: 'https://runyard.example.org', workspace_id: WS, project_name: 'p1', default: 'True' },
    });
    for (const f of ['config', 'credentials']) assert.equal(statSync(path.join(home, '.runyard', f)).mode & 0o777, 0o600, f);
    assert.equal(statSync(path.join(home, '.runyard')).mode & 0o777, 0o700);
  });

  describe('asking (answers piped, one per line), then signing in', () => {
    let srv: TestServer;
    before(async () => (srv = await startTestServer({ listen: true })));
    after(() => srv.close());

    it('asks the URL (offering the default), the workspace and the key; signs in and says as whom', async () => {
      const home = tempDir('runyard-home-');
      const answers = [srv.url, srv.admin.workspaceId, srv.admin.apikey].join('\n') + '\n';
      const r = await runCli(['configure', '--profile', 'work'], { home, input: answers });
      assert.equal(r.code, 0, r.stderr);
      const questions = r.stderr.split('\n').filter((l) => l.endsWith(': '));
      assert.deepEqual(
        questions,
        ['Platform URL [http://127.0.0.1:8080]: ', 'Workspace id: ', 'API key: '],
        'no default question for the only profile',
      );
      assert.match(r.stderr, new RegExp(`\nSigned in to ${srv.url} as [^\n]+\\(admin\\)\\.\n`));
      assert.deepEqual(sections(read(home, 'config')).work, {
        platform_url: srv.url,
        workspace_id: srv.admin.workspaceId,
        default: 'True',
      });
      assert.equal(sections(read(home, 'credentials')).work.apikey, srv.admin.apikey);

      // Enter keeps every value; the key is shown masked in its question.
      const again = await runCli(['configure', '--profile', 'work'], { home, input: '\n\n\n' });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, new RegExp(`API key \\[\\*+${srv.admin.apikey.slice(-4)}\\]: `));
      assert.ok(!again.stderr.includes(srv.admin.apikey));
      assert.match(again.stderr, /Profile "work" updated/);
    });

    it('--advanced also asks the rest, in cloudos-cli order', async () => {
      const home = tempDir('runyard-home-');
      const answers = ['', srv.admin.workspaceId, srv.admin.apikey, 'proj', '2', 'gitlab', 'wf', 'sess'].join('\n') + '\n';
      const r = await runCli(['configure', '--advanced', '--no-check'], { home, input: answers });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        r.stderr
          .split('\n')
          .filter((l) => l.endsWith(': '))
          .map((q) => q.replace(/ \(.*$| \[.*$|: $/, '')),
        [
          'Platform URL',
          'Workspace id',
          'API key',
          'Project name',
          'Execution platform',
          'Repository platform',
          'Workflow name',
          'Interactive session id',
        ],
      );
      assert.doesNotMatch(r.stderr, /Signed in/, '--no-check');
      assert.deepEqual(sections(read(home, 'config')).default, {
        platform_url: 'http://127.0.0.1:8080',
        workspace_id: srv.admin.workspaceId,
        project_name: 'proj',
        execution_platform: 'azure',
        repository_platform: 'gitlab',
        workflow_name: 'wf',
        session_id: 'sess',
        default: 'True',
      });
    });

    it('without a terminal and with values missing: exit 2, naming them, nothing saved', async () => {
      const home = tempDir('runyard-home-');
      const r = await runCli(['configure'], { home, input: '' });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /\nError: Missing: --workspace-id, --apikey\. Nothing was saved\./);
      assert.throws(() => read(home, 'config'));
    });

    it('a key the server refuses: exit 4 and nothing saved; a workspace of someone else: exit 1', async () => {
      const home = tempDir('runyard-home-');
      const bad = await runCli(['configure'], { home, input: `${srv.url}\n${srv.admin.workspaceId}\n${KEY}\n` });
      assert.equal(bad.code, 4, bad.stderr);
      assert.match(bad.stderr, /Error: Authentication failed[^\n]* Nothing was saved\.\n$/);
      assert.ok(!bad.stderr.includes(KEY));
      assert.throws(() => read(home, 'config'));
      const other = await srv.newTenant('configure-other');
      const foreign = await runCli(['configure'], { home, input: `${srv.url}\n${other.workspaceId}\n${srv.admin.apikey}\n` });
      assert.equal(foreign.code, 1, foreign.stderr);
      assert.match(
        foreign.stderr,
        new RegExp(`is not a member of workspace ${other.workspaceId}; their workspaces: ${srv.admin.workspaceId} `),
      );
      const down = await runCli(['configure'], { home, input: `http://127.0.0.1:9\n${srv.admin.workspaceId}\n${KEY}\n` });
      assert.equal(down.code, 1);
      assert.match(down.stderr, /runyard server start[^\n]*Nothing was saved\.\n$/);
    });
  });

  it('asks "Make this profile the default?" only when other profiles exist, and honours the answer', async () => {
    const home = tempDir('runyard-home-');
    assert.equal((await runCli(['configure', '-k', KEY, '--profile', 'first'], { home })).code, 0);
    const no = await runCli(['configure', '--profile', 'second', '--no-check'], { home, input: `\n${WS}\n${KEY}\nn\n` });
    assert.equal(no.code, 0, no.stderr);
    assert.match(no.stderr, /Make this profile the default\? \(y\/n\)/);
    let listed = await runCli(['configure', 'list-profiles'], { home });
    assert.equal(listed.stdout, 'first (default)\nsecond\n');

    const yes = await runCli(['configure', '--profile', 'third', '--no-check'], { home, input: `\n${WS}\n${KEY}\ny\n` });
    assert.equal(yes.code, 0, yes.stderr);
    listed = await runCli(['configure', 'list-profiles'], { home });
    assert.equal(listed.stdout, 'first\nsecond\nthird (default)\n');
    const defaults = Object.values(sections(read(home, 'config'))).map((s) => s.default);
    assert.deepEqual(defaults, ['False', 'False', 'True']);
    const json = await runCli(['configure', 'list-profiles', '--output-format', 'json'], { home });
    assert.deepEqual(JSON.parse(json.stdout), [
      { name: 'first', default: false },
      { name: 'second', default: false },
      { name: 'third', default: true },
    ]);
    const csv = await runCli(['configure', 'list-profiles', '--output-format', 'csv'], { home });
    assert.equal(csv.stdout, 'name,default\nfirst,false\nsecond,false\nthird,true\n');
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
    await runCli(['configure', '--profile', 'a', '--make-default', '--workspace-id', WS], { home });
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'a (default)\nb\n');
    assert.equal(sections(read(home, 'config')).a.workspace_id, WS);
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
    assert.match(
      badUrl.stderr,
      /^Error: --platform-url: The platform URL must start with http:\/\/ or https:\/\/ \(not "ftp:\/\/x"\)\.\n$/,
    );
    const badWorkspace = await runCli(['configure', '--workspace-id', 'ws1'], { home });
    assert.equal(badWorkspace.code, 2);
    assert.match(badWorkspace.stderr, /^Error: --workspace-id: "ws1" is not a workspace id\. A workspace id is 24 hexadecimal characters/);
    const badChoice = await runCli(['configure', '--execution-platform', 'mars'], { home });
    assert.equal(badChoice.code, 2);
    const piped = await runCli(['configure', '--advanced'], { home, input: `\n${WS}\n${KEY}\n\nmars\n` });
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
    const r = await runCli(['configure', '--workspace-id', WS2], { home });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sections(read(home, 'config')).default, {
      platform_url: 'http://old:1',
      workspace_id: WS2,
      procurement_id: 'p42',
      default: 'True',
    });
  });
});
