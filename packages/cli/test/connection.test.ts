import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type Tenant, type TestServer } from '../../../test/support/server.js';
import { runCli, tempDir } from './support/run-cli.js';

/** Where nothing listens: a profile or variable pointing here must lose to a better source. */
const DEAD_URL = 'http://127.0.0.1:9';
const BAD_KEY = 'ry_bad_key_that_the_server_does_not_know_0123456789';

describe('connection settings: flag > environment > profile', () => {
  let s: TestServer;
  let other: Tenant;
  before(async () => {
    s = await startTestServer({ listen: true });
    other = await s.newTenant('conn-other');
  });
  after(() => s.close());

  const env = () => ({ RUNYARD_APIKEY: s.admin.apikey, RUNYARD_PLATFORM_URL: s.url, RUNYARD_WORKSPACE_ID: s.admin.workspaceId });

  it('works from the environment alone', async () => {
    const r = await runCli(['project', 'list'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
  });

  it('a flag beats the environment', async () => {
    const ok = await runCli(['project', 'list', '-k', s.admin.apikey], { env: { ...env(), RUNYARD_APIKEY: BAD_KEY } });
    assert.equal(ok.code, 0, ok.stderr);
    const bad = await runCli(['project', 'list', '--apikey', BAD_KEY], { env: env() });
    assert.equal(bad.code, 4, bad.stderr);
    const url = await runCli(['project', 'list', '-c', s.url], { env: { ...env(), RUNYARD_PLATFORM_URL: DEAD_URL } });
    assert.equal(url.code, 0, url.stderr);
  });

  it('the environment beats the profile, and the profile fills what is left', async () => {
    const home = tempDir('runyard-home-');
    const saved = await runCli(['configure', '-k', BAD_KEY, '--platform-url', DEAD_URL, '--workspace-id', other.workspaceId], { home });
    assert.equal(saved.code, 0, saved.stderr);
    const r = await runCli(['project', 'list'], { home, env: env() });
    assert.equal(r.code, 0, r.stderr);

    await runCli(['configure', '-k', s.admin.apikey, '--platform-url', `${s.url}/`, '--workspace-id', s.admin.workspaceId], { home });
    const fromProfile = await runCli(['project', 'list'], { home });
    assert.equal(fromProfile.code, 0, fromProfile.stderr);
    const flagOverProfile = await runCli(['project', 'list', '--workspace-id', other.workspaceId], { home });
    assert.equal(flagOverProfile.code, 1, 'the flag workspace (not the profile one) was used');
  });

  it('--profile picks a profile other than the default; an unknown profile is a usage error', async () => {
    const home = tempDir('runyard-home-');
    await runCli(['configure', '-k', BAD_KEY, '--platform-url', DEAD_URL, '--workspace-id', other.workspaceId], { home });
    await runCli(['configure', '--profile', 'good', '-k', s.admin.apikey, '--platform-url', s.url, '--workspace-id', s.admin.workspaceId], {
      home,
    });
    assert.equal((await runCli(['configure', 'list-profiles'], { home })).stdout, 'default (default)\ngood\n');
    const r = await runCli(['project', 'list', '--profile', 'good'], { home });
    assert.equal(r.code, 0, r.stderr);
    const missing = await runCli(['project', 'list', '--profile', 'nope'], { home });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^Error: Profile "nope" does not exist/);
  });

  it('a missing setting is a usage error (exit 2) that lists the missing options', async () => {
    const r = await runCli(['project', 'list', '-k', s.admin.apikey, '-c', s.url]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^Error: Missing option: --workspace-id\b.*RUNYARD_WORKSPACE_ID.*runyard configure/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    const all = await runCli(['project', 'create', '--new-project', 'x']);
    assert.equal(all.code, 2);
    assert.match(all.stderr, /Missing options: --apikey, --platform-url, --workspace-id/);
  });

  it('a key the server refuses exits 4 without printing the key', async () => {
    const r = await runCli(['project', 'list'], { env: { ...env(), RUNYARD_APIKEY: BAD_KEY } });
    assert.equal(r.code, 4);
    assert.match(r.stderr, /^Error: Authentication failed/);
    assert.ok(!r.stderr.includes(BAD_KEY));
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it("another tenant's workspace exits 1 with the server's 404 message", async () => {
    const r = await runCli(['project', 'list', '--workspace-id', other.workspaceId], { env: env() });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`^Error: Workspace "${other.workspaceId}" not found.*\\(HTTP 404\\)\\n$`));
  });

  it('accepts cloudos-cli spellings: --cloudos-url, and a URL with a trailing slash', async () => {
    const r = await runCli(['project', 'list', '--cloudos-url', `${s.url}/`, '-k', s.admin.apikey, '--workspace-id', s.admin.workspaceId]);
    assert.equal(r.code, 0, r.stderr);
  });

  it('an unreachable server exits 1 with one line', async () => {
    const r = await runCli(['project', 'list'], { env: { ...env(), RUNYARD_PLATFORM_URL: DEAD_URL } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: Could not reach http:\/\/127\.0\.0\.1:9.* Start one with "runyard server start"/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('a malformed platform URL is a usage error', async () => {
    const r = await runCli(['project', 'list', '-c', 'ftp://x'], { env: env() });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'Error: --platform-url: The platform URL must start with http:// or https:// (not "ftp://x").\n');
  });
});
