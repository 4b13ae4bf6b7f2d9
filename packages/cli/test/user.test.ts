import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RunyardClient } from '@runyard/client';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';

// `runyard user docker-login|docker-logout`: the password comes from stdin, never the command line.
describe('runyard user docker-login', () => {
  let s: TestServer;
  let conn: string[];
  let client: RunyardClient;
  before(async () => {
    s = await startTestServer({ listen: true });
    conn = connectionArgs(s.url, s.admin.apikey);
    client = new RunyardClient({ platformUrl: s.url, apikey: s.admin.apikey });
  });
  after(async () => {
    client.close();
    await s.close();
  });

  it('links an account with the password from stdin, lists it in users/me without it, and unlinks it', async () => {
    const r = await runCli(['user', 'docker-login', '--registry', 'ghcr.io', '--username', 'me', ...conn], { input: 'gh-token-123\n' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Linked me at ghcr.io: the images of your jobs at ghcr.io are pulled with it.\n');
    assert.ok(!r.stdout.includes('gh-token-123') && !r.stderr.includes('gh-token-123'));
    const me = await client.getUserInfo();
    assert.deepEqual(
      me.dockerRegistriesCredentials.map((c) => [c.registry, c.username]),
      [['ghcr.io', 'me']],
    );
    const out = await runCli(['user', 'docker-logout', '--registry', 'ghcr.io', ...conn]);
    assert.equal(out.code, 0, out.stderr);
    assert.deepEqual((await client.getUserInfo()).dockerRegistriesCredentials, []);
    const again = await runCli(['user', 'docker-logout', '--registry', 'ghcr.io', ...conn]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /You have no docker registry account at "ghcr\.io"/);
  });

  it('refuses an empty password (exit 2) and sends nothing', async () => {
    const r = await runCli(['user', 'docker-login', '--registry', 'docker.io', '--username', 'me', ...conn], { input: '\n' });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /No password given/);
    assert.deepEqual((await client.getUserInfo()).dockerRegistriesCredentials, []);
  });
});
