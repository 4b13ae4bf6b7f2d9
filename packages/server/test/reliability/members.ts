import assert from 'node:assert/strict';
import type { Role } from '@runyard/contract';
import type { Tenant, TestServer } from '../../../../test/support/server.js';
import { call } from '../wire.js';

/** A new user (not a platform administrator) with `role` in the workspace and an API key, made through the admin API. */
export async function addMember(s: TestServer, workspaceId: string, username: string, role: Role): Promise<Tenant> {
  const user = await call(s, 'POST', '/api/runyard/admin/users', { username, email: `${username}@example.org` });
  assert.equal(user.statusCode, 201, user.body);
  const userId = user.json().id as string;
  const member = await call(s, 'POST', '/api/runyard/admin/members', { workspaceId, userId, role });
  assert.equal(member.statusCode, 201, member.body);
  const key = await call(s, 'POST', '/api/runyard/admin/apikeys', { userId });
  assert.equal(key.statusCode, 201, key.body);
  return { userId, workspaceId, apikey: key.json().apikey };
}
