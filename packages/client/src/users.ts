import type { UserMe, UserSearchReply } from '@runyard/contract';
import { ApiError, RunyardValueError } from './errors.js';
import type { ApiTransport } from './api-transport.js';

/** get_user_info: the calling user (GET /api/v1/users/me, no workspace). */
export function getUserInfo(t: ApiTransport): Promise<UserMe> {
  return t.request<UserMe>('GET', '/api/v1/users/me');
}

/** resolve_user_id: the id of the workspace member whose username, name or "name surname" is `filterOwner`. */
export async function resolveUserId(t: ApiTransport, filterOwner: string, workspaceId: string): Promise<string> {
  let reply: UserSearchReply;
  try {
    reply = await t.request<UserSearchReply>('GET', '/api/v1/users/search-assist', { query: { q: filterOwner, teamId: workspaceId } });
  } catch (e) {
    if (e instanceof ApiError) throw new RunyardValueError(`Error searching for user "${filterOwner}": ${e.message}`);
    throw e;
  }
  const match = reply.items.find(
    (u) => u.username === filterOwner || u.name === filterOwner || `${u.name} ${u.surname}`.trim() === filterOwner,
  );
  if (!match) throw new RunyardValueError(`User "${filterOwner}" was not found in workspace "${workspaceId}".`);
  return match.id ?? match._id;
}

/** A docker registry account the user linked, as users/me lists it (never its password). */
export interface DockerRegistryAccount {
  registry: string;
  username: string;
  createdAt: string;
}

/** Links (or replaces) the caller's account at a docker registry: `PUT /api/runyard/users/me/docker-registries`. */
export function linkDockerRegistry(
  t: ApiTransport,
  account: { registry: string; username: string; password: string },
): Promise<DockerRegistryAccount> {
  if (!account.password) throw new RunyardValueError('A password (or access token) is required.');
  return t.request<DockerRegistryAccount>('PUT', '/api/runyard/users/me/docker-registries', { body: account });
}

/** Unlinks the caller's account at a docker registry. */
export async function unlinkDockerRegistry(t: ApiTransport, registry: string): Promise<void> {
  await t.request('DELETE', '/api/runyard/users/me/docker-registries', { query: { registry } });
}
