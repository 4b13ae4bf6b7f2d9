import type { Handlers } from '../http/handler.js';
import { deleteRegistryAccount, putRegistryAccount } from '../services/docker-registries.js';
import { getMe, searchUsers } from '../services/users.js';

export const userHandlers: Handlers = {
  userMe: async (req, { db }) => getMe(db, req.user!),
  userSearch: async (req, { db }) => searchUsers(db, req.ctx, req.query.q),
  dockerRegistryPut: async (req, { db, config }) => putRegistryAccount(db, config, req.user!, req.body),
  dockerRegistryDelete: async (req, { db }) => deleteRegistryAccount(db, req.user!, req.query.registry),
};
