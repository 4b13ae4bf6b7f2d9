import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';

const ID = /^[0-9a-f]{24}$/;

describe('runyard admin user|workspace|member|apikey', () => {
  let s: TestServer;
  let admin: string[];
  before(async () => {
    s = await startTestServer({ listen: true });
    admin = connectionArgs(s.url, s.admin.apikey);
  });
  after(() => s.close());

  async function ok(args: string[], env?: Record<string, string>): Promise<string> {
    const r = await runCli(args, { env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  }

  it('sets up a user end to end: user, workspace, membership, key; the key works until revoked', async () => {
    // A workspace id in the environment must not become the target of admin commands.
    const envWs = { RUNYARD_WORKSPACE_ID: s.admin.workspaceId };
    const userId = await ok([
      'admin',
      'user',
      'create',
      '--username',
      'ada',
      '--email',
      'ada@example.org',
      '--name',
      'Ada',
      '--surname',
      'Lovelace',
      ...admin,
    ]);
    assert.match(userId, ID);
    const wsId = await ok(['admin', 'workspace', 'create', '--name', 'Analytical engine', ...admin]);
    assert.match(wsId, ID);
    const added = await runCli(['admin', 'member', 'create', '--workspace-id', wsId, '--user-id', userId, '--role', 'member', ...admin], {
      env: envWs,
    });
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stderr, new RegExp(`User "ada" \\(${userId}\\) is member of workspace ${wsId}`));

    const members = JSON.parse(await ok(['admin', 'member', 'list', '--workspace-id', wsId, '--output-format', 'json', ...admin], envWs));
    assert.deepEqual(
      members.map((m: { userId: string; role: string }) => [m.userId, m.role]),
      [[userId, 'member']],
    );

    const created = await runCli(['admin', 'apikey', 'create', '--user-id', userId, '--name', 'laptop', ...admin]);
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    assert.ok(key.length >= 32, 'the secret, once, on stdout');
    assert.match(created.stderr, /shown only this once/);
    assert.ok(!created.stderr.includes(key));

    const userConn = connectionArgs(s.url, key, wsId);
    assert.match(await ok(['project', 'create', '--new-project', 'notes', ...userConn]), ID);
    assert.equal((await ok(['project', 'list', ...userConn])).split('\t')[1], 'notes');

    const keys = await runCli(['admin', 'apikey', 'list', '--user-id', userId, '--output-format', 'csv', ...admin]);
    assert.equal(keys.code, 0, keys.stderr);
    const [header, row, ...rest] = keys.stdout.trimEnd().split('\n');
    assert.equal(header, 'id,userId,name,prefix,createdAt,lastUsedAt,revokedAt');
    assert.equal(rest.length, 0);
    assert.ok(!keys.stdout.includes(key), 'lists never show a secret');
    const keyId = row.split(',')[0];
    assert.match(keyId, ID);
    assert.notEqual(row.split(',')[5], '', 'the key was used');

    const revoked = await runCli(['admin', 'apikey', 'revoke', '--key-id', keyId, ...admin]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const refused = await runCli(['project', 'list', ...userConn]);
    assert.equal(refused.code, 4);
    assert.match(refused.stderr, /^Error: Authentication failed/);
  });

  it('removing a membership closes the workspace; deactivating the user stops their keys', async () => {
    const userId = await ok(['admin', 'user', 'create', '--username', 'bob', '--email', 'bob@example.org', ...admin]);
    const wsId = await ok(['admin', 'workspace', 'create', '--name', 'Bob space', '--owner-id', s.admin.userId, ...admin]);
    await ok(['admin', 'member', 'create', '--workspace-id', wsId, '--user-id', userId, ...admin]);
    const key = await ok(['admin', 'apikey', 'create', '--user-id', userId, ...admin]);
    const userConn = connectionArgs(s.url, key, wsId);
    await ok(['project', 'list', ...userConn]);

    await ok(['admin', 'member', 'revoke', '--workspace-id', wsId, '--user-id', userId, ...admin]);
    const gone = await runCli(['project', 'list', ...userConn]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /not found.*\(HTTP 404\)/);

    await ok(['admin', 'user', 'revoke', '--user-id', userId, ...admin]);
    const off = await runCli(['project', 'list', ...userConn]);
    assert.equal(off.code, 4);
    const users = JSON.parse(await ok(['admin', 'user', 'list', '--output-format', 'json', ...admin])) as {
      username: string;
      active: boolean;
    }[];
    assert.equal(users.find((u) => u.username === 'bob')?.active, false);
  });

  it('lists in table, csv and json', async () => {
    const users = (await ok(['admin', 'user', 'list', ...admin])).split('\n').map((l) => l.split('\t'));
    assert.ok(users.some((u) => u[1] === 'admin' && u[4] === 'yes'));
    const workspaces = await ok(['admin', 'workspace', 'list', '--output-format', 'csv', ...admin]);
    assert.equal(workspaces.split('\n')[0], 'id,name,memberCount,createdAt');
    assert.ok(workspaces.includes(`${s.admin.workspaceId},Default workspace,`));
    const members = JSON.parse(await ok(['admin', 'member', 'list', '--output-format', 'json', ...admin])) as { username: string }[];
    assert.ok(members.some((m) => m.username === 'admin'));
    const keys = (await ok(['admin', 'apikey', 'list', ...admin])).split('\n');
    assert.ok(keys.length >= 1);
  });

  it('needs no workspace id, but needs an administrator key', async () => {
    const tenant = await s.newTenant('not-admin');
    const r = await runCli(['admin', 'user', 'list', ...connectionArgs(s.url, tenant.apikey)]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: .*\(HTTP 403\)\n$/);
    const missing = await runCli(['admin', 'user', 'list', '-k', s.admin.apikey]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing option: --platform-url\./);
  });

  it('reports server refusals and usage errors', async () => {
    const dup = await runCli(['admin', 'user', 'create', '--username', 'admin', '--email', 'x@example.org', ...admin]);
    assert.equal(dup.code, 1);
    assert.match(dup.stderr, /^Error: A user named "admin" already exists\. \(HTTP 409\)\n$/);
    const role = await runCli([
      'admin',
      'member',
      'create',
      '--workspace-id',
      s.admin.workspaceId,
      '--user-id',
      s.admin.userId,
      '--role',
      'king',
      ...admin,
    ]);
    assert.equal(role.code, 2);
    const noUser = await runCli(['admin', 'apikey', 'create', ...admin]);
    assert.equal(noUser.code, 2);
    assert.match(noUser.stderr, /--user-id/);
    const unknownKey = await runCli(['admin', 'apikey', 'revoke', '--key-id', '0123456789abcdef01234567', ...admin]);
    assert.equal(unknownKey.code, 1);
    assert.match(unknownKey.stderr, /\(HTTP 404\)/);
  });
});
