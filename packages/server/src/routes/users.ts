import type { Handlers } from '../http/handler.js';
import { getMe, searchUsers } from '../services/users.js';

export const userHandlers: Handlers = {
  userMe: async (req, { db }) => getMe(db, req.user!),
  userSearch: async (req, { db }) => searchUsers(db, req.ctx, req.query.q),
};
