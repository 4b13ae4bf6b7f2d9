import type { Handlers } from '../http/handler.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../services/api-keys.js';
import { createHpcCluster, listHpcClusters } from '../services/hpc-clusters.js';
import { listCachedImages, pruneCachedImages } from '../services/image-cache.js';
import { createUser, deactivateUser, listUsers } from '../services/users.js';
import { createWorkspace, listMemberships, listWorkspaces, removeMembership, setMembership } from '../services/workspaces.js';

export const adminHandlers: Handlers = {
  adminUserList: async (_req, { db }) => ({ users: await listUsers(db) }),
  adminUserCreate: async (req, { db }) => createUser(db, req.body),
  adminUserRevoke: async (req, { db }) => deactivateUser(db, req.params.id),
  adminWorkspaceList: async (_req, { db }) => ({ workspaces: await listWorkspaces(db) }),
  adminWorkspaceCreate: async (req, { db }) => createWorkspace(db, req.body.name, req.body.ownerId),
  adminMemberList: async (req, { db }) => ({ members: await listMemberships(db, req.query.workspaceId) }),
  adminMemberCreate: async (req, { db }) => setMembership(db, req.body.workspaceId, req.body.userId, req.body.role),
  adminMemberRevoke: async (req, { db }) => removeMembership(db, req.params.workspaceId, req.params.userId),
  adminApiKeyList: async (req, { db }) => ({ apikeys: await listApiKeys(db, req.query.userId) }),
  adminApiKeyCreate: async (req, { db }) => createApiKey(db, req.body.userId, req.body.name),
  adminApiKeyRevoke: async (req, { db }) => revokeApiKey(db, req.params.id),
  adminHpcCreate: async (req, { db }) => createHpcCluster(db, req.body),
  adminHpcList: async (_req, { db }) => ({ clusters: await listHpcClusters(db) }),
  adminImageList: async (_req, { db, config }) => listCachedImages(db, config),
  adminImagePrune: async (req, { db, config }) => pruneCachedImages(db, config, req.body),
};
