import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { runCli, tempDir } from './support/run-cli.js';

describe('global options and mistyped options', () => {
  let s: TestServer;
  let conn: string[];
  before(async () => {
    s = await startTestServer({ listen: true });
    conn = ['--platform-url', s.url, '--apikey', s.admin.apikey, '--workspace-id', s.admin.workspaceId];
  });
  after(() => s.close());

  it('connection options work before the command, between group and command, and after it', async () => {
    for (const args of [
      [...conn, 'project', 'list', '--output-format', 'json'],
      ['project', ...conn, 'list', '--output-format', 'json'],
      ['project', 'list', '--output-format', 'json', ...conn],
    ]) {
      const r = await runCli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.deepEqual(JSON.parse(r.stdout), []);
    }
  });

  it('the option given on the command wins over the one given before it; --profile works before too', async () => {
    const home = tempDir('runyard-home-');
    const saved = await runCli(['configure', '--profile', 'here', ...conn], { home });
    assert.equal(saved.code, 0, saved.stderr);
    const r = await runCli(['--profile', 'here', 'project', 'list'], { home });
    assert.equal(r.code, 0, r.stderr);
    const flagWins = await runCli(['--apikey', 'ry_wrong_key_0123456789', 'project', 'list', ...conn]);
    assert.equal(flagWins.code, 0, flagWins.stderr);
    const before = await runCli(['--apikey', 'ry_wrong_key_0123456789', 'project', 'list', ...conn.slice(0, 2), ...conn.slice(4)]);
    assert.equal(before.code, 4, 'the key given before the command was used');
  });

  it('a global option the command does not take is a usage error, not ignored', async () => {
    const r = await runCli(['--workspace-id', s.admin.workspaceId, 'admin', 'user', 'list', '-k', s.admin.apikey, '-c', s.url]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'Error: --workspace-id does not apply to "runyard admin user list".\n');
  });

  it('a mistyped option is unknown, with a suggestion, before any missing required option', async () => {
    const r = await runCli(['job', 'status', '--jobid', '6630f1c2a9e4b5d6e7f80912']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, "Error: unknown option '--jobid'\n(Did you mean --job-id?)\n");
    const root = await runCli(['--platfrom-url', s.url, 'project', 'list']);
    assert.equal(root.code, 2);
    assert.match(root.stderr, /^Error: unknown option '--platfrom-url'\n\(Did you mean --platform-url\?\)\n$/);
    const missing = await runCli(['job', 'status']);
    assert.equal(missing.code, 2);
    assert.equal(missing.stderr, "Error: required option '--job-id <id>' not specified\n");
  });
});
