import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from './support/run-cli.js';

const WS = '6630f0aa11223344556677ff';

describe('messages for bad ids and URLs', () => {
  it('a platform URL without http:// suggests the URL a person meant', async () => {
    const r = await runCli(['project', 'list', '-k', 'ry_key', '--platform-url', '127.0.0.1:8080', '--workspace-id', WS]);
    assert.equal(r.code, 2);
    assert.equal(
      r.stderr,
      'Error: --platform-url: The platform URL must start with http:// or https:// (not "127.0.0.1:8080"). Did you mean http://127.0.0.1:8080?\n',
    );
    const fromEnv = await runCli(['project', 'list'], {
      env: { RUNYARD_APIKEY: 'k', RUNYARD_PLATFORM_URL: 'localhost:8080/', RUNYARD_WORKSPACE_ID: WS },
    });
    assert.match(fromEnv.stderr, /^Error: RUNYARD_PLATFORM_URL: .*Did you mean http:\/\/localhost:8080\?\n$/);
  });

  it('an unreachable server suggests starting one', async () => {
    const r = await runCli(['project', 'list', '-k', 'ry_key', '--platform-url', 'http://127.0.0.1:9', '--workspace-id', WS]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: Could not reach http:\/\/127\.0\.0\.1:9: .*ECONNREFUSED.* Start one with "runyard server start"/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('a workspace id that is not one says what one looks like, whichever place it came from', async () => {
    const r = await runCli(['project', 'list', '-k', 'ry_key', '-c', 'http://127.0.0.1:9', '--workspace-id', 'demo']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^Error: --workspace-id: "demo" is not a workspace id\. A workspace id is 24 hexadecimal characters/);
  });

  it('--job-ids reports each entry that is not a job id, and goes on with the others', async () => {
    const r = await runCli(['job', 'abort', '--job-ids', 'abc,x y', '-k', 'k', '-c', 'http://127.0.0.1:9', '--workspace-id', WS]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr,
      'Failed to abort job abc: A job id is 24 hexadecimal characters (0-9, a-f), as "runyard job list" shows.\n' +
        'Failed to abort job x y: A job id is 24 hexadecimal characters (0-9, a-f), as "runyard job list" shows.\n' +
        'Error: 2 of 2 jobs could not be aborted: abc, x y.\n',
    );
  });

  it('user and key ids of the admin commands are checked the same way', async () => {
    const r = await runCli(['admin', 'user', 'revoke', '--user-id', 'ada']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /argument 'ada' is invalid\. A user id is 24 hexadecimal characters/);
  });
});
